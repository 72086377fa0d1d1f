// Schedules created asleep, on the real dev server: the API starts a schedule whose first run is far off
// with a start delay to shortly before it (its arm lead and WAKE_MARGIN_MS), so a creation costs the
// scheduler's worker no task. What a user checks: the created schedule reads back at once (a read wakes
// it), a pause shows in a listing by status, a delete takes it away before it ever ran, and one nobody
// touches still runs its first slot at its instant, once. (Real time: the time-skipping server does not
// begin delayed starts when it skips time.)
import { join } from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SchedulerClient, startDelayMs, WAKE_MARGIN_MS } from '../../src/api/client.js';
import { armAtMs } from '../../src/model/arming.js';
import { scheduleWorkflowId } from '../../src/model/ids.js';
import { hourHalfADayAway } from '../helpers/clock.js';
import {
  bracketed,
  eventually,
  JOB_QUEUE,
  readRunLines,
  SCHEDULER_QUEUE,
  type Stack,
  startStack,
  startWorker,
  stopStack,
} from './support.js';

const LEAD_MS = 5_000;
const HOUR_MS = 3_600_000;
// The recurring schedules run daily in Riga at the hour half a day from now, whatever the hour, day or
// season (a fixed 09:00 made them start awake when created in the two minutes before it): ten to thirteen
// hours away (eleven to twelve, an hour more or less across a DST change), so each is created asleep and
// none fires while the file runs.
const RIGA_HOUR = hourHalfADayAway('Europe/Riga');
const DAILY = `0 ${RIGA_HOUR} * * *`;
const DAILY_EDITED = `30 ${RIGA_HOUR} * * *`;

