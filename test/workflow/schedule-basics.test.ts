import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SchedulerHarness } from '../helpers/scheduler-harness.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

describe('scheduleWorkflow basics (time-skipping server)', () => {
  let h: SchedulerHarness;
  beforeAll(async () => {
    h = await SchedulerHarness.start();
  });
  afterAll(async () => {
    await h?.teardown();
  });

  it('a one-time schedule: no occurrence before due, exactly one at due, then COMPLETED', async () => {
    const sdk = h.sdk();
    const dueAt = new Date((await h.now()) + 2 * HOUR);
    dueAt.setUTCSeconds(0, 0);
    const { schedule, created } = await sdk.create({
      schedule_id: 'one-time',
      target: { type: 'JOB', job_type: 'recordedJob', payload_ref: 'state://reports/42' },
      timing: { kind: 'ONE_TIME', at: dueAt.toISOString() },
    });
    expect(created).toBe(true);
    expect(schedule.status).toBe('ACTIVE');
    expect(schedule.version).toBe(1);
    expect(Date.parse(schedule.next_run_at!)).toBe(dueAt.getTime());

    await h.env.sleep(2 * HOUR - 5 * MINUTE);
    expect((await sdk.describe('one-time')).recent_occurrences).toHaveLength(0);
    expect(h.runs).toHaveLength(0);

    await h.env.sleep(10 * MINUTE);
    const after = await sdk.describe('one-time');
    expect(after.schedule.status).toBe('COMPLETED');
    expect(after.recent_occurrences).toHaveLength(1);
    const [occ] = after.recent_occurrences;
    expect(Date.parse(occ!.scheduled_for)).toBe(dueAt.getTime());
    expect(occ!.schedule_version).toBe(1);
    expect(occ!.payload_ref).toBe('state://reports/42');
    expect(occ!.idempotency_key).toBe(`schedule:one-time:${dueAt.toISOString()}`);
    expect(h.runs.map((r) => r.occurrenceId)).toEqual([occ!.occurrence_id]);
    // The target ran no earlier than its slot.
    expect(h.runs[0]!.startedAt).toBeGreaterThanOrEqual(dueAt.getTime());
  });

  it('create is idempotent on schedule_id, and a different definition under that ID is a conflict', async () => {
    const sdk = h.sdk();
    const spec = {
      target: { type: 'JOB' as const, job_type: 'recordedJob' },
      timing: { kind: 'INTERVAL' as const, every: 'PT1H' },
    };
    const first = await sdk.create({ schedule_id: 'idem', ...spec });
    // The same definition spelled differently (defaults written out) is the same definition.
    const second = await sdk.create({ schedule_id: 'idem', misfire: 'FIRE_ONCE', overlap: 'ALLOW', ...spec });
    expect(first.created).toBe(true);
    expect(second.created).toBe(false);
    expect(second.schedule).toEqual(first.schedule);
    await expect(
      sdk.create({ schedule_id: 'idem', ...spec, timing: { kind: 'INTERVAL', every: 'PT2H' } }),
    ).rejects.toMatchObject({ code: 'ALREADY_EXISTS', field: 'schedule_id' });
    // A paused schedule is still the one created: the retry says so, with the status the workflow shows.
    await sdk.pause('idem');
    await h.env.sleep(1000);
    const paused = await sdk.create({ schedule_id: 'idem', ...spec });
    expect(paused).toMatchObject({ created: false, schedule: { status: 'PAUSED', version: 1 } });
    expect(paused.schedule.next_run_at).toBe(first.schedule.next_run_at);
    await sdk.resume('idem');
    // An edited schedule is not what the create describes, even when edited back to that definition.
    await sdk.update('idem', { expected_version: 1, spec });
    await expect(sdk.create({ schedule_id: 'idem', ...spec })).rejects.toMatchObject({
      code: 'ALREADY_EXISTS',
      field: 'schedule_id',
    });
    await sdk.cancel('idem');
    await expect(sdk.create({ schedule_id: 'idem', ...spec })).rejects.toMatchObject({
      code: 'ALREADY_EXISTS',
    });
  });

  it('what create answers is what the workflow then shows (next runs counted from the same instant)', async () => {
    const sdk = h.sdk();
    const target = { type: 'JOB' as const, job_type: 'recordedJob' };
    // Two minutes past a five-minute mark (server time, skipped for free): no */5 slot, even with its minute
    // of jitter, comes due while the four schedules are created and read back (created in the second before
    // one, the schedule had run it by the time it was read).
    const now = await h.now();
    let quiet = Math.floor(now / (5 * MINUTE)) * 5 * MINUTE + 2 * MINUTE;
    if (quiet < now) quiet += 5 * MINUTE;
    await h.env.sleep(quiet - now);
    const timings = [
      { kind: 'INTERVAL' as const, every: 'PT7M' }, // a grid from the creation instant
      { kind: 'DELAY' as const, delay: 'PT20M' }, // from the creation instant
      { kind: 'RECURRENCE' as const, rule: 'FREQ=MINUTELY;INTERVAL=13', timezone: 'Europe/Riga' },
      { kind: 'CRON' as const, expression: '*/5 * * * *', timezone: 'America/New_York' },
    ];
    for (const [i, timing] of timings.entries()) {
      const id = `agree-${i}`;
      const { schedule } = await sdk.create({ schedule_id: id, target, timing, jitter: 'PT1M' });
      const [first] = sdk.preview(
        { target, timing, jitter: 'PT1M' },
        {
          from: schedule.created_at,
          scheduleId: id,
        },
      );
      expect(schedule.next_run_at, id).toBe(first!.fire_at);
      await h.env.sleep(1000); // the worker's first task ran
      // What GET adds to the create's answer: the last occurrence, none yet.
      expect(await sdk.get(id), id).toEqual({ ...schedule, last_occurrence: null });
      await sdk.cancel(id);
    }
  });

  it('rejects invalid input with the field and the reason, and creates nothing', async () => {
    const sdk = h.sdk();
    await expect(
      sdk.create({
        schedule_id: 'bad-zone',
        target: { type: 'JOB', job_type: 'recordedJob' },
        timing: { kind: 'CRON', expression: '0 9 * * 1-5', timezone: 'Mars/Olympus' },
      }),
    ).rejects.toMatchObject({ code: 'VALIDATION', field: 'timing.timezone' });
    await expect(sdk.describe('bad-zone')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(
      sdk.create({
        schedule_id: 'bad-target',
        target: { type: 'EVENT', event_type: 'x', sink_url: 'not a url' } as never,
        timing: { kind: 'INTERVAL', every: 'PT1H' },
      }),
    ).rejects.toMatchObject({ code: 'VALIDATION', field: 'target.sink_url' });
  });
});

describe('a finite recurring schedule on the time-skipping server (a user test of their own schedule)', () => {
  // Its own server: before v0.2 a schedule that completed while its job (a child it abandoned) still ran
  // stopped the Java test server from skipping time, and a user's test then waited real hours.
  let h: SchedulerHarness;
  beforeAll(async () => {
    h = await SchedulerHarness.start();
  });
  afterAll(async () => {
    await h?.teardown();
  });

  it('runs to its end while its jobs still run, and time keeps skipping afterwards', async () => {
    const sdk = h.sdk();
    const created = await h.now();
    const { schedule } = await sdk.create({
      schedule_id: 'finite',
      // Each job runs 10 hours, far past the schedule's end.
      target: { type: 'JOB', job_type: 'recordedJob', payload: { sleep_ms: 10 * HOUR } },
      timing: { kind: 'INTERVAL', every: 'PT1H' },
      ends_at: new Date(created + 3.5 * HOUR).toISOString(),
    });
    await h.env.sleep(4 * HOUR);
    const ended = await sdk.describe('finite');
    expect(ended.schedule.status).toBe('COMPLETED');
    expect(ended.recent_occurrences.map((o) => o.status)).toEqual(['HANDED_OFF', 'HANDED_OFF', 'HANDED_OFF']);
    expect(h.runs).toHaveLength(3);
    expect(h.runs.every((r) => r.finishedAt === undefined)).toBe(true);
    expect(Date.parse(h.runs[0]!.occurrenceId.split('/').pop()!)).toBe(Date.parse(schedule.next_run_at!));

    // The jobs outlive the schedule by hours of workflow time; the server skips them (a server that stopped
    // skipping would hold this sleep for ten real hours, and the test would time out).
    await h.env.sleep(12 * HOUR);
    expect(h.runs.map((r) => r.outcome)).toEqual(['COMPLETED', 'COMPLETED', 'COMPLETED']);
    expect(h.runs.every((r) => r.finishedAt! - r.startedAt >= 10 * HOUR)).toBe(true);
  }, 120_000);
});
