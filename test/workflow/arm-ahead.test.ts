// Arming ahead (issue 45): a recurring ALLOW JOB arms every slot within the SDK's armAheadMs
// (SCHEDULER_ARM_AHEAD_S), at most ARMED_AT_MOST, and wakes again once half of them began, so that a schedule every minute runs one
// workflow task per several fires. Only the schedule's own history is asserted here: the time-skipping
// server does not begin a delayed start when it skips time (jobs beginning at their instant, and taking
// armed jobs back: test/integration/armed.test.ts on the dev server).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { amendedZoneRules, useRuntimeZoneRules, useZoneRules, zoneRules } from '../../src/calendar/index.js';
import { scheduleWorkflowId } from '../../src/model/ids.js';
import { PATCHES } from '../../src/workflows/patches.js';
import { ARMED_AT_MOST } from '../../src/workflows/schedule/state.js';
import { isLocalActivityMarker, markerText } from '../helpers/history.js';
import { SchedulerHarness } from '../helpers/scheduler-harness.js';

const MINUTE = 60_000;
const job = { type: 'JOB' as const, job_type: 'recordedJob' };

describe('arming ahead (time-skipping server)', () => {
  let h: SchedulerHarness;
  beforeEach(async () => {
    h = await SchedulerHarness.start();
  });
  afterEach(async () => {
    useRuntimeZoneRules();
    await h?.teardown();
  });

  it('a schedule every minute arms several slots per workflow task, each slot once', async () => {
    const sdk = h.sdk('acme', 'ops', { armLeadMs: 120_000, armAheadMs: 10 * MINUTE });
    await sdk.create({
      schedule_id: 'every-minute',
      target: job,
      timing: { kind: 'INTERVAL', every: 'PT1M' },
    });
    await h.env.sleep(40 * MINUTE);

    const described = await sdk.describe('every-minute');
    const events =
      (await h.env.client.workflow.getHandle(scheduleWorkflowId('acme', 'every-minute')).fetchHistory())
        .events ?? [];
    // Each arming is a job start (a local activity when inert, else an activity): a fire.
    const armings = described.counters.fired;
    const tasks = events.filter((e) => e.workflowTaskCompletedEventAttributes).length;
    // Forty minutes of slots armed (and up to ARMED_AT_MOST beyond), each once.
    expect(armings).toBeGreaterThanOrEqual(40);
    expect(armings).toBeLessThanOrEqual(40 + ARMED_AT_MOST + 1);
    expect(described.counters.duplicates_prevented).toBe(0);
    // One task per fire before arming ahead (each arming point its own wake, each start's result a task);
    // ahead, a wake arms five or more, and their results come back together.
    expect(tasks / armings).toBeLessThan(0.6);
    const armed = described.recent_occurrences.filter((o) => o.status === 'ARMED');
    expect(armed.length).toBeGreaterThan(1);
    expect(armed.length).toBeLessThanOrEqual(ARMED_AT_MOST);
    const slots = described.recent_occurrences.map((o) => o.scheduled_for);
    expect(new Set(slots).size).toBe(slots.length);
    // The slots a wake arms are started by one activity: one result marker (or activity) per arming pass,
    // not one per slot (PATCHES.BATCHED_ARMING); and each armed job exists, waiting for its instant.
    const startResults = events.filter(
      (e) => isLocalActivityMarker(e) || e.activityTaskScheduledEventAttributes,
    ).length;
    expect(startResults).toBeLessThanOrEqual(tasks);
    expect(startResults * 3).toBeLessThan(armings);
    expect(markerText(events)).toContain(PATCHES.BATCHED_ARMING.id);
    for (const o of armed)
      expect((await h.env.client.workflow.getHandle(o.occurrence_id).describe()).status.name).toBe('RUNNING');
    // It wakes between slots, never on an instant at which its jobs begin (wakeBetweenMs).
    const instants = described.recent_occurrences.map((o) => Date.parse(o.fire_at));
    const wakes = events
      .filter((e) => e.timerFiredEventAttributes)
      .map((e) => Number(e.eventTime!.seconds) * 1000 + Math.floor((e.eventTime!.nanos ?? 0) / 1e6));
    expect(wakes.length).toBeGreaterThan(3);
    for (const wake of wakes) for (const at of instants) expect(Math.abs(wake - at)).toBeGreaterThan(1_000);
    await sdk.cancel('every-minute');
  });

  it('a recompute takes back the armed slots, and arms them again on the new rules', async () => {
    const sdk = h.sdk('acme', 'ops', { armLeadMs: 120_000, armAheadMs: 10 * MINUTE });
    const timing = { kind: 'CRON' as const, expression: '*/2 * * * *', timezone: 'Europe/Riga' };
    await sdk.create({ schedule_id: 'riga-armed', target: job, timing });
    await h.env.sleep(3 * MINUTE);
    const before = await sdk.describe('riga-armed');
    const armedBefore = before.recent_occurrences
      .filter((o) => o.status === 'ARMED')
      .sort((a, b) => Date.parse(a.fire_at) - Date.parse(b.fire_at));
    expect(armedBefore.length).toBeGreaterThanOrEqual(3);

    // Riga's offset grows by a minute from `changeAt` on: the slot in the minute skipped keeps its instant
    // (a DST gap), every slot after it moves a minute earlier, to an odd minute.
    const changeAt = Date.parse(armedBefore[0]!.fire_at) + 1_000;
    // Rules answer for whole seconds (as the calendar asks them).
    const offset = zoneRules().offsetAt('Europe/Riga', changeAt);
    useZoneRules(
      amendedZoneRules(zoneRules(), '2099a', [
        { zone: 'Europe/Riga', from: changeAt, offsetMs: offset + MINUTE },
      ]),
    );
    const asked = await sdk.recomputeSchedule('riga-armed', { zone: 'Europe/Riga', reason: 'tzdata 2099a' });
    expect(asked.recomputed).toBe(true);
    expect(asked.record!.moved).toBeGreaterThan(0);

    // The armed jobs of the old instants after the change were terminated and are not armed again.
    const moved = armedBefore.filter((o) => Date.parse(o.fire_at) > changeAt + MINUTE);
    expect(moved.length).toBeGreaterThanOrEqual(2);
    for (const o of moved) {
      const run = await h.env.client.workflow.getHandle(o.target_ref!).describe();
      expect(run.status.name).toBe('TERMINATED');
    }
    await h.env.sleep(12 * MINUTE);
    const after = await sdk.describe('riga-armed');
    const emitted = after.recent_occurrences.filter((o) => o.status === 'ARMED' || o.status === 'HANDED_OFF');
    // Each slot once; past the change only the new instants (odd minutes), none of the old.
    const slots = emitted.map((o) => o.scheduled_for);
    expect(new Set(slots).size).toBe(slots.length);
    const afterChange = emitted.filter((o) => Date.parse(o.scheduled_for) > changeAt + MINUTE);
    expect(afterChange.length).toBeGreaterThanOrEqual(5);
    for (const o of afterChange) expect(new Date(o.scheduled_for).getUTCMinutes() % 2).toBe(1);
    expect(after.counters.fired).toBe(emitted.length);
    expect(after.counters.duplicates_prevented).toBe(0);
    await sdk.cancel('riga-armed');
  });
});
