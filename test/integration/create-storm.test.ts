// Issue 11: a creation storm while no scheduler worker runs, on the dev server with real processes.
// `create` answers from what the SDK knows (the definition, the creation instant it hands the workflow,
// the next runs counted from it) and a retry of the same create is answered from the workflow's
// description (memo, search attributes), so neither waits for the worker; reads the worker answers fail
// with a retryable UNAVAILABLE after their deadline. Once a worker starts, every schedule's first slot
// runs its job exactly once.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CreateResult, SchedulerClient } from '../../src/api/client.js';
import type { ScheduleSpecInput } from '../../src/model/contracts.js';
import { occurrenceId } from '../../src/model/ids.js';
import { retryTransient, TransientCounter } from '../helpers/transient.js';
import {
  eventually,
  groupBy,
  JOB_QUEUE,
  killHard,
  pool,
  readRunLines,
  SCHEDULER_QUEUE,
  type Stack,
  startStack,
  startWorker,
  stopStack,
  type WorkerProcess,
} from './support.js';

const SCHEDULES = 300;
const CONCURRENCY = 20;
const RETRIES = 20;
const READ_TIMEOUT_MS = 3000;
const idOf = (i: number) => `storm-${String(i).padStart(3, '0')}`;
/**
 * What every schedule of the storm is. One slot each while the file runs, 90 s after the storm begins (counted
 * then, not when the file loads: starting the servers and the job worker may take that long on a loaded
 * machine): the storm is the creates and the first tasks, not a stream of fires (every 30 s, 300 schedules
 * kept a loaded CI machine from reaching the first slots).
 */
const specFrom = (stormAt: number): ScheduleSpecInput => ({
  target: { type: 'JOB', job_type: 'fileRecordedJob' },
  timing: { kind: 'INTERVAL', every: 'PT10M', anchor: new Date(stormAt + 90_000 - 600_000).toISOString() },
  // A slot that fell due before the worker came fires on its own (none is a misfire).
  max_lateness_s: 3600,
});

async function timed<T>(
  fn: () => Promise<T>,
): Promise<{ ms: number; result: T | undefined; error: unknown }> {
  const start = Date.now();
  try {
    const result = await fn();
    return { ms: Date.now() - start, result, error: undefined };
  } catch (error) {
    return { ms: Date.now() - start, result: undefined, error };
  }
}

