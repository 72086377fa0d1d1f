// Schedules read while their worker's cache cannot hold them all: sdk-core (TypeScript SDK 1.24) answers
// a query to an evicted schedule by rebuilding it from history, and when that history already holds events
// of the next workflow task (a timer fired, an activity completed), it activates the workflow with them on
// the previous task's clock; the commands it gets back go out with the next real task. Replayed at that
// task's own time, the schedule decides otherwise and its history no longer replays: every later task
// fails and the schedule is stuck (3 of 8 schedules in one 100 s run before the stale-clock guard,
// src/workflows/stale-clock-guard.ts). Here: real dev server, the real worker process with a cache of 2
// workflows for 8 schedules firing every 5 s, each read without pause (the Temporal client and our SDK)
// and triggered; every history must replay, no workflow task may fail, and no refusal may reach an SDK
// caller (our SDK asks again).
import type { WorkflowHandle } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UnavailableError } from '../../src/api/errors.js';
import { describeQuery, STALE_CLOCK_REFUSAL, triggerNowUpdate } from '../../src/workflows/definitions.js';
import { isLocalActivityMarker, replayFailures } from '../helpers/history.js';
import { retryTransient, settleAll, TransientCounter, updateRetrying } from '../helpers/transient.js';
import { pool, type Stack, startScheduleWorkflow, startStack, startWorker, stopStack } from './support.js';

