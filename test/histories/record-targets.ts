// Records the histories of the v0.5 patch `v0.5-targets-bound-to-tenant` on the time-skipping server: a JOB
// started as a child that the tenant policy refuses (the authorizeTarget activity before the start
// command), and a revoked QUEUE schedule (trigger refused in the loop, its queued occurrence refused, a
// resume signal that no longer clears the revocation, the takeover update that does).
//   node --import tsx test/histories/record-targets.ts test/histories/v0.5.0
import '../helpers/quiet-sdk.js';
import { scheduleWorkflowId } from '../../src/model/ids.js';
import { TenantPolicy } from '../../src/model/tenant-policy.js';
import { ownerRevokedSignal, resumeSignal, takeOverUpdate } from '../../src/workflows/definitions.js';
import { SchedulerHarness } from '../helpers/scheduler-harness.js';
import { historySaver, recordingDirectory } from './recorded.js';

const MINUTE = 60_000;
const outDir = recordingDirectory('record-targets.ts <output directory>');

// acme may start `recordedJob` only; `forbiddenJob` is what the policy refuses at hand-off.
const policy = TenantPolicy.fromTenants({
  acme: { job_task_queues: ['jobs'], job_types: ['recordedJob'], signal_workflow_ids: ['*'] },
});
const h = await SchedulerHarness.start({ tenantPolicy: () => policy });
const sdk = h.sdk();
const save = historySaver(h.env.client, outDir);

try {
  // Created through an SDK without a policy (as before the policy existed); refused by the worker's.
  await sdk.create({
    schedule_id: 'refused-child',
    timing: { kind: 'INTERVAL', every: 'PT10M' },
    target: { type: 'JOB', job_type: 'forbiddenJob' },
    overlap: 'SKIP',
  });
  await h.env.sleep(25 * MINUTE);
  await sdk.cancel('refused-child');
  await save('refused-child', 'refused-child');

  // recordedJob runs for a while (fixtures/jobs.ts: payload.sleep_ms says how long), so later slots queue.
  await sdk.create({
    schedule_id: 'revoked-queue',
    timing: { kind: 'INTERVAL', every: 'PT5M' },
    target: { type: 'JOB', job_type: 'recordedJob', payload: { sleep_ms: 12 * MINUTE } },
    overlap: 'QUEUE',
  });
  await h.env.sleep(11 * MINUTE);
  const handle = h.env.client.workflow.getHandle(scheduleWorkflowId('acme', 'revoked-queue'));
  await handle.signal(ownerRevokedSignal, { reason: 'owner acme/ops has no API key any more (recording)' });
  await h.env.sleep(MINUTE);
  await sdk.triggerNow('revoked-queue').then(
    () => {
      throw new Error('a trigger of a revoked schedule must be refused');
    },
    (err: Error) => console.log(`trigger refused: ${err.message}`),
  );
  await h.env.sleep(10 * MINUTE);
  await handle.signal(resumeSignal, { owner_ref: 'mallory' });
  await h.env.sleep(MINUTE);
  console.log('takeover:', await handle.executeUpdate(takeOverUpdate, { args: [{ owner_ref: 'bob' }] }));
  await h.env.sleep(6 * MINUTE);
  await sdk.cancel('revoked-queue');
  await save('revoked-queue', 'revoked-queue');
} finally {
  await h.teardown();
}
