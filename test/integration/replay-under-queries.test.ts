// Reads racing edits must never make a schedule's history unreplayable. With TypeScript SDK 1.24.0 a query
// answered while a local activity runs lets sdk-core complete the workflow task with the local activity's
// marker before the workflow saw its result; an update in the next task is then seen in another order
// live than on replay, and the run fails at every rebuild (found by test/integration/api-races.test.ts,
// fixed by the patch v0.3-no-local-activities). Here: real dev server, the real worker process, schedules
// hammered with backfill + describe queries + triggerNow, and every recorded history replayed by today's
// code. With local activities 6 of these 12 schedules failed replay (measured before the fix); none may.
// A recurring ALLOW JOB fire starts its job from a local activity where nothing follows its result
// (PATCH_INERT_LOCAL_START; again since v0.4.2, under the stale-clock guard): the second case races those
// starts with the same reads and triggers. It lost one history in a v0.4.0 CI run to the stale-clock path
// (see test/integration/stale-clock.test.ts), which 0.4.1 answered by turning the local starts off.
import type { WorkflowHandle } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScheduleSpecInput } from '../../src/model/contracts.js';
import { backfillUpdate, describeQuery, triggerNowUpdate } from '../../src/workflows/definitions.js';
import { isLocalActivityMarker, replayFailures } from '../helpers/history.js';
import { startEventSink } from '../helpers/http-api.js';
import {
  countTransient,
  retryTransient,
  settleAll,
  TransientCounter,
  updateRetrying,
} from '../helpers/transient.js';
import { pool, type Stack, startScheduleWorkflow, startStack, startWorker, stopStack } from './support.js';

const HOUR = 3_600_000;
const SCHEDULES = 12;
const ROUNDS = 3;
const INERT_SCHEDULES = 8;
const INERT_RACE_MS = 100_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The schedule's history as it stands, then the schedule terminated (the race is over). */
async function closeWithHistory(handle: WorkflowHandle, transient: TransientCounter) {
  const history = await retryTransient('history reads', transient, () => handle.fetchHistory());
  await retryTransient('terminations', transient, () => handle.terminate('test done'));
  return { workflowId: handle.workflowId, history };
}

/** A read racing the schedule: a transient answer (the server busy, the query timed out) is counted. */
const readCounting = (handle: WorkflowHandle, transient: TransientCounter) =>
  countTransient('reads', transient, () => handle.query(describeQuery));

