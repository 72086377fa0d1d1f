// The HTTP API end to end, as a user with curl would use it: real dev server, real worker, real HTTP. Every
// response is checked against the served OpenAPI document by the harness.
import { WorkflowNotFoundError } from '@temporalio/client';
import { DateTime } from 'luxon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scheduleWorkflowId } from '../../src/model/ids.js';
import { hourHalfADayAway } from '../helpers/clock.js';
import { type ApiStack, startApiStack, startEventSink } from '../helpers/http-api.js';
import { eventually, PROMPT_PURGE } from './support.js';

const ALICE = 'key-acme-alice-0123456789';
const BOB = 'key-acme-bob-0123456789ab';
const KEYS = `${ALICE}=acme:alice,${BOB}=acme:bob`;

let api: ApiStack;
let sink: Awaited<ReturnType<typeof startEventSink>>;

beforeAll(async () => {
  sink = await startEventSink();
  api = await startApiStack('http-lifecycle', { keys: KEYS, server: PROMPT_PURGE });
});
afterAll(async () => {
  await api?.stop();
  await sink?.close();
});

const job = { type: 'JOB', job_type: 'recordedJob' } as const;
// The weekday schedule must not come due (or be armed, a lead before its slot) while the file runs: its hour
// is half a day from now, whatever the hour the suite runs at; the edit moves it an hour earlier.
const HOUR = hourHalfADayAway('Europe/Riga');
const EARLIER = (HOUR + 23) % 24;
const WEEKDAYS = `0 ${HOUR} * * 1-5`;
const WEEKDAYS_EARLIER = `30 ${EARLIER} * * 1-5`;

