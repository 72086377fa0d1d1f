// Records a history of the owner registry (src/workflows/owner-registry.ts) on the time-skipping server:
// the reports two API replicas send while a key edit reaches one before the other, each stamped with its
// configuration's generation (OWNER_REGISTRY_PATCHES.GENERATIONS), and one from an API before 0.11 (no
// generation). Recorded by the workflow code of the checkout it runs in, so 0.10.0's registry (which
// ignores generations: an upgraded API in front of a worker not yet upgraded) and the patched one record
// the same reports:
//   node --import tsx test/histories/record-owner-registry.ts test/histories/owner-registry v0.11.0-generations
// test/unit/replay.test.ts replays every file of test/histories/owner-registry and checks each recorded
// answer against the rule its side of the patch selects.
import '../helpers/quiet-sdk.js';
import { WithStartWorkflowOperation } from '@temporalio/client';
import {
  OWNER_REGISTRY_WORKFLOW_ID,
  OWNER_REGISTRY_WORKFLOW_TYPE,
  reconcileOwnersUpdate,
} from '../../src/workflows/definitions.js';
import { SCHEDULER_QUEUE, SchedulerHarness } from '../helpers/scheduler-harness.js';
import { recordingDirectory, writeRecordedHistory } from './recorded.js';

const outDir = recordingDirectory(
  'record-owner-registry.ts <output directory> <name>',
  process.argv[2] && process.argv[3] ? process.argv[2] : undefined,
);
const name = process.argv[3] as string;

/** When each configuration was written: the edit that adds dave at T1, the one that removes carol at T2. */
const T0 = Date.parse('2026-11-02T09:00:00Z');
const T1 = T0 + 3_600_000;
const T2 = T1 + 3_600_000;
const owners = ['acme/alice', 'acme/bob', 'acme/carol', 'globex/gina', 'globex/hal'];
const withDave = [...owners, 'acme/dave'].sort();
const withoutCarol = withDave.filter((o) => o !== 'acme/carol');
/** In the order the replicas send them. */
const REPORTS: Array<{ present: string[]; generation?: number }> = [
  { present: owners, generation: T0 }, // the first report: only learns
  { present: withDave, generation: T1 }, // replica 1 reads the edit that adds dave
  { present: owners, generation: T0 }, // replica 2, not reached yet: must not revoke dave
  { present: withoutCarol, generation: T2 }, // the next edit removes carol: revoked
  { present: withDave, generation: T1 }, // replica 2 catches up one edit only: must not bring carol back
  { present: withoutCarol }, // an API before 0.11: taken whole
];

const h = await SchedulerHarness.start();
try {
  for (const report of REPORTS) {
    const answer = await h.env.client.workflow.executeUpdateWithStart(reconcileOwnersUpdate, {
      args: [{ ...report, allowMassRevocation: false, maxShare: 0.5 }],
      startWorkflowOperation: new WithStartWorkflowOperation(OWNER_REGISTRY_WORKFLOW_TYPE, {
        workflowId: OWNER_REGISTRY_WORKFLOW_ID,
        taskQueue: SCHEDULER_QUEUE,
        workflowIdConflictPolicy: 'USE_EXISTING',
        args: [],
      }),
    });
    console.log(JSON.stringify(report.generation ?? null), JSON.stringify(answer));
  }
  const history = await h.env.client.workflow.getHandle(OWNER_REGISTRY_WORKFLOW_ID).fetchHistory();
  writeRecordedHistory(outDir, name, history);
} finally {
  await h.teardown();
}
