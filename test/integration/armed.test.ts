// Armed hand-offs (PATCHES.ARMED_HANDOFFS) on the real dev server: a recurring ALLOW JOB is started up to
// the lead before its slot (here, as 0.11 allows, every slot within armAheadMs, 10 minutes, several at once) with a start delay to its instant, so that at the instant the server alone begins it. What a user checks: the job begins at its instant, once, even with every scheduler worker down;
// describe tells armed from begun; a pause, edit, cancel or revocation inside the lead takes back what has
// not begun, and a resume before the instant arms the slot again. (The time-skipping server does not begin
// delayed starts when it skips time: these run in real time, on a 40 s lead.)
import { join } from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SchedulerClient } from '../../src/api/client.js';
import type { Occurrence, ScheduleDescription } from '../../src/model/contracts.js';
import { scheduleWorkflowId } from '../../src/model/ids.js';
import { ownerRevokedSignal } from '../../src/workflows/definitions.js';
import {
  eventually,
  JOB_QUEUE,
  killHard,
  readRunLines,
  SCHEDULER_QUEUE,
  type Stack,
  startStack,
  startWorker,
  stopStack,
  type WorkerProcess,
} from './support.js';

const LEAD_MS = 40_000;
const SLOT_EVERY = 'PT70S';

describe('armed hand-offs (dev server, real time)', () => {
  let stack: Stack;
  let sdk: SchedulerClient;
  let runLog: string;
  let scheduler: WorkerProcess;
  beforeAll(async () => {
    stack = await startStack('armed-');
    runLog = join(stack.dir, 'runs.jsonl');
    sdk = new SchedulerClient({
      client: stack.client,
      taskQueue: SCHEDULER_QUEUE,
      jobTaskQueue: JOB_QUEUE,
      principal: { tenant_id: 'acme', owner_ref: 'ops' },
      armLeadMs: LEAD_MS,
      armAheadMs: 600_000,
    });
    // Separate processes: the kill test takes the scheduler's worker down while jobs keep their own.
    await startWorker(stack, { ROLES: 'jobs', RUN_LOG: runLog });
    scheduler = await startWorker(stack, { ROLES: 'scheduler' });
  }, 240_000);
  afterAll(async () => {
    await stopStack(stack);
  });

  const create = (scheduleId: string) =>
    sdk.create({
      schedule_id: scheduleId,
      target: { type: 'JOB', job_type: 'fileRecordedJob', task_queue: JOB_QUEUE },
      timing: { kind: 'INTERVAL', every: SLOT_EVERY },
    });

  /** The schedule's first occurrence once it is ARMED (its job started, not begun). */
  const armedFirst = (scheduleId: string): Promise<Occurrence> =>
    eventually(
      `${scheduleId}: first slot armed`,
      async () => (await sdk.describe(scheduleId)).recent_occurrences.find((o) => o.status === 'ARMED'),
      120_000,
    );

  const job = (occ: Occurrence): WorkflowHandle => stack.client.workflow.getHandle(occ.occurrence_id);
  const runsOf = (occ: Occurrence) =>
    readRunLines(runLog).filter((l) => l.occurrence_id === occ.occurrence_id);
  /** When the server began the job: its first workflow task scheduled (epoch ms), or null. */
  const begunAt = async (handle: WorkflowHandle): Promise<number | null> => {
    const history = await handle.fetchHistory();
    const first = (history.events ?? []).find((e) => e.workflowTaskScheduledEventAttributes);
    return first
      ? Number(first.eventTime!.seconds) * 1000 + Math.floor((first.eventTime!.nanos ?? 0) / 1e6)
      : null;
  };
  const untilPast = async (iso: string, extraMs = 3_000) => {
    const wait = Date.parse(iso) + extraMs - Date.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  };
  /** Occurrences handed off or armed: each counted once in `fired`. */
  const emittedIn = (d: ScheduleDescription) =>
    d.recent_occurrences.filter((o) => o.status === 'ARMED' || o.status === 'HANDED_OFF').length;
  const slotOf = (d: ScheduleDescription, occ: Occurrence) =>
    d.recent_occurrences.find((o) => o.scheduled_for === occ.scheduled_for);
  /** Until the occurrence's armed job is terminated (disarmed). */
  const untilDisarmed = (occ: Occurrence) =>
    eventually(
      `${occ.occurrence_id} disarmed`,
      async () => ((await job(occ).describe()).status.name === 'TERMINATED' ? true : undefined),
      30_000,
    );
  /** 10 s past the occurrence's instant, its job never began and wrote no run. */
  const expectNeverBegun = async (occ: Occurrence) => {
    await untilPast(occ.fire_at, 10_000);
    expect(runsOf(occ)).toEqual([]);
    expect(await begunAt(job(occ))).toBeNull();
  };

  it.concurrent('armed ahead, the job begins at its instant, once; describe tells armed from begun', async () => {
    await create('armed-basic');
    const occ = await armedFirst('armed-basic');
    const armed = await sdk.describe('armed-basic');
    expect(armed.schedule.next_run_at).toBe(occ.fire_at);
    expect(armed.next_runs[0]?.fire_at).toBe(occ.fire_at);
    const before = await job(occ).describe();
    expect(before.status.name).toBe('RUNNING');
    expect(before.startTime.getTime()).toBeLessThan(Date.parse(occ.fire_at));
    // The start carries the delay to the instant: the server begins it then. The hand-off counts that delay
    // from its worker's clock, read after the hand-off began (emitted_at, the workflow's time) and before the
    // server stamped the start: late by at most that measured span, never early.
    const emittedAt = Date.parse(occ.emitted_at!);
    expect(emittedAt).toBeLessThanOrEqual(before.startTime.getTime());
    expect(before.executionTime!.getTime()).toBeGreaterThanOrEqual(Date.parse(occ.fire_at));
    expect(before.executionTime!.getTime()).toBeLessThanOrEqual(
      Date.parse(occ.fire_at) + (before.startTime.getTime() - emittedAt),
    );
    expect(await begunAt(job(occ))).toBeNull();

    await untilPast(occ.fire_at);
    await eventually('its run', async () => (runsOf(occ).length > 0 ? true : undefined), 60_000);
    const began = (await begunAt(job(occ)))!;
    expect(began).toBeGreaterThanOrEqual(Date.parse(occ.fire_at));
    const after = await sdk.describe('armed-basic');
    expect(slotOf(after, occ)).toMatchObject({ status: 'HANDED_OFF', finished_at: occ.fire_at });
    expect(after.schedule.last_run_at).toBe(occ.fire_at);
    expect(Date.parse(after.schedule.next_run_at!)).toBeGreaterThan(Date.parse(occ.fire_at));
    // Every slot within armAheadMs is armed, each counted once as it is emitted.
    expect(after.counters.fired).toBe(emittedIn(after));
    expect(after.recent_occurrences.filter((o) => o.status === 'ARMED').length).toBeGreaterThan(1);
    expect(runsOf(occ)).toHaveLength(1);
  }, 240_000);

  it.concurrent('a pause inside the lead disarms the job; a resume before the instant arms it again, and it runs once', async () => {
    await create('armed-pause');
    const occ = await armedFirst('armed-pause');
    const firstRun = (await job(occ).describe()).runId;
    await sdk.pause('armed-pause', 'maintenance');
    await untilDisarmed(occ);
    // The job is terminated by the disarm activity; the schedule records it when that activity completes,
    // a moment later: describe shows the slot back among the next runs once it has.
    const paused = await eventually(
      'the pause recorded: the slot is no longer an occurrence',
      async () => {
        const d = await sdk.describe('armed-pause');
        return slotOf(d, occ) === undefined ? d : undefined;
      },
      30_000,
    );
    expect(paused.counters.fired).toBe(0);
    expect(paused.next_runs[0]?.scheduled_for).toBe(occ.scheduled_for);

    await sdk.resume('armed-pause');
    await eventually(
      'armed again under the same ID',
      async () => {
        const again = await job(occ).describe();
        return again.runId !== firstRun && again.status.name === 'RUNNING' ? true : undefined;
      },
      30_000,
    );
    await untilPast(occ.fire_at);
    await eventually('its run', async () => (runsOf(occ).length > 0 ? true : undefined), 60_000);
    expect((await begunAt(job(occ)))!).toBeGreaterThanOrEqual(Date.parse(occ.fire_at));
    const resumed = await sdk.describe('armed-pause');
    expect(slotOf(resumed, occ)).toMatchObject({ status: 'HANDED_OFF' });
    expect(resumed.counters.fired).toBe(emittedIn(resumed));
    expect(runsOf(occ)).toHaveLength(1);
  }, 240_000);

  it.concurrent('a pause that lasts past the instant: the disarmed job never begins', async () => {
    await create('armed-paused-long');
    const occ = await armedFirst('armed-paused-long');
    await sdk.pause('armed-paused-long');
    await untilDisarmed(occ);
    await expectNeverBegun(occ);
  }, 240_000);

  it.concurrent('an edit inside the lead replaces the armed job by one of the new version', async () => {
    await create('armed-edit');
    const occ = await armedFirst('armed-edit');
    const oldRun = (await job(occ).describe()).runId;
    const current = await sdk.get('armed-edit');
    await sdk.patch('armed-edit', {
      expected_version: current.version,
      target: { type: 'JOB', job_type: 'fileRecordedJob', task_queue: JOB_QUEUE, payload: { edited: true } },
    });
    const oldJob = stack.client.workflow.getHandle(occ.occurrence_id, oldRun);
    expect((await oldJob.describe()).status.name).toBe('TERMINATED');
    expect(await begunAt(oldJob)).toBeNull();
    // The new definition's first slot (the same instant, for an interval counted from creation) is armed
    // under version 2.
    const next = await eventually(
      'armed under version 2',
      async () =>
        (await sdk.describe('armed-edit')).recent_occurrences.find(
          (o) => o.status === 'ARMED' && o.schedule_version === 2,
        ),
      120_000,
    );
    const started = ((await job(next).fetchHistory()).events ?? []).find(
      (e) => e.workflowExecutionStartedEventAttributes,
    )!;
    const input = JSON.parse(
      Buffer.from(started.workflowExecutionStartedEventAttributes!.input!.payloads![0]!.data!).toString(),
    );
    expect(input).toMatchObject({ schedule_version: 2, payload: { edited: true } });
    await untilPast(next.fire_at);
    await eventually('its run', async () => (runsOf(next).length > 0 ? true : undefined), 60_000);
    expect(runsOf(next)).toHaveLength(1);
    expect(slotOf(await sdk.describe('armed-edit'), next)).toMatchObject({
      status: 'HANDED_OFF',
      schedule_version: 2,
    });
  }, 240_000);

  it.concurrent('a cancel inside the lead terminates the armed job: CANCELLED, never begun', async () => {
    await create('armed-cancel');
    const occ = await armedFirst('armed-cancel');
    await sdk.cancel('armed-cancel');
    await untilDisarmed(occ);
    await expectNeverBegun(occ);
    const described = await sdk.describe('armed-cancel');
    expect(described.schedule.status).toBe('CANCELLED');
    expect(slotOf(described, occ)).toMatchObject({ status: 'CANCELLED' });
    expect(described.counters.fired).toBe(0);
  }, 240_000);

  it.concurrent('a revoked owner inside the lead: the armed job is refused and never begins', async () => {
    await create('armed-revoked');
    const occ = await armedFirst('armed-revoked');
    await stack.client.workflow
      .getHandle(scheduleWorkflowId('acme', 'armed-revoked'))
      .signal(ownerRevokedSignal, { reason: 'owner acme/ops has no API key any more (test)' });
    await untilDisarmed(occ);
    await expectNeverBegun(occ);
    const described = await sdk.describe('armed-revoked');
    expect(slotOf(described, occ)?.status).toBe('SKIPPED');
    expect(slotOf(described, occ)?.reason).toMatch(/^refused: owner acme\/ops has no API key/);
  }, 240_000);

  it('with the scheduler worker SIGKILLed over the instant, the armed job begins on time, once', async () => {
    await create('armed-outage');
    const occ = await armedFirst('armed-outage');
    await killHard(scheduler);
    await untilPast(occ.fire_at);
    await eventually('its run', async () => (runsOf(occ).length > 0 ? true : undefined), 60_000);
    // It ran with no scheduler worker anywhere: the server began it.
    expect((await begunAt(job(occ)))!).toBeGreaterThanOrEqual(Date.parse(occ.fire_at));
    scheduler = await startWorker(stack, { ROLES: 'scheduler' });
    const after = await sdk.describe('armed-outage');
    expect(slotOf(after, occ)).toMatchObject({ status: 'HANDED_OFF' });
    expect(runsOf(occ)).toHaveLength(1);
  }, 240_000);
});
