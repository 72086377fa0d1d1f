// disarmJob (src/activities/disarm.ts) on a real dev server: what a JOB started with a start delay looks like
// before the delay elapses, that terminating it then leaves a slot that can be armed again under its ID, and
// each outcome, including both races between the check and the terminate (held open by a client interceptor).
// The activity uses no activity Context, so it is called directly.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  Client,
  Connection,
  WorkflowExecutionAlreadyStartedError,
  type WorkflowHandle,
  type WorkflowIdReusePolicy,
} from '@temporalio/client';
import proto from '@temporalio/proto';
import { NativeConnection, Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDisarmActivities, type DisarmActivities } from '../../src/activities/disarm.js';
import type { OccurrenceEnvelope } from '../../src/model/contracts.js';
import type { DevServer } from '../../src/runtime/dev-server.js';
import { startTestDevServer, tempDir } from '../helpers/servers.js';
import { eventually } from './support.js';

const jobWorkflows = fileURLToPath(new URL('../fixtures/jobs.ts', import.meta.url));
const { EventType } = proto.temporal.api.enums.v1;
const TEN_MINUTES = 10 * 60 * 1000;

/** recordedJob's argument: it completes at once, or sleeps `sleepMs` first. */
const occurrence = (id: string, sleepMs: number): OccurrenceEnvelope => ({
  occurrence_id: id,
  idempotency_key: id,
  tenant_id: 'acme',
  schedule_id: 'nightly',
  schedule_version: 1,
  scheduled_for: new Date().toISOString(),
  emitted_at: new Date().toISOString(),
  trigger: 'SCHEDULE',
  payload_ref: null,
  payload: { sleep_ms: sleepMs },
});

const eventTypes = async (handle: WorkflowHandle): Promise<string[]> =>
  ((await handle.fetchHistory()).events ?? []).map((e) =>
    String(EventType[e.eventType ?? 0]).replace('EVENT_TYPE_', ''),
  );