describe('schedules created asleep (dev server, real time)', () => {
  let stack: Stack;
  let sdk: SchedulerClient;
  let runLog: string;
  beforeAll(async () => {
    // The lead alone decides when a schedule created asleep wakes (arming ahead: test/unit/arming.test.ts).
    stack = await startStack('asleep-', {}, { armLeadMs: LEAD_MS, armAheadMs: 0 });
    runLog = join(stack.dir, 'runs.jsonl');
    sdk = stack.sdk;
    await startWorker(stack, { ROLES: 'jobs,scheduler', RUN_LOG: runLog });
  }, 240_000);
  afterAll(async () => {
    await stopStack(stack);
  });

  const handle = (scheduleId: string): WorkflowHandle =>
    stack.client.workflow.getHandle(scheduleWorkflowId('acme', scheduleId));
  /** How many workflow tasks the schedule's worker has completed. */
  const tasksDone = async (scheduleId: string): Promise<number> => {
    const history = await handle(scheduleId).fetchHistory();
    return (history.events ?? []).filter((e) => e.workflowTaskCompletedEventAttributes).length;
  };
  const once = (scheduleId: string, at: number) =>
    sdk.create({
      schedule_id: scheduleId,
      target: { type: 'JOB', job_type: 'fileRecordedJob', task_queue: JOB_QUEUE },
      timing: { kind: 'ONE_TIME', at: new Date(at).toISOString().replace(/\.\d{3}Z$/, 'Z') },
    });
  const daily = (scheduleId: string) =>
    sdk.create({
      schedule_id: scheduleId,
      target: { type: 'JOB', job_type: 'fileRecordedJob', task_queue: JOB_QUEUE },
      timing: { kind: 'CRON', expression: DAILY, timezone: 'Europe/Riga' },
    });

  it('the start delay ends the arm lead (at least a margin) before the first run; a schedule due soon starts awake', () => {
    const createdAt = '2026-12-03T10:00:00.000Z';
    const firstRun = '2026-12-03T11:00:00.000Z';
    const firstRunMs = Date.parse(firstRun);
    // It wakes when it would arm its first job (a point within the lead, spread per schedule)...
    for (const id of ['a', 'b', 'c']) {
      const armAt = armAtMs(firstRunMs, 600_000, id);
      expect(startDelayMs(id, firstRun, createdAt, 600_000)).toBe(armAt - Date.parse(createdAt));
      expect(armAt).toBeGreaterThanOrEqual(firstRunMs - 600_000);
      expect(armAt).toBeLessThanOrEqual(firstRunMs - 300_000);
    }
    // ...and at least a margin before its first run.
    expect(startDelayMs('a', firstRun, createdAt, LEAD_MS)).toBe(HOUR_MS - WAKE_MARGIN_MS);
    expect(startDelayMs('a', firstRun, createdAt, 0)).toBe(HOUR_MS - WAKE_MARGIN_MS);
    // Less than a margin of sleep is not worth a delayed start.
    expect(startDelayMs('a', '2026-12-03T10:01:59.000Z', createdAt, LEAD_MS)).toBe(0);
    expect(startDelayMs('a', '2026-12-03T10:02:00.000Z', createdAt, LEAD_MS)).toBe(WAKE_MARGIN_MS);
  });

  it.concurrent('created asleep, no worker task runs; a read wakes it and answers its next runs', async () => {
    const { value: created, before, after } = await bracketed(() => daily('asleep-read'));
    const started = await handle('asleep-read').describe();
    const firstRun = Date.parse(created.schedule.next_run_at!);
    expect(firstRun - after).toBeGreaterThan(HOUR_MS);
    // The server begins it a margin and the lead before its first run, not at creation. It adds the delay
    // the SDK counted from its own clock, read inside the create, to its own start stamp, made later in the
    // same call: late by at most the create's measured round trip, never early.
    expect(started.executionTime!.getTime()).toBeGreaterThan(started.startTime.getTime());
    expect(started.startTime.getTime()).toBeGreaterThanOrEqual(before);
    expect(started.startTime.getTime()).toBeLessThanOrEqual(after);
    expect(started.executionTime!.getTime()).toBeGreaterThanOrEqual(firstRun - WAKE_MARGIN_MS);
    expect(started.executionTime!.getTime()).toBeLessThanOrEqual(
      firstRun - WAKE_MARGIN_MS + (after - before),
    );
    // Its status and next run are in visibility from the start, for listings and the overdue gauge.
    expect(started.searchAttributes).toMatchObject({ SchedulerStatus: ['ACTIVE'] });
    await new Promise((r) => setTimeout(r, 2_000));
    expect(await tasksDone('asleep-read')).toBe(0);

    const read = await sdk.describe('asleep-read');
    expect(read.schedule).toMatchObject({
      status: 'ACTIVE',
      version: 1,
      next_run_at: created.schedule.next_run_at,
    });
    expect(read.next_runs[0]?.fire_at).toBe(created.schedule.next_run_at);
    expect(await tasksDone('asleep-read')).toBeGreaterThan(0);
    // Awake now, it answers like any schedule; the wake adds nothing a second read would see.
    expect((await sdk.describe('asleep-read')).schedule).toEqual(read.schedule);
  }, 120_000);

  it.concurrent('a pause of a schedule still asleep shows in a listing by status', async () => {
    await daily('asleep-pause');
    await sdk.pause('asleep-pause', 'not yet');
    const attrs = await eventually(
      'the PAUSED search attribute',
      async () => {
        const { searchAttributes } = await handle('asleep-pause').describe();
        return (searchAttributes.SchedulerStatus as string[] | undefined)?.[0] === 'PAUSED'
          ? searchAttributes
          : undefined;
      },
      30_000,
    );
    expect(attrs.SchedulerStatus).toEqual(['PAUSED']);
    const listed = await eventually(
      'listed as PAUSED',
      async () => {
        const page = await sdk.listPage({ status: 'PAUSED' });
        return page.items.find((s) => s.schedule_id === 'asleep-pause');
      },
      30_000,
    );
    expect(listed).toMatchObject({ status: 'PAUSED', pause_note: 'not yet' });
  }, 120_000);

  it.concurrent('an edit and a delete reach a schedule still asleep', async () => {
    await daily('asleep-edit');
    const edited = await sdk.update('asleep-edit', {
      expected_version: 1,
      spec: {
        target: { type: 'JOB', job_type: 'fileRecordedJob', task_queue: JOB_QUEUE },
        timing: { kind: 'CRON', expression: DAILY_EDITED, timezone: 'Europe/Riga' },
      },
    });
    expect(edited.version).toBe(2);
    expect((await sdk.get('asleep-edit')).timing).toMatchObject({ expression: DAILY_EDITED });

    await daily('asleep-delete');
    await sdk.delete('asleep-delete');
    const gone = await handle('asleep-delete').describe();
    expect(gone.status.name).toBe('COMPLETED');
  }, 120_000);

  it.concurrent("woken by the server at its arm lead, a recurring job is armed by the schedule's first workflow task", async () => {
    // At least two margins: the arming point (within the lead's first half) is then the wake.
    const armLeadMs = 2 * WAKE_MARGIN_MS + 10_000;
    const leadSdk = new SchedulerClient({
      client: stack.client,
      taskQueue: SCHEDULER_QUEUE,
      jobTaskQueue: JOB_QUEUE,
      principal: { tenant_id: 'acme', owner_ref: 'ops' },
      armLeadMs,
      armAheadMs: 0,
    });
    const {
      value: created,
      before,
      after,
    } = await bracketed(() =>
      leadSdk.create({
        schedule_id: 'asleep-armed',
        target: { type: 'JOB', job_type: 'fileRecordedJob', task_queue: JOB_QUEUE },
        timing: { kind: 'INTERVAL', every: 'PT4M' },
      }),
    );
    const firstRun = Date.parse(created.schedule.next_run_at!);
    const started = await handle('asleep-armed').describe();
    const wakeAt = armAtMs(firstRun, armLeadMs, 'asleep-armed');
    expect(wakeAt).toBeLessThanOrEqual(firstRun - WAKE_MARGIN_MS);
    // Late by at most the create's measured round trip, never early (as for asleep-read).
    expect(started.executionTime!.getTime()).toBeGreaterThanOrEqual(wakeAt);
    expect(started.executionTime!.getTime()).toBeLessThanOrEqual(wakeAt + (after - before));
    // Nothing reads it (a read would wake it): its history alone tells what its tasks did. Watched until its
    // first task is done, however long a loaded machine takes (reading the history does not wake it).
    const events = await eventually(
      'its first workflow task',
      async () => {
        const history = (await handle('asleep-armed').fetchHistory()).events ?? [];
        return history.some((e) => e.workflowTaskCompletedEventAttributes) ? history : undefined;
      },
      wakeAt - Date.now() + 60_000,
      1_000,
    );
    const firstTask = events.findIndex((e) => e.workflowTaskCompletedEventAttributes);
    const secondTask = events.findIndex((e, i) => i > firstTask && e.workflowTaskScheduledEventAttributes);
    const firstTaskCommands = events.slice(firstTask, secondTask < 0 ? undefined : secondTask);
    // The server's wake ran its first task at the arming point, and that task handed the job off
    expect(Number(events[firstTask - 1]!.eventTime!.seconds) * 1000).toBeGreaterThanOrEqual(wakeAt - 1_000);
    // (the job's start is a local activity: its marker is written with the task's completion).
    const handedOff = (e: (typeof events)[number]) =>
      e.activityTaskScheduledEventAttributes ||
      e.markerRecordedEventAttributes?.markerName === 'core_local_activity';
    expect(firstTaskCommands.some(handedOff)).toBe(true);
    // ARMED once the hand-off's activity has answered, which may come after the task that scheduled it.
    const armed = await eventually(
      'its first slot armed',
      async () =>
        (await leadSdk.describe('asleep-armed')).recent_occurrences.find((o) => o.status === 'ARMED'),
      60_000,
    );
    expect(Date.parse(armed.fire_at)).toBe(firstRun);
    const job = await stack.client.workflow.getHandle(armed.occurrence_id).describe();
    // The hand-off counts the delay to the instant from its worker's clock, read after the hand-off began
    // (emitted_at, the workflow's time) and before the server stamped the job's start: the job begins at its
    // instant, late by at most that measured span, never early.
    const emittedAt = Date.parse(armed.emitted_at!);
    expect(emittedAt).toBeLessThanOrEqual(job.startTime.getTime());
    expect(job.executionTime!.getTime()).toBeGreaterThanOrEqual(firstRun);
    expect(job.executionTime!.getTime()).toBeLessThanOrEqual(
      firstRun + (job.startTime.getTime() - emittedAt),
    );
    const runs = await eventually(
      'its run',
      async () => {
        const lines = readRunLines(runLog).filter((l) => l.occurrence_id === armed.occurrence_id);
        return lines.length > 0 ? lines : undefined;
      },
      firstRun - Date.now() + 60_000,
    );
    expect(runs).toHaveLength(1);
    expect(runs[0]!.at).toBeGreaterThanOrEqual(firstRun);
  }, 300_000);

  it.concurrent('one nobody touches wakes by itself before its first run and runs it at its instant, once', async () => {
    // Due a little over two margins out: started asleep for about a minute.
    const at = Math.ceil((Date.now() + LEAD_MS + 2 * WAKE_MARGIN_MS + 10_000) / 1000) * 1000;
    const { value: created, before, after } = await bracketed(() => once('asleep-fires', at));
    const started = await handle('asleep-fires').describe();
    // Woken a margin (longer than the lead) before its run: late by at most the create's measured round
    // trip, never early (as for asleep-read).
    expect(started.executionTime!.getTime()).toBeGreaterThan(started.startTime.getTime());
    expect(started.startTime.getTime()).toBeGreaterThanOrEqual(before);
    expect(started.startTime.getTime()).toBeLessThanOrEqual(after);
    expect(started.executionTime!.getTime()).toBeGreaterThanOrEqual(at - WAKE_MARGIN_MS);
    expect(started.executionTime!.getTime()).toBeLessThanOrEqual(at - WAKE_MARGIN_MS + (after - before));
    const occurrenceRuns = () =>
      readRunLines(runLog).filter((l) => l.occurrence_id.startsWith('occurrence/acme/asleep-fires/'));
    const runs = await eventually(
      'its run',
      async () => (occurrenceRuns().length > 0 ? occurrenceRuns() : undefined),
      at - Date.now() + 60_000,
    );
    expect(runs).toHaveLength(1);
    expect(Date.parse(runs[0]!.scheduled_for)).toBe(Date.parse(created.schedule.next_run_at!));
    expect(runs[0]!.at).toBeGreaterThanOrEqual(at);
    // A one-time schedule completes once its one job has.
    const completed = await eventually(
      'completed',
      async () => {
        const d = await sdk.describe('asleep-fires');
        return d.schedule.status === 'COMPLETED' ? d : undefined;
      },
      60_000,
    );
    expect(completed.counters.fired).toBe(1);
    // Exactly once: nothing more is written after it completed.
    await new Promise((r) => setTimeout(r, 3_000));
    expect(occurrenceRuns()).toHaveLength(1);
  }, 300_000);
});
