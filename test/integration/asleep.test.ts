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
import {
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

describe('schedules created asleep (dev server, real time)', () => {
  let stack: Stack;
  let sdk: SchedulerClient;
  let runLog: string;
  beforeAll(async () => {
    stack = await startStack('asleep-', {}, { armLeadMs: LEAD_MS });
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
      timing: { kind: 'CRON', expression: '0 9 * * *', timezone: 'Europe/Riga' },
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
    const created = await daily('asleep-read');
    const started = await handle('asleep-read').describe();
    const firstRun = Date.parse(created.schedule.next_run_at!);
    // The server begins it a margin and the lead before its first run, not at creation.
    expect(started.executionTime!.getTime()).toBeGreaterThan(started.startTime.getTime());
    expect(Math.abs(started.executionTime!.getTime() - (firstRun - WAKE_MARGIN_MS))).toBeLessThan(2_000);
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
        timing: { kind: 'CRON', expression: '30 9 * * *', timezone: 'Europe/Riga' },
      },
    });
    expect(edited.version).toBe(2);
    expect((await sdk.get('asleep-edit')).timing).toMatchObject({ expression: '30 9 * * *' });

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
    });
    const created = await leadSdk.create({
      schedule_id: 'asleep-armed',
      target: { type: 'JOB', job_type: 'fileRecordedJob', task_queue: JOB_QUEUE },
      timing: { kind: 'INTERVAL', every: 'PT4M' },
    });
    const firstRun = Date.parse(created.schedule.next_run_at!);
    const started = await handle('asleep-armed').describe();
    const wakeAt = armAtMs(firstRun, armLeadMs, 'asleep-armed');
    expect(wakeAt).toBeLessThanOrEqual(firstRun - WAKE_MARGIN_MS);
    expect(Math.abs(started.executionTime!.getTime() - wakeAt)).toBeLessThan(2_000);
    // Nothing reads it (a read would wake it): past its wake, its history alone tells what its tasks did.
    await new Promise((r) => setTimeout(r, wakeAt + 15_000 - Date.now()));
    const events = (await handle('asleep-armed').fetchHistory()).events ?? [];
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
    const armed = (await leadSdk.describe('asleep-armed')).recent_occurrences.find(
      (o) => o.status === 'ARMED',
    );
    expect(armed && Date.parse(armed.fire_at)).toBe(firstRun);
    const job = await stack.client.workflow.getHandle(armed!.occurrence_id).describe();
    expect(Math.abs(job.executionTime!.getTime() - firstRun)).toBeLessThan(1_000);
    const runs = await eventually(
      'its run',
      async () => {
        const lines = readRunLines(runLog).filter((l) => l.occurrence_id === armed!.occurrence_id);
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
    const created = await once('asleep-fires', at);
    const started = await handle('asleep-fires').describe();
    expect(started.executionTime!.getTime()).toBeGreaterThan(
      started.startTime.getTime() + WAKE_MARGIN_MS - 2_000,
    );
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
    const after = await eventually(
      'completed',
      async () => {
        const d = await sdk.describe('asleep-fires');
        return d.schedule.status === 'COMPLETED' ? d : undefined;
      },
      60_000,
    );
    expect(after.counters.fired).toBe(1);
    // Exactly once: nothing more is written after it completed.
    await new Promise((r) => setTimeout(r, 3_000));
    expect(occurrenceRuns()).toHaveLength(1);
  }, 300_000);
});
