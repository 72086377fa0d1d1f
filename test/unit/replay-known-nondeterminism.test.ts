import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import proto from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { describe, expect, it } from 'vitest';
import { schedulerReplayOptions } from '../../src/worker.js';
import '../helpers/quiet-sdk.js';

// EVIDENCE OF AN SDK BUG (TypeScript SDK 1.24.0 / sdk-core), kept as a tripwire. This history was recorded
// before the patch v0.3-no-local-activities, while three API processes raced pause/resume, PATCH, trigger
// and backfill on one schedule and describe queries read it. A query answered while a local activity ran
// let sdk-core complete workflow task 344 with the local activity's marker (347) before the workflow saw
// its result; the next task, returned inline, carried a `triggerNow` update (351) that the workflow saw
// before that result live, after it on replay:
//   UpdateMachine in state CompletedCommandCreated says the transition is invalid during event 351
// No workflow code can replay it (the recorded order is not one any code produces on replay). Since 0.3 the
// schedule workflow uses no local activity (test/integration/replay-under-queries.test.ts proves raced
// histories replay). When this test fails, the SDK replays such histories: local activities could come
// back (behind a new patch), with this file moved to test/histories.
const file = fileURLToPath(
  new URL('../fixtures/nondeterminism/race-backfill-then-trigger.binpb.gz', import.meta.url),
);

describe('SDK bug tripwire: a local-activity marker recorded before the workflow saw its result (issue 10)', () => {
  it('the recorded race history (local activities, before 0.3) still does not replay', async () => {
    const history = proto.temporal.api.history.v1.History.decode(gunzipSync(readFileSync(file)));
    await expect(
      Worker.runReplayHistory(schedulerReplayOptions, history, 'schedule/acme/race-c'),
    ).rejects.toThrow(
      /UpdateMachine in state CompletedCommandCreated .* event_id: 351, event_type: WorkflowExecutionUpdateAccepted/,
    );
  }, 120_000);
});