describe('HTTP API: lifecycle', () => {
  it('creates a weekday Europe/Riga schedule: 201, then the same again 200, another definition 409', async () => {
    const body = {
      schedule_id: 'weekday-report',
      timing: { kind: 'CRON', expression: WEEKDAYS, timezone: 'Europe/Riga' },
      target: job,
    };
    const created = await api.call('POST', '/v1/schedules', { key: ALICE, body });
    expect(created.status).toBe(201);
    expect(created.headers.get('location')).toBe('/v1/schedules/weekday-report');
    expect(created.body).toMatchObject({
      contract: 'schedule.v1',
      schedule_id: 'weekday-report',
      tenant_id: 'acme',
      owner_ref: 'alice',
      status: 'ACTIVE',
      version: 1,
      misfire: 'FIRE_ONCE',
      timing: body.timing,
    });
    // HOUR:00 on a weekday in Riga's wall time (EET +02:00 in winter, EEST +03:00 in summer).
    const next = DateTime.fromISO(created.body.next_run_at, { zone: 'Europe/Riga' });
    expect([next.hour, next.minute, next.second]).toEqual([HOUR, 0, 0]);
    expect([1, 2, 3, 4, 5]).toContain(next.weekday);

    const again = await api.call('POST', '/v1/schedules', { key: ALICE, body });
    expect(again.status).toBe(200);
    expect(again.body.created_at).toBe(created.body.created_at);

    const other = await api.call('POST', '/v1/schedules', {
      key: ALICE,
      body: { ...body, timing: { ...body.timing, expression: `0 ${(HOUR + 1) % 24} * * 1-5` } },
    });
    expect(other.status).toBe(409);
    expect(other.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(other.body).toMatchObject({ code: 'ALREADY_EXISTS', field: 'schedule_id', status: 409 });

    const got = await api.call('GET', '/v1/schedules/weekday-report', { key: BOB });
    expect(got.status).toBe(200);
    expect(got.body.owner_ref).toBe('alice');
  });

  it('PATCH merges the given fields under expected_version; a stale version is 409 with current_version', async () => {
    const patched = await api.call('PATCH', '/v1/schedules/weekday-report', {
      key: ALICE,
      body: {
        expected_version: 1,
        timing: { kind: 'CRON', expression: WEEKDAYS_EARLIER, timezone: 'Europe/Riga' },
      },
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({
      version: 2,
      timing: { expression: WEEKDAYS_EARLIER },
      target: job, // untouched
      misfire: 'FIRE_ONCE',
    });
    expect(DateTime.fromISO(patched.body.next_run_at, { zone: 'Europe/Riga' }).toFormat('HH:mm')).toBe(
      `${String(EARLIER).padStart(2, '0')}:30`,
    );

    const stale = await api.call('PATCH', '/v1/schedules/weekday-report', {
      key: ALICE,
      body: { expected_version: 1, overlap: 'SKIP' },
    });
    expect(stale.status).toBe(409);
    expect(stale.body).toMatchObject({
      code: 'VERSION_CONFLICT',
      field: 'expected_version',
      current_version: 2,
    });

    const cleared = await api.call('PATCH', '/v1/schedules/weekday-report', {
      key: ALICE,
      body: { expected_version: 2, overlap: 'SKIP', exclusions: ['2026-12-24'] },
    });
    expect(cleared.status).toBe(200);
    expect(cleared.body).toMatchObject({ version: 3, overlap: 'SKIP', exclusions: ['2026-12-24'] });
    const removed = await api.call('PATCH', '/v1/schedules/weekday-report', {
      key: ALICE,
      body: { expected_version: 3, exclusions: null },
    });
    expect(removed.status).toBe(200);
    expect(removed.body.version).toBe(4);
    expect(removed.body).not.toHaveProperty('exclusions');
  });

  it('pause, resume, describe, cancel (still readable), delete (gone)', async () => {
    const paused = await api.call('POST', '/v1/schedules/weekday-report/pause', {
      key: ALICE,
      body: { note: 'quarter close' },
    });
    expect(paused.status).toBe(200);
    expect(paused.body).toMatchObject({ status: 'PAUSED', pause_note: 'quarter close' });

    // The listing filters on the search attributes the pause's task wrote, which visibility shows a moment
    // later than the schedule itself does.
    const listedPaused = await eventually(
      'the paused schedule in the PAUSED listing',
      async () => {
        const listed = await api.call('GET', '/v1/schedules?status=PAUSED', { key: ALICE });
        expect(listed.status).toBe(200);
        return listed.body.items.length > 0 ? listed.body : undefined;
      },
      20_000,
    );
    expect(listedPaused.items).toEqual([
      expect.objectContaining({
        schedule_id: 'weekday-report',
        owner_ref: 'alice',
        status: 'PAUSED',
        pause_note: 'quarter close',
        version: 4,
        timing: { kind: 'CRON', expression: WEEKDAYS_EARLIER, timezone: 'Europe/Riga' },
      }),
    ]);
    expect(listedPaused.next_cursor).toBeNull();

    const resumed = await api.call('POST', '/v1/schedules/weekday-report/resume', { key: ALICE });
    expect(resumed.body.status).toBe('ACTIVE');

    const described = await api.call('GET', '/v1/schedules/weekday-report/describe', { key: ALICE });
    expect(described.status).toBe(200);
    expect(described.body.next_runs.length).toBeGreaterThan(3);
    expect(described.body.counters).toMatchObject({ fired: 0 });

    const cancelled = await api.call('POST', '/v1/schedules/weekday-report/cancel', {
      key: ALICE,
      body: { note: 'replaced' },
    });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ status: 'CANCELLED', next_run_at: null });
    expect((await api.call('GET', '/v1/schedules/weekday-report', { key: ALICE })).body.status).toBe(
      'CANCELLED',
    );
    const editCancelled = await api.call('PATCH', '/v1/schedules/weekday-report', {
      key: ALICE,
      body: { expected_version: 4, overlap: 'ALLOW' },
    });
    expect(editCancelled.status).toBe(409);
    expect(editCancelled.body.code).toBe('INVALID_STATE');

    // Deleting an ended schedule asks Temporal to purge it: its workflow, history and visibility record go,
    // so nothing reads it any more, by ID or in any listing, and its ID is free again. Asynchronously: the
    // server deletes a run that closed moments ago once its queue acknowledged the close (PROMPT_PURGE).
    expect((await api.call('DELETE', '/v1/schedules/weekday-report', { key: ALICE })).status).toBe(204);
    const gone = await eventually(
      'the purged schedule to be gone',
      async () => {
        const got = await api.call('GET', '/v1/schedules/weekday-report', { key: ALICE });
        return got.status === 404 ? got : undefined;
      },
      60_000,
      500,
    );
    expect(gone.body).toMatchObject({ code: 'NOT_FOUND' });
    await expect(
      api.stack.client.workflow.getHandle(scheduleWorkflowId('acme', 'weekday-report')).describe(),
    ).rejects.toBeInstanceOf(WorkflowNotFoundError);
    await eventually(
      'the purged schedule to leave every listing',
      async () => {
        const listed = await api.call('GET', '/v1/schedules?include_deleted=true', { key: ALICE });
        expect(listed.status).toBe(200);
        const ids = listed.body.items.map((s: { schedule_id: string }) => s.schedule_id);
        return ids.includes('weekday-report') ? undefined : true;
      },
      20_000,
    );
    // A deleted live schedule keeps its ID (below); a purged one leaves it free.
    const again = await api.call('POST', '/v1/schedules', {
      key: ALICE,
      body: { schedule_id: 'weekday-report', timing: { kind: 'INTERVAL', every: 'PT1H' }, target: job },
    });
    expect(again.status).toBe(201);
    expect(again.body).toMatchObject({ schedule_id: 'weekday-report', version: 1, status: 'ACTIVE' });
  });

  it('DELETE of a live schedule cancels it and leaves it out of listings; it stays readable by ID', async () => {
    const body = { schedule_id: 'to-delete', timing: { kind: 'INTERVAL', every: 'PT1H' }, target: job };
    expect((await api.call('POST', '/v1/schedules', { key: ALICE, body })).status).toBe(201);
    const listed = async (query: string) =>
      (await api.call('GET', `/v1/schedules${query}`, { key: ALICE })).body.items.map(
        (s: { schedule_id: string }) => s.schedule_id,
      );
    await eventually(
      'the new schedule to be listed',
      async () => ((await listed('')).includes('to-delete') ? true : undefined),
      20_000,
    );

    const deleted = await api.call('DELETE', '/v1/schedules/to-delete', { key: ALICE });
    expect(deleted.status).toBe(204);
    const read = await api.call('GET', '/v1/schedules/to-delete', { key: ALICE });
    expect(read.status).toBe(200);
    expect(read.body.status).toBe('CANCELLED');
    expect(read.body.deleted_at).not.toBeNull();
    await eventually(
      'the deleted schedule to leave the default listing',
      async () => ((await listed('')).includes('to-delete') ? undefined : true),
      20_000,
    );
    expect(await listed('?include_deleted=true')).toContain('to-delete');
    expect(await listed('?status=CANCELLED')).not.toContain('to-delete');
    // Deleting again is harmless.
    expect((await api.call('DELETE', '/v1/schedules/to-delete', { key: ALICE })).status).toBe(204);
  });

  it('a 2-second INTERVAL EVENT schedule delivers CloudEvents to a local sink, no id twice', async () => {
    const created = await api.call('POST', '/v1/schedules', {
      key: ALICE,
      body: {
        schedule_id: 'heartbeat',
        timing: { kind: 'INTERVAL', every: 'PT2S' },
        target: {
          type: 'EVENT',
          event_type: 'heartbeat.tick',
          sink_url: sink.url,
          payload: { source: 'test' },
        },
      },
    });
    expect(created.status).toBe(201);
    await eventually(
      'four events at the sink',
      async () => (sink.events.length >= 4 ? true : undefined),
      30_000,
    );
    const paused = await api.call('POST', '/v1/schedules/heartbeat/pause', { key: ALICE });
    expect(paused.body.status).toBe('PAUSED');
    const ids = sink.events.map((e) => e.body.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const event of sink.events) {
      expect(event.body).toMatchObject({ specversion: '1.0', type: 'heartbeat.tick' });
      expect(event.body.data).toMatchObject({ schedule_id: 'heartbeat', payload: { source: 'test' } });
    }
    // A slot that fell due just before the pause may still be handing off: read once none is.
    const occurrences = await eventually(
      'no hand-off in flight',
      async () => {
        const page = await api.call('GET', '/v1/schedules/heartbeat/occurrences?limit=2', { key: ALICE });
        return page.status !== 200 ||
          page.body.items.every((o: { status: string }) => o.status !== 'DISPATCHING')
          ? page
          : undefined;
      },
      30_000,
    );
    expect(occurrences.status).toBe(200);
    expect(occurrences.body.items).toHaveLength(2);
    const [newest, older] = occurrences.body.items;
    expect(newest.scheduled_for > older.scheduled_for).toBe(true);
    expect(newest).toMatchObject({ schedule_version: 1, status: 'HANDED_OFF' });
    expect(newest.idempotency_key).toBe(`schedule:heartbeat:${new Date(newest.scheduled_for).toISOString()}`);
    expect(occurrences.body.next_cursor).toBe('2');
    const page2 = await api.call('GET', `/v1/schedules/heartbeat/occurrences?limit=2&cursor=2`, {
      key: ALICE,
    });
    expect(page2.body.items[0].scheduled_for < older.scheduled_for).toBe(true);
  });
});

describe('HTTP API: every timing kind, end to end', () => {
  const inSeconds = (s: number) => new Date(Date.now() + s * 1000).toISOString();
  const finite = [
    ['ONE_TIME', () => ({ kind: 'ONE_TIME', at: inSeconds(3) }), 1],
    ['DELAY', () => ({ kind: 'DELAY', delay: 'PT3S' }), 1],
    ['DEADLINE', () => ({ kind: 'DEADLINE', at: inSeconds(5), reminders: ['PT2S'] }), 2],
  ] as const;

  it.each(finite)(
    '%s: runs its occurrence(s) as JOBs, then the schedule is COMPLETED',
    async (kind, timing, runs) => {
      const id = `finite-${kind.toLowerCase()}`;
      const created = await api.call('POST', '/v1/schedules', {
        key: ALICE,
        body: { schedule_id: id, timing: timing(), target: job },
      });
      expect(created.status).toBe(201);
      const done = await eventually(
        `${id} to complete`,
        async () => {
          const got = await api.call('GET', `/v1/schedules/${id}`, { key: ALICE });
          return got.body.status === 'COMPLETED' ? got.body : undefined;
        },
        40_000,
      );
      expect(done.next_run_at).toBeNull();
      const occurrences = (await api.call('GET', `/v1/schedules/${id}/occurrences`, { key: ALICE })).body
        .items;
      expect(occurrences).toHaveLength(runs);
      for (const occ of occurrences) {
        expect(occ.status).toBe('COMPLETED');
        expect(api.jobRuns).toContain(occ.occurrence_id);
      }
      // An ended schedule refuses changes with a problem, not a 5xx.
      const trigger = await api.call('POST', `/v1/schedules/${id}/trigger`, { key: ALICE });
      expect(trigger.status).toBe(409);
      expect(trigger.body.code).toBe('INVALID_STATE');
    },
  );

  const recurring = [
    ['INTERVAL', { kind: 'INTERVAL', every: 'PT2S' }],
    ['RECURRENCE', { kind: 'RECURRENCE', rule: 'FREQ=SECONDLY;INTERVAL=2', timezone: 'Europe/Riga' }],
    ['CRON', { kind: 'CRON', expression: '*/2 * * * * *', timezone: 'Europe/Riga' }],
  ] as const;

  it.each(recurring)('%s: fires, trigger, backfill, pause, edit, cancel', async (kind, timing) => {
    const id = `recurring-${kind.toLowerCase()}`;
    const created = await api.call('POST', '/v1/schedules', {
      key: ALICE,
      body: { schedule_id: id, timing, target: job, misfire: 'SKIP' },
    });
    expect(created.status).toBe(201);
    const fired = await eventually(
      `${id} to fire twice`,
      async () => {
        const d = (await api.call('GET', `/v1/schedules/${id}/describe`, { key: ALICE })).body;
        return d.counters.fired >= 2 ? d : undefined;
      },
      30_000,
    );
    expect(fired.next_runs.length).toBeGreaterThan(0);
    // The last outcome, as GET and a listing show it: the newest scheduled run whose instant has come
    // (`fired` counts slots armed ahead too, so the first instant may still be ahead here).
    const read = await eventually(
      `${id}'s first instant to come`,
      async () => {
        const schedule = (await api.call('GET', `/v1/schedules/${id}`, { key: ALICE })).body;
        return schedule.last_occurrence ? schedule : undefined;
      },
      30_000,
    );
    expect(read.last_occurrence).toMatchObject({ trigger: 'SCHEDULE' });
    expect(Date.parse(read.last_occurrence.fire_at)).toBeLessThanOrEqual(Date.now());
    expect(['DISPATCHING', 'RUNNING', 'HANDED_OFF', 'COMPLETED']).toContain(read.last_occurrence.status);
    const listed = (await api.call('GET', '/v1/schedules?limit=100', { key: ALICE })).body.items;
    const item = listed.find((s: { schedule_id: string }) => s.schedule_id === id);
    expect(Date.parse(item.last_occurrence.fire_at)).toBeGreaterThanOrEqual(
      Date.parse(read.last_occurrence.fire_at),
    );

    const manual = await api.call('POST', `/v1/schedules/${id}/trigger`, {
      key: ALICE,
      body: { scheduled_for: '2026-01-01T00:00:00Z', reason: 'support ticket 42' },
    });
    expect(manual.status).toBe(200);
    expect(manual.body).toMatchObject({ trigger: 'MANUAL', reason: 'support ticket 42' });
    const again = await api.call('POST', `/v1/schedules/${id}/trigger`, {
      key: ALICE,
      body: { scheduled_for: '2026-01-01T00:00:00Z' },
    });
    expect(again.body.occurrence_id).toBe(manual.body.occurrence_id);

    // A 10-second range before creation: each slot of it once; the same range again emits nothing new.
    const createdAt = Date.parse(created.body.created_at);
    const range = {
      from: new Date(createdAt - 10_000).toISOString(),
      to: new Date(createdAt - 1_000).toISOString(),
    };
    const backfill = await api.call('POST', `/v1/schedules/${id}/backfill`, { key: ALICE, body: range });
    expect(backfill.status).toBe(200);
    const repeat = await api.call('POST', `/v1/schedules/${id}/backfill`, { key: ALICE, body: range });
    expect(repeat.body.emitted).toEqual([]);
    expect(repeat.body.already_emitted.sort()).toEqual(
      [...backfill.body.emitted, ...backfill.body.already_emitted].sort(),
    );

    const paused = await api.call('POST', `/v1/schedules/${id}/pause`, { key: ALICE });
    expect(paused.body.status).toBe('PAUSED');
    const edited = await api.call('PATCH', `/v1/schedules/${id}`, {
      key: ALICE,
      body: { expected_version: 1, overlap: 'SKIP' },
    });
    expect(edited.body).toMatchObject({ version: 2, overlap: 'SKIP', status: 'PAUSED' });
    const cancelled = await api.call('POST', `/v1/schedules/${id}/cancel`, { key: ALICE });
    expect(cancelled.body.status).toBe('CANCELLED');
    const occurrences = (await api.call('GET', `/v1/schedules/${id}/occurrences?limit=256`, { key: ALICE }))
      .body.items;
    const ids = occurrences.map((o: { occurrence_id: string }) => o.occurrence_id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(occurrences.some((o: { trigger: string }) => o.trigger === 'BACKFILL')).toBe(
      backfill.body.emitted.length > 0,
    );
  });
});