describe(`creation storm: ${SCHEDULES} creates while no scheduler worker runs (dev server)`, () => {
  let stack: Stack | undefined;
  let sdk: SchedulerClient;
  let runLog = '';
  const ids = Array.from({ length: SCHEDULES }, (_, i) => idOf(i));
  const created = new Map<string, CreateResult>();
  let spec: ScheduleSpecInput;
  let scheduler: WorkerProcess | undefined;

  beforeAll(async () => {
    stack = await startStack('create-storm');
    runLog = join(stack.dir, 'runs.jsonl');
    // The job worker only: nothing polls the scheduler's task queue yet.
    await startWorker(stack, { RUN_LOG: runLog, ROLES: 'jobs' });
    sdk = new SchedulerClient({
      client: stack.client,
      taskQueue: SCHEDULER_QUEUE,
      jobTaskQueue: JOB_QUEUE,
      principal: { tenant_id: 'acme', owner_ref: 'ops' },
      readTimeoutMs: READ_TIMEOUT_MS,
    });
  });

  afterAll(async () => {
    await stopStack(stack);
  });

  it('every create succeeds: ACTIVE, version 1, next_run_at as preview counts it from created_at', async () => {
    const started = Date.now();
    spec = specFrom(started);
    const results = await pool(ids, CONCURRENCY, (id) => sdk.create({ schedule_id: id, ...spec }));
    console.info(
      `[create-storm] ${SCHEDULES} creates, ${CONCURRENCY} at a time, no scheduler worker: ${Date.now() - started} ms`,
    );
    for (const [i, { schedule, created: isNew }] of results.entries()) {
      const id = ids[i]!;
      created.set(id, { schedule, created: isNew });
      expect(isNew, id).toBe(true);
      expect(schedule).toMatchObject({ schedule_id: id, status: 'ACTIVE', version: 1, last_run_at: null });
      const [first] = sdk.preview(spec, { from: schedule.created_at, scheduleId: id, count: 1 });
      expect(schedule.next_run_at, id).toBe(first!.fire_at);
    }
    // Nothing has run: no worker took a single workflow task.
    const { connection } = stack!;
    const history = await connection.workflowService.getWorkflowExecutionHistory({
      namespace: 'default',
      execution: { workflowId: `schedule/acme/${ids[0]}` },
    });
    expect(history.history?.events?.some((e) => e.workflowTaskCompletedEventAttributes)).toBe(false);
  });

  it(`a retry of ${RETRIES} of them is created:false with the same schedule, still without a worker`, async () => {
    const retried = await pool(ids.slice(0, RETRIES), CONCURRENCY, (id) =>
      sdk.create({ schedule_id: id, ...spec }),
    );
    for (const [i, result] of retried.entries()) {
      expect(result.created).toBe(false);
      expect(result.schedule).toEqual(created.get(ids[i]!)!.schedule);
    }
  });

  it('a create under a taken ID with another definition is ALREADY_EXISTS', async () => {
    await expect(
      sdk.create({ schedule_id: ids[0]!, ...spec, timing: { kind: 'INTERVAL', every: 'PT31S' } }),
    ).rejects.toMatchObject({ code: 'ALREADY_EXISTS', field: 'schedule_id' });
  });

  it('describe, which the worker answers, is UNAVAILABLE after its deadline, not a hang', async () => {
    const { ms, error } = await timed(() => sdk.describe(ids[0]!));
    expect(error).toMatchObject({ code: 'UNAVAILABLE' });
    // Ended by the SDK's deadline, well before the server's own query timeout (30 s).
    expect(ms).toBeGreaterThanOrEqual(READ_TIMEOUT_MS - 100);
    expect(ms).toBeLessThan(20_000);
  });

  it('once a scheduler worker runs, every schedule fires its first slot, each occurrence exactly once', async () => {
    scheduler = await startWorker(stack!, { RUN_LOG: runLog, ROLES: 'scheduler' });
    const firstSlot = (id: string) => occurrenceId('acme', id, created.get(id)!.schedule.next_run_at!); // INTERVAL without jitter: fire_at = slot
    // Counted from the last first slot: a create that came after the storm's first 90 s has its first slot
    // ten minutes on.
    const lastFirstSlot = Math.max(...ids.map((id) => Date.parse(created.get(id)!.schedule.next_run_at!)));
    const lines = await eventually(
      `the first slot of all ${SCHEDULES} schedules ran`,
      async () => {
        const byOccurrence = groupBy(readRunLines(runLog), (l) => l.occurrence_id);
        return ids.every((id) => byOccurrence.has(firstSlot(id))) ? byOccurrence : undefined;
      },
      // A hang detector, not a speed goal: 300 first tasks and their fires on a loaded 2-core machine.
      Math.max(0, lastFirstSlot - Date.now()) + 360_000,
      1000,
    );
    console.info(
      `[create-storm] all first slots ran ${Date.now() - scheduler.pollingAt} ms after the worker polled; ${lines.size} occurrences ran`,
    );
    for (const [occurrence, runs] of lines) {
      expect(new Set(runs.map((r) => r.run_id)).size, occurrence).toBe(1);
    }
    // The workflow counts from the same instant the SDK did. (The worker is still busy with the storm: a
    // read may meet its deadline and be answered UNAVAILABLE, which a caller asks again.)
    const described = await retryTransient('describe after the storm', new TransientCounter(), () =>
      sdk.describe(ids[0]!),
    );
    expect(described.schedule.created_at).toBe(created.get(ids[0]!)!.schedule.created_at);
    expect(described.recent_occurrences[0]?.occurrence_id).toBe(firstSlot(ids[0]!));
  }, 1_200_000);

  it('with the worker killed (its sticky queue unpolled), describe is UNAVAILABLE again', async () => {
    await killHard(scheduler!);
    const { error } = await timed(() => sdk.describe(ids[1]!));
    expect(error).toMatchObject({ code: 'UNAVAILABLE' });
  });
});
