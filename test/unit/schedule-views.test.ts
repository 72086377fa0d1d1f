// What a schedule shows of itself, from its state alone (src/workflows/schedule/views.ts): the schedule.v1
// document describe answers, what listings filter on, and when the run needs to upsert at all.
import { expect, describe as group, it } from 'vitest';
import { ScheduleSpec } from '../../src/model/contracts.js';
import { initialState, type ScheduleState } from '../../src/workflows/schedule/state.js';
import { changedAttributes, describe, nextFireAt, visibilityOf } from '../../src/workflows/schedule/views.js';
import { NextRunAtKey, ScheduleStatusKey, TenantIdKey } from '../../src/workflows/search-attributes.js';

const createdAt = '2026-03-01T00:00:00.000Z';
const slot = (at: string) => ({ scheduledFor: at, fireAt: at, local: at, adjustments: [] });
function stateWith(overrides: Partial<ScheduleState> = {}): ScheduleState {
  const spec = ScheduleSpec.parse({
    target: { type: 'JOB', job_type: 'report' },
    timing: { kind: 'INTERVAL', every: 'PT1H', mode: 'FIXED_RATE' },
  });
  const identity = { tenant_id: 'acme', schedule_id: 'nightly', owner_ref: 'ops' };
  return {
    ...initialState({ identity, spec, defaultJobTaskQueue: 'jobs' }, createdAt),
    buffer: [slot('2026-03-01T02:00:00.000Z'), slot('2026-03-01T03:00:00.000Z')],
    ...overrides,
  };
}

group('describe', () => {
  it('answers a schedule.v1 document with the first pending fire as the next run', () => {
    const s = stateWith({
      pendingFires: [
        { slot: slot('2026-03-01T01:00:00.000Z'), trigger: 'SCHEDULE', late: true, reason: null },
      ],
    });
    const view = describe(s);
    expect(view.schedule).toMatchObject({
      contract: 'schedule.v1',
      schedule_id: 'nightly',
      status: 'ACTIVE',
      version: 1,
      next_run_at: '2026-03-01T01:00:00.000Z',
      created_at: createdAt,
      deleted_at: null,
    });
    expect(view.next_runs.map((r) => r.scheduled_for)).toEqual([
      '2026-03-01T01:00:00.000Z',
      '2026-03-01T02:00:00.000Z',
      '2026-03-01T03:00:00.000Z',
    ]);
  });

  it('shows an ended schedule with no next run, whatever its buffer still holds', () => {
    const view = describe(stateWith({ status: 'CANCELLED' }));
    expect(view.schedule.next_run_at).toBeNull();
    expect(view.next_runs).toEqual([]);
    expect(nextFireAt(stateWith({ status: 'CANCELLED' }))).toBe('2026-03-01T02:00:00.000Z');
  });

  it('is a copy: changing the answer leaves the state alone', () => {
    const s = stateWith({ queue: ['a'] });
    const view = describe(s);
    view.queued.push('b');
    view.counters.fired = 99;
    expect(s.queue).toEqual(['a']);
    expect(s.counters.fired).toBe(0);
  });
});

group('visibilityOf', () => {
  it('lists an active schedule with its next run, a paused one without', () => {
    const active = visibilityOf(stateWith());
    expect(active.key).toBe('ACTIVE|2026-03-01T02:00:00.000Z');
    expect(active.attributes.find((p) => p.key === NextRunAtKey)?.value).toEqual(
      new Date('2026-03-01T02:00:00.000Z'),
    );
    const paused = visibilityOf(stateWith({ status: 'PAUSED' }));
    expect(paused.key).toBe('PAUSED|null');
    expect(paused.attributes.find((p) => p.key === NextRunAtKey)?.value).toBeNull();
  });

  it('shows a deleted schedule as DELETED, so listings leave it out', () => {
    const shown = visibilityOf(stateWith({ status: 'CANCELLED', deletedAt: '2026-03-02T00:00:00.000Z' }));
    expect(shown.attributes.find((p) => p.key === ScheduleStatusKey)?.value).toBe('DELETED');
  });
});

group('changedAttributes', () => {
  const carried = (values: Record<string, unknown>) => ({ get: (key: { name: string }) => values[key.name] });
  it('upserts only what differs from what the workflow carries', () => {
    const wanted = visibilityOf(stateWith()).attributes;
    const current = carried({
      SchedulerTenantId: 'acme',
      SchedulerScheduleId: 'nightly',
      SchedulerTimingKind: 'INTERVAL',
      SchedulerStatus: 'ACTIVE',
      SchedulerNextRunAt: new Date('2026-03-01T01:00:00.000Z'),
    });
    expect(changedAttributes(current, wanted).map((p) => p.key.name)).toEqual(['SchedulerNextRunAt']);
  });
  it('treats an absent attribute and a removing (null) update as equal, and equal dates as equal', () => {
    const wanted = [
      { key: NextRunAtKey, value: null },
      { key: TenantIdKey, value: 'acme' },
    ];
    expect(changedAttributes(carried({ SchedulerTenantId: 'acme' }), wanted)).toEqual([]);
    const at = [{ key: NextRunAtKey, value: new Date('2026-03-01T02:00:00.000Z') }];
    expect(
      changedAttributes(carried({ SchedulerNextRunAt: new Date('2026-03-01T02:00:00.000Z') }), at),
    ).toEqual([]);
  });
});