describe('disarming an armed JOB (dev server)', () => {
  let dir: string;
  let server: DevServer;
  let connection: Connection;
  let nativeConnection: NativeConnection;
  let client: Client;
  let worker: Worker;
  let running: Promise<void>;
  let disarmJob: DisarmActivities['disarmJob'];
  /** The same activity on a client whose terminate first awaits `beforeTerminate`: a race held open. */
  let disarmJobRacing: DisarmActivities['disarmJob'];
  let beforeTerminate: () => Promise<unknown> = async () => {};

  beforeAll(async () => {
    dir = tempDir('disarm');
    server = await startTestDevServer(join(dir, 'temporal.db'));
    connection = await Connection.connect({ address: server.address });
    client = new Client({ connection });
    const racingClient = new Client({
      connection,
      interceptors: {
        workflow: [
          {
            async terminate(input, next) {
              await beforeTerminate();
              return next(input);
            },
          },
        ],
      },
    });
    disarmJob = createDisarmActivities({ client }).disarmJob;
    disarmJobRacing = createDisarmActivities({ client: racingClient }).disarmJob;
    nativeConnection = await NativeConnection.connect({ address: server.address });
    worker = await Worker.create({
      connection: nativeConnection,
      taskQueue: 'jobs',
      workflowsPath: jobWorkflows,
      activities: { jobStarted: async () => {}, jobFinished: async () => {} },
    });
    running = worker.run();
  });
  afterAll(async () => {
    worker?.shutdown();
    await running;
    await nativeConnection?.close();
    await connection?.close();
    await server?.kill();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const arm = (
    workflowId: string,
    startDelay: string,
    { sleepMs = 0, reuse = 'REJECT_DUPLICATE' }: { sleepMs?: number; reuse?: WorkflowIdReusePolicy } = {},
  ) =>
    client.workflow.start('recordedJob', {
      taskQueue: 'jobs',
      workflowId,
      args: [occurrence(workflowId, sleepMs)],
      startDelay,
      workflowIdReusePolicy: reuse,
    });

  const recorded = (handle: WorkflowHandle, eventType: string) =>
    eventually(
      `${eventType} in ${handle.workflowId}`,
      async () => ((await eventTypes(handle)).includes(eventType) ? true : undefined),
      20_000,
      100,
    );

  it('terminates a job whose start delay has not elapsed: DISARMED, and again on a retry', async () => {
    const job = await arm('armed', '60s');
    // What the check relies on: until its delay elapses the job's history is its start alone.
    const before = await job.describe();
    expect(before.status.name).toBe('RUNNING');
    expect(before.historyLength).toBe(1);
    expect(before.executionTime!.getTime() - before.startTime.getTime()).toBe(60_000);
    expect(await eventTypes(job)).toEqual(['WORKFLOW_EXECUTION_STARTED']);

    expect(await disarmJob({ workflowId: 'armed', reason: 'schedule paused' })).toMatchObject({
      outcome: 'DISARMED',
    });
    const after = await job.describe();
    expect(after.status.name).toBe('TERMINATED');
    const history = (await job.fetchHistory()).events ?? [];
    expect(await eventTypes(job)).toEqual(['WORKFLOW_EXECUTION_STARTED', 'WORKFLOW_EXECUTION_TERMINATED']);
    expect(history[1]!.workflowExecutionTerminatedEventAttributes?.reason).toBe('schedule paused');

    expect(await disarmJob({ workflowId: 'armed', reason: 'schedule paused' })).toMatchObject({
      outcome: 'DISARMED',
    });
    expect((await job.describe()).historyLength).toBe(2);
  });

  it('leaves a disarmed slot to be armed again under its ID by ALLOW_DUPLICATE_FAILED_ONLY alone', async () => {
    const first = await arm('rearmed', '60s');
    expect((await disarmJob({ workflowId: 'rearmed', reason: 'schedule edited' })).outcome).toBe('DISARMED');

    await expect(arm('rearmed', '60s')).rejects.toBeInstanceOf(WorkflowExecutionAlreadyStartedError);
    const again = await arm('rearmed', '1s', { reuse: 'ALLOW_DUPLICATE_FAILED_ONLY' });
    expect(again.firstExecutionRunId).not.toBe(first.firstExecutionRunId);
    expect(await again.result()).toBe('rearmed');

    // Once the slot's job has run, its ID cannot be armed a third time: a completed run is not a failed one.
    await expect(arm('rearmed', '1s', { reuse: 'ALLOW_DUPLICATE_FAILED_ONLY' })).rejects.toBeInstanceOf(
      WorkflowExecutionAlreadyStartedError,
    );
    expect(await disarmJob({ workflowId: 'rearmed', reason: 'schedule edited' })).toMatchObject({
      outcome: 'GONE',
      detail: expect.stringContaining('COMPLETED'),
    });
  });

  it('answers GONE for a job that ran to completion and for an unknown ID', async () => {
    const job = await arm('completed', '1s');
    expect(await job.result()).toBe('completed');
    expect(await disarmJob({ workflowId: 'completed', reason: 'schedule cancelled' })).toMatchObject({
      outcome: 'GONE',
      detail: expect.stringContaining('COMPLETED'),
    });
    expect((await disarmJob({ workflowId: 'never-armed', reason: 'schedule cancelled' })).outcome).toBe(
      'GONE',
    );
  });

  it('never terminates a job that has begun: BEGUN, and it runs on', async () => {
    const job = await arm('begun', '1s', { sleepMs: TEN_MINUTES });
    await recorded(job, 'WORKFLOW_TASK_SCHEDULED');
    expect(await disarmJob({ workflowId: 'begun', reason: 'owner revoked' })).toMatchObject({
      outcome: 'BEGUN',
      detail: expect.stringContaining('left running'),
    });
    expect((await job.describe()).status.name).toBe('RUNNING');
    expect(await eventTypes(job)).not.toContain('WORKFLOW_EXECUTION_TERMINATED');
  });

  it('reports a job that began between the check and the terminate as BEGUN, terminated after it began', async () => {
    const job = await arm('raced-begin', '3s', { sleepMs: TEN_MINUTES });
    // Asleep by then: a terminate in the middle of its workflow task only makes the worker log a warning.
    beforeTerminate = () => recorded(job, 'TIMER_STARTED');
    try {
      expect(await disarmJobRacing({ workflowId: 'raced-begin', reason: 'schedule paused' })).toMatchObject({
        outcome: 'BEGUN',
        detail: expect.stringContaining('terminated after it began'),
      });
    } finally {
      beforeTerminate = async () => {};
    }
    const events = await eventTypes(job);
    expect(events.indexOf('WORKFLOW_TASK_SCHEDULED')).toBeGreaterThan(0);
    expect(events.indexOf('WORKFLOW_TASK_SCHEDULED')).toBeLessThan(
      events.indexOf('WORKFLOW_EXECUTION_TERMINATED'),
    );
    // A retry meets a closed job that had begun: not DISARMED, so the slot is never armed again.
    expect((await disarmJob({ workflowId: 'raced-begin', reason: 'schedule paused' })).outcome).toBe('GONE');
  });

  it('answers GONE for a job that closed between the check and the terminate', async () => {
    const job = await arm('raced-close', '3s');
    beforeTerminate = () => job.result();
    try {
      expect(await disarmJobRacing({ workflowId: 'raced-close', reason: 'schedule paused' })).toMatchObject({
        outcome: 'GONE',
        detail: expect.stringContaining('closed before it could be terminated'),
      });
    } finally {
      beforeTerminate = async () => {};
    }
    expect((await job.describe()).status.name).toBe('COMPLETED');
  });
});