const SCHEDULES = 8;
const CACHED_WORKFLOWS = 2;
const RACE_MS = 100_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('schedules read while evicted from a small worker cache (dev server)', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack('stale-clock-');
    await startWorker(stack, {
      ROLES: 'scheduler',
      SCHEDULER_WORKER_TUNING: JSON.stringify({ maxCachedWorkflows: CACHED_WORKFLOWS }),
    });
  }, 180_000);
  afterAll(async () => {
    await stopStack(stack);
  });

  /**
   * SCHEDULES schedules every `everyS` seconds, staggered over one interval, each read without pause (the
   * Temporal client's query and our SDK's describe) and triggered for RACE_MS; then every history replayed.
   */
  async function race(name: string, everyS: number) {
    const rawReadErrors: string[] = [];
    const sdkReadErrors: Error[] = [];
    const sdkReadsAnswered = new Array<number>(SCHEDULES).fill(0);
    const transient = new TransientCounter();
    const raced = await pool(
      Array.from({ length: SCHEDULES }, (_, i) => i),
      SCHEDULES,
      async (i) => {
        const scheduleId = `${name}-${i}`;
        const handle: WorkflowHandle = await startScheduleWorkflow(stack, {
          scheduleId,
          // A queue nobody polls: the schedule's own tasks are what race, the jobs never run.
          spec: {
            target: { type: 'JOB', job_type: 'staleClockJob', task_queue: 'stale-clock-jobs' },
            timing: { kind: 'INTERVAL', every: `PT${everyS}S` },
          },
          createdAtMs: Date.now() - (everyS - 1) * 1000 + (i * everyS * 1000) / SCHEDULES,
        });
        const end = Date.now() + RACE_MS;
        // The Temporal client's query: a refusal reaches it as an error naming STALE_CLOCK_REFUSAL; under
        // this load the server also sheds queries (query buffer full, timed out). A nondeterminism error
        // here is the bug: the schedule's history no longer replays.
        const rawReads = async () => {
          while (Date.now() < end) {
            await handle.query(describeQuery).catch((err: Error) => rawReadErrors.push(err.message));
            await sleep((i * 11 + Date.now()) % 30);
          }
        };
        // Our SDK asks again after a refusal: none may reach its caller, not even as the UNAVAILABLE
        // (cause STALE_CLOCK) it answers once it gave up asking. (With 2 cached workflows every read rebuilds
        // a schedule from its history, so a read may still time out, UNAVAILABLE with cause NO_ANSWER: load,
        // counted.)
        const sdkReads = async () => {
          while (Date.now() < end) {
            await stack.sdk.describe(scheduleId).then(
              () => sdkReadsAnswered[i]!++,
              (err: Error) => sdkReadErrors.push(err),
            );
            await sleep(100 + ((i * 7 + Date.now()) % 100));
          }
        };
        const triggers = async () => {
          for (let k = 0; Date.now() < end; k++) {
            await sleep(500 + ((i * 977 + k * 1_409) % 3_000));
            await updateRetrying(handle, triggerNowUpdate, {}, transient);
          }
        };
        await settleAll([rawReads(), sdkReads(), triggers()]);
        const { counters } = await retryTransient('SDK reads after the race', transient, () =>
          stack.sdk.describe(scheduleId),
        );
        const history = await retryTransient('history reads', transient, () => handle.fetchHistory());
        await retryTransient('terminations', transient, () => handle.terminate('test done'));
        return { workflowId: handle.workflowId, history, fired: counters.fired };
      },
    );

    const refusals = rawReadErrors.filter((m) => m.includes(STALE_CLOCK_REFUSAL)).length;
    const causeOf = (err: Error) => (err instanceof UnavailableError ? err.unavailableCause : err.message);
    const sdkCauses = sdkReadErrors.map(causeOf);
    const noAnswer = sdkCauses.filter((c) => c === 'NO_ANSWER').length;
    const localStarts = raced.map((r) => (r.history.events ?? []).filter(isLocalActivityMarker).length);
    console.log(
      `[stale-clock ${name}] ${SCHEDULES} schedules every ${everyS} s, ${raced.map((r) => r.fired).join('/')} fired, ${localStarts.join('/')} local starts; queries: ${refusals} refused on a stale clock, ${rawReadErrors.length - refusals} shed by the server; SDK reads: ${sdkReadsAnswered.join('/')} answered, ${noAnswer} UNAVAILABLE NO_ANSWER, ${sdkCauses.length - noAnswer} other errors; ${transient}`,
    );
    expect(rawReadErrors.filter((m) => m.includes('TMPRL1100') || /nondetermin/i.test(m))).toEqual([]);
    // Unreplayable histories, and schedules whose tasks failed (stuck even when their history so far replays).
    expect(await replayFailures(raced)).toEqual([]);
    // No refusal reached an SDK caller (STALE_CLOCK is the SDK's answer once it gave up asking again), nor
    // any other error than a worker too busy to answer in time.
    expect(sdkCauses.filter((c) => c !== 'NO_ANSWER')).toEqual([]);
    // The claim is about reads that happened: every schedule's SDK reads were answered during the race.
    expect(sdkReadsAnswered.filter((n) => n === 0)).toEqual([]);
    return { raced, localStarts };
  }

  it(`${SCHEDULES} schedules every 5 s, ${CACHED_WORKFLOWS} cached, read and triggered for ${RACE_MS / 1000} s: every history replays`, async () => {
    const { raced } = await race('stale-clock', 5);
    // The schedules kept firing throughout (a slot every 5 s for 100 s, besides the triggers).
    for (const { workflowId, fired } of raced) expect(fired, workflowId).toBeGreaterThanOrEqual(10);
  }, 300_000);

  it(`${SCHEDULES} schedules every 35 s (inert local job starts), ${CACHED_WORKFLOWS} cached, read and triggered: every history replays`, async () => {
    // Slots 35 s apart start their jobs from local activities (PATCHES.INERT_LOCAL_START_GUARDED): evicted
    // and rebuilt for reads while those starts run, the schedules must replay as well.
    const { localStarts } = await race('stale-clock-inert', 35);
    // The race was there to lose: local starts ran while the schedules were evicted and read. (Not every
    // schedule gets one: a fire that meets a pending trigger, or a late one, starts from a regular activity.)
    expect(localStarts.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(SCHEDULES / 2);
  }, 300_000);
});
