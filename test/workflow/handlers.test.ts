import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ScheduleSpec } from '../../src/model/contracts.js';
import { scheduleWorkflowId } from '../../src/model/ids.js';
import { SCHEDULE_WORKFLOW_TYPE } from '../../src/workflows/definitions.js';
import { JOB_QUEUE, SCHEDULER_QUEUE, SchedulerHarness } from '../helpers/scheduler-harness.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const job = { type: 'JOB' as const, job_type: 'recordedJob' };

describe('schedule handlers (time-skipping server)', () => {
  // A fresh server per test: the Java test server stops skipping time once a workflow closed while a
  // child it abandoned still runs (the real server does not), and these tests end schedules that way.
  let h: SchedulerHarness;
  beforeEach(async () => {
    h = await SchedulerHarness.start();
  });
  afterEach(async () => {
    await h?.teardown();
  });
  const runsOf = (scheduleId: string) => h.runs.filter((r) => r.occurrenceId.includes(`/${scheduleId}/`));

  it('edit: optimistic version, future runs only, and each occurrence records the version that made it', async () => {
    const sdk = h.sdk();
    const { schedule } = await sdk.create({
      schedule_id: 'edit',
      target: job,
      timing: { kind: 'INTERVAL', every: 'PT1H' },
    });
    // Just past the first slot, edit: that slot stays version 1's.
    await h.passSlot(schedule.next_run_at!);
    const edited = await sdk.update('edit', {
      expected_version: 1,
      spec: { target: job, timing: { kind: 'INTERVAL', every: 'PT30M' } },
    });
    expect(edited.version).toBe(2);
    expect(Date.parse(edited.next_runs[1]!.fire_at) - Date.parse(edited.next_runs[0]!.fire_at)).toBe(
      30 * MINUTE,
    );

    await expect(
      sdk.update('edit', {
        expected_version: 1,
        spec: { target: job, timing: { kind: 'INTERVAL', every: 'PT5M' } },
      }),
    ).rejects.toMatchObject({ code: 'VERSION_CONFLICT', field: 'expected_version' });

    await h.env.sleep(HOUR + MINUTE);
    const { recent_occurrences, schedule: after } = await sdk.describe('edit');
    expect(after.version).toBe(2);
    expect(after.timing).toEqual({ kind: 'INTERVAL', every: 'PT30M' });
    expect(recent_occurrences.map((o) => o.schedule_version)).toEqual([1, 2, 2]);
    expect(Date.parse(recent_occurrences[0]!.scheduled_for)).toBe(Date.parse(schedule.next_run_at!));
    expect(runsOf('edit')).toHaveLength(3);
    await sdk.cancel('edit');
  });

  it('pause stops runs, resume restarts them; a pause just after a slot leaves the run of that slot alone', async () => {
    const sdk = h.sdk();
    const { schedule } = await sdk.create({
      schedule_id: 'pause',
      target: job,
      timing: { kind: 'INTERVAL', every: 'PT1H' },
      misfire: 'SKIP',
    });
    await h.passSlot(schedule.next_run_at!);
    await sdk.pause('pause', 'incident 123');
    await h.env.sleep(3.5 * HOUR); // slots at +2h, +3h, +4h pass while paused: SKIP drops them
    expect(runsOf('pause')).toHaveLength(1);
    expect((await sdk.get('pause')).status).toBe('PAUSED');
    await sdk.resume('pause');
    await h.env.sleep(HOUR);
    expect(runsOf('pause')).toHaveLength(2);
    expect((await sdk.get('pause')).status).toBe('ACTIVE');
    await sdk.cancel('pause');
  });

  it('cancel just after a slot: the run of that slot completes, nothing after; history stays readable', async () => {
    const sdk = h.sdk();
    const { schedule } = await sdk.create({
      schedule_id: 'cancel',
      target: job,
      timing: { kind: 'INTERVAL', every: 'PT1H' },
    });
    await h.passSlot(schedule.next_run_at!);
    const cancelled = await sdk.cancel('cancel', { note: 'customer left' });
    expect(cancelled.schedule.status).toBe('CANCELLED');
    expect(cancelled.schedule.next_run_at).toBeNull();
    // The schedule's workflow has closed: nothing is left that could fire later.
    const final = await h.env.client.workflow.getHandle(scheduleWorkflowId('acme', 'cancel')).result();
    expect(final.schedule.status).toBe('CANCELLED');
    expect(final.recent_occurrences).toHaveLength(1);
    // The slot handed off before the cancel runs to completion (emitted occurrences are kept).
    await h.env.client.workflow.getHandle(final.recent_occurrences[0]!.occurrence_id).result();
    expect(runsOf('cancel')).toHaveLength(1);
    const described = await sdk.describe('cancel');
    expect(described.schedule.status).toBe('CANCELLED');
    expect(described.recent_occurrences).toHaveLength(1);
    await expect(
      sdk.update('cancel', {
        expected_version: 1,
        spec: { target: job, timing: { kind: 'INTERVAL', every: 'PT2H' } },
      }),
    ).rejects.toMatchObject({ code: 'INVALID_STATE' });
  });

  it('two concurrent triggerNow for one slot make one occurrence and one run', async () => {
    const sdk = h.sdk();
    await sdk.create({ schedule_id: 'trigger', target: job, timing: { kind: 'INTERVAL', every: 'P1D' } });
    const slot = new Date((await h.now()) + 5 * MINUTE).toISOString();
    const [a, b] = await Promise.all([
      sdk.triggerNow('trigger', { scheduled_for: slot, reason: 'ops button' }),
      sdk.triggerNow('trigger', { scheduled_for: slot, reason: 'ops button, double click' }),
    ]);
    expect(a.occurrence_id).toBe(b.occurrence_id);
    await h.env.sleep(MINUTE);
    expect(runsOf('trigger').map((r) => r.occurrenceId)).toEqual([a.occurrence_id]);
    const described = await sdk.describe('trigger');
    expect(described.recent_occurrences.filter((o) => o.trigger === 'MANUAL')).toHaveLength(1);
    expect(described.counters.duplicates_prevented).toBe(1);
    await sdk.cancel('trigger');
  });

  it('backfill emits each slot of a range once, however often it is asked', async () => {
    const sdk = h.sdk();
    const { schedule } = await sdk.create({
      schedule_id: 'backfill',
      target: job,
      timing: { kind: 'CRON', expression: '0 * * * *', timezone: 'UTC' },
    });
    const created = Date.parse(schedule.created_at);
    // To half past the third whole hour after the creation: three slots fired, wherever in its hour the
    // schedule was created (3 h from an hour's last second would take in a fourth).
    const thirdSlot = (Math.floor(created / HOUR) + 3) * HOUR;
    await h.env.sleep(thirdSlot + 30 * MINUTE - (await h.now()));
    expect(runsOf('backfill')).toHaveLength(3);
    const now = await h.now();

    // Over the slots that already fired: nothing new.
    const over = await sdk.backfill('backfill', {
      from: new Date(created).toISOString(),
      to: new Date(now).toISOString(),
    });
    expect(over.emitted).toHaveLength(0);
    expect(over.already_emitted).toHaveLength(3);

    // The five hours before the schedule existed, twice.
    const range = {
      from: new Date(created - 5 * HOUR).toISOString(),
      to: new Date(created - MINUTE).toISOString(),
    };
    const first = await sdk.backfill('backfill', range);
    const second = await sdk.backfill('backfill', range);
    await h.env.sleep(MINUTE);
    // Whole hours in [from, to]: five, or four when the schedule was created in an hour's first minute.
    const hours = Math.floor((created - MINUTE) / HOUR) - Math.ceil((created - 5 * HOUR) / HOUR) + 1;
    expect(hours).toBeGreaterThanOrEqual(4);
    expect(first.emitted).toHaveLength(hours);
    expect(second.emitted).toHaveLength(0);
    expect(second.already_emitted).toEqual(first.emitted);
    // Each backfilled slot ran once and no occurrence twice. (Not a total: a schedule created in an hour's
    // last minute fires its next hourly slot during the minute slept above.)
    const ran = runsOf('backfill').map((r) => r.occurrenceId);
    expect(new Set(ran).size).toBe(ran.length);
    expect(ran.filter((id) => first.emitted.includes(id)).sort()).toEqual([...first.emitted].sort());
    await sdk.cancel('backfill');
  });

  it('continue-as-new in the middle of a catch-up loses and repeats no slot', async () => {
    const identity = { schedule_id: 'can', tenant_id: 'acme', owner_ref: 'ops' };
    const spec = ScheduleSpec.parse({
      target: job,
      timing: { kind: 'INTERVAL', every: 'PT1M' },
      misfire: 'CATCH_UP',
      catch_up_limit: 150,
      max_lateness_s: 30,
    });
    const handle = await h.env.client.workflow.start(SCHEDULE_WORKFLOW_TYPE, {
      taskQueue: SCHEDULER_QUEUE,
      workflowId: scheduleWorkflowId('acme', 'can'),
      // A low threshold so the run continues as new several times while it hands off the backlog.
      args: [{ identity, spec, defaultJobTaskQueue: JOB_QUEUE, continueAsNewAfterEvents: 150 }],
    });
    const sdk = h.sdk();
    await h.env.sleep(MINUTE + 1000);
    await sdk.pause('can');
    await h.env.sleep(3 * HOUR + 30_000); // 180 minutely slots missed, the newest 31 s ago
    await sdk.resume('can');
    await h.env.sleep(10_000);
    // Jobs of a recurring ALLOW schedule start from local activities inside one workflow task (v0.2), so the
    // backlog's markers count towards the history only once that task completed: the next task (here, the
    // pause) finds the history over the threshold and continues as new, carrying the state.
    await sdk.pause('can');
    await h.env.sleep(5_000);

    const described = await sdk.describe('can');
    const described2 = await handle.describe();
    expect(described2.runId).not.toBe(handle.firstExecutionRunId);
    const fired = described.recent_occurrences.filter((o) => o.status !== 'SKIPPED');
    const runs = runsOf('can');
    expect(runs).toHaveLength(1 + 150);
    expect(new Set(runs.map((r) => r.occurrenceId)).size).toBe(runs.length);
    expect(described.counters.caught_up).toBe(150);
    expect(described.counters.expired).toBe(30);
    // The caught-up slots are consecutive minutes: none lost, none repeated across runs.
    const caughtUp = fired.slice(1).map((o) => Date.parse(o.scheduled_for));
    for (let i = 1; i < caughtUp.length; i++) expect(caughtUp[i]! - caughtUp[i - 1]!).toBe(MINUTE);
    await sdk.cancel('can');
    // 150 job starts in one workflow task: minutes, not seconds, on two cores other suites share.
  }, 300_000);

  it('a slot skipped by the misfire policy can be backfilled later, once', async () => {
    const sdk = h.sdk();
    const { schedule } = await sdk.create({
      schedule_id: 'skipped-then-backfilled',
      target: job,
      timing: { kind: 'INTERVAL', every: 'PT1H' },
      misfire: 'SKIP',
    });
    await sdk.pause('skipped-then-backfilled');
    await h.env.sleep(2.5 * HOUR); // slots +1h and +2h pass while paused
    await sdk.resume('skipped-then-backfilled');
    await h.env.sleep(MINUTE);
    const skipped = (await sdk.describe('skipped-then-backfilled')).recent_occurrences;
    expect(skipped.map((o) => o.status)).toEqual(['SKIPPED', 'SKIPPED']);

    const created = Date.parse(schedule.created_at);
    const range = {
      from: new Date(created + 1).toISOString(),
      to: new Date(created + 2 * HOUR).toISOString(),
    };
    const first = await sdk.backfill('skipped-then-backfilled', range);
    const second = await sdk.backfill('skipped-then-backfilled', range);
    await h.env.sleep(MINUTE);
    expect(first.emitted).toEqual(skipped.map((o) => o.occurrence_id));
    expect(second.already_emitted).toEqual(first.emitted);
    const after = (await sdk.describe('skipped-then-backfilled')).recent_occurrences;
    // One record per occurrence ID, now the backfilled run.
    expect(after.map((o) => [o.occurrence_id, o.trigger, o.status])).toEqual(
      skipped.map((o) => [o.occurrence_id, 'BACKFILL', 'HANDED_OFF']),
    );
    expect(runsOf('skipped-then-backfilled')).toHaveLength(2);
    await sdk.cancel('skipped-then-backfilled');
  });
});