describe('histories of schedules read while they are edited replay (dev server)', () => {
  let stack: Stack;
  let sink: Awaited<ReturnType<typeof startEventSink>>;
  beforeAll(async () => {
    stack = await startStack('replay-queries-');
    sink = await startEventSink();
    await startWorker(stack, { ROLES: 'scheduler' });
  }, 180_000);
  afterAll(async () => {
    await sink?.close();
    await stopStack(stack);
  });

  /** A schedule's workflow started directly (its creation time in the past, so slots are due soon). */
  const startRaced = (scheduleId: string, spec: ScheduleSpecInput, createdAtMs: number) =>
    startScheduleWorkflow(stack, { scheduleId, spec, createdAtMs });

  it(`${SCHEDULES} schedules × ${ROUNDS} rounds of backfill, queries and a trigger: every history replays`, async () => {
    const transient = new TransientCounter();
    const raced = await pool(
      Array.from({ length: SCHEDULES }, (_, i) => i),
      3,
      async (i) => {
        const handle = await startRaced(
          `read-race-${i}`,
          {
            // Half hand off EVENTs, half start JOBs (on a queue nobody polls: the start is what counts).
            target:
              i % 2 === 0
                ? { type: 'EVENT', event_type: 'read.race', sink_url: sink.url }
                : { type: 'JOB', job_type: 'readRaceJob', task_queue: 'read-race-jobs' },
            timing: { kind: 'INTERVAL', every: 'PT1H' },
          },
          Date.now() - 6 * HOUR,
        );
        await retryTransient('reads', transient, () => handle.query(describeQuery));
        for (let round = 0; round < ROUNDS; round++) {
          const now = Date.now();
          const backfill = updateRetrying(
            handle,
            backfillUpdate,
            {
              from: new Date(now - (5 + round) * HOUR - 60_000).toISOString(),
              to: new Date(now - (4 + round) * HOUR + 60_000).toISOString(),
            },
            transient,
          );
          // Queries land while the backfill's slot batch is being computed.
          const reads = [0, 1, 3].map((delay) => sleep(delay).then(() => readCounting(handle, transient)));
          await sleep((i * 7 + round * 13) % 40);
          const trigger = updateRetrying(handle, triggerNowUpdate, {}, transient);
          await settleAll([backfill, trigger, ...reads]);
          await sleep(300);
        }
        await sleep(500);
        return await closeWithHistory(handle, transient);
      },
    );

    console.log(`[replay-under-queries backfill] ${transient}`);
    expect(await replayFailures(raced)).toEqual([]);
    // The races really happened: every EVENT schedule handed off its backfilled and triggered occurrences.
    expect(sink.events.length).toBeGreaterThanOrEqual((SCHEDULES / 2) * ROUNDS * 2);
  }, 300_000);

  it(`${INERT_SCHEDULES} schedules firing every 35 s, read and triggered throughout: their local starts replay`, async () => {
    const transient = new TransientCounter();
    // Per reader (two per schedule): reads asked, reads answered.
    const asked = new Array<number>(2 * INERT_SCHEDULES).fill(0);
    const answered = new Array<number>(2 * INERT_SCHEDULES).fill(0);
    const raced = await pool(
      Array.from({ length: INERT_SCHEDULES }, (_, i) => i),
      INERT_SCHEDULES,
      async (i) => {
        const handle = await startRaced(
          `inert-race-${i}`,
          {
            // A queue nobody polls: the start is what races, the job never runs.
            target: { type: 'JOB', job_type: 'inertRaceJob', task_queue: 'inert-race-jobs' },
            timing: { kind: 'INTERVAL', every: 'PT35S' },
          },
          // Staggered, so that the schedules' fires spread over the 35 s.
          Date.now() - 34_000 + i * 3_500,
        );
        const end = Date.now() + INERT_RACE_MS;
        // A read waits while a local start holds the schedule's task open; on a loaded machine (a CI run)
        // one may outlast the server's query timeout: counted, not a failure here (replay is the question).
        const reads = async (reader: number) => {
          while (Date.now() < end) {
            asked[reader]!++;
            if ((await readCounting(handle, transient)) !== undefined) answered[reader]!++;
            await sleep((i * 11 + Date.now()) % 30);
          }
        };
        const triggers = async () => {
          for (let k = 0; Date.now() < end; k++) {
            await sleep(500 + ((i * 977 + k * 1_409) % 3_000));
            await updateRetrying(handle, triggerNowUpdate, {}, transient);
          }
        };
        await settleAll([reads(2 * i), reads(2 * i + 1), triggers()]);
        await sleep(1_000);
        return await closeWithHistory(handle, transient);
      },
    );

    const localStarts = raced.map(
      ({ history }) => (history.events ?? []).filter(isLocalActivityMarker).length,
    );
    console.log(
      `[replay-under-queries inert] ${localStarts.join('/')} local starts; reads answered ${answered.join('/')} of ${asked.join('/')}; ${transient}`,
    );
    expect(await replayFailures(raced)).toEqual([]);
    // Reads happened, not only refusals: a read is refused only while it contends (the query buffer holds
    // the other reader's query, answered when the task ends) or outlasts the server's query timeout, so a
    // reader answered never in 100 s, while the worker answered its schedule's triggers, means the worker
    // stopped answering queries.
    expect(
      answered.flatMap((n, reader) => (n === 0 ? [`reader ${reader}: 0 of ${asked[reader]}`] : [])),
    ).toEqual([]);
    // The race was there to lose: local starts ran while the schedules were read, across the schedules
    // (about 3 slots each were due; a fire that meets a pending trigger, or a late one, starts from a
    // regular activity by the rules, so a single schedule may have none).
    expect(localStarts.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(INERT_SCHEDULES);
  }, 300_000);
});
