// Records the histories of the v0.8 patch `v0.8-armed-handoffs` on the time-skipping server: recurring ALLOW
// JOBs armed ahead of their slots (a 2-minute lead), a frequent one that arms several slots per task, and a
// pause, an edit, a revocation and a cancel inside the lead (each a disarm activity), and an armed run that
// continues as new. The schedule's own history is what replays; the time-skipping server does not begin
// delayed starts on time when it skips (src/testing/index.ts), which no recorded event depends on.
//   node --import tsx test/histories/record-armed.ts test/histories/v0.8.0
import '../helpers/quiet-sdk.js';
import { scheduleWorkflowId } from '../../src/model/ids.js';
import { armedTargetsRefusedSignal, ownerRevokedSignal } from '../../src/workflows/definitions.js';
import { startScheduleDirectly } from '../helpers/schedule-workflow.js';
import { JOB_QUEUE, SchedulerHarness } from '../helpers/scheduler-harness.js';
import { historySaver, recordingDirectory, writeRecordedHistory } from './recorded.js';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const LEAD = 2 * MINUTE;
const outDir = recordingDirectory('record-armed.ts <output directory>');

const h = await SchedulerHarness.start();
// The lead alone, as these were recorded in 0.8; arming ahead: 'armed-batched' below.
const sdk = h.sdk('acme', 'ops', { armLeadMs: LEAD, armAheadMs: 0 });
const job = { type: 'JOB' as const, job_type: 'recordedJob', task_queue: JOB_QUEUE };
const hourly = { kind: 'CRON' as const, expression: '0 * * * *', timezone: 'UTC' };
const save = historySaver(h.env.client, outDir);
/** Sleeps (skipping time) until `at` on the server's clock. */
const sleepUntil = async (at: number) => {
  const now = await h.now();
  if (at > now) await h.env.sleep(at - now);
};
const nextHour = async () => Math.ceil(((await h.now()) + 5 * MINUTE) / HOUR) * HOUR;

try {
  // Armed hourly for three hours: one task per slot, at its arming point.
  await sdk.create({ schedule_id: 'armed-hourly', target: job, timing: hourly });
  await h.env.sleep(3 * HOUR + 10 * MINUTE);
  await sdk.cancel('armed-hourly');

  // Every 15 s: each task arms the slots within the lead, at most ARMED_AT_MOST ahead.
  await sdk.create({
    schedule_id: 'armed-frequent',
    target: job,
    timing: { kind: 'INTERVAL', every: 'PT15S' },
  });
  await h.env.sleep(10 * MINUTE);
  await sdk.cancel('armed-frequent');

  // Pause inside the lead (disarmed), resume before the instant (armed again under the same ID).
  let slot = await nextHour();
  await sdk.create({ schedule_id: 'armed-pause', target: job, timing: hourly });
  await sleepUntil(slot - 30 * SECOND);
  await sdk.pause('armed-pause', 'maintenance', { wait: true });
  await h.env.sleep(5 * SECOND);
  await sdk.resume('armed-pause', { wait: true });
  await sleepUntil(slot + HOUR + 10 * MINUTE);
  await sdk.cancel('armed-pause');

  // An edit inside the lead: the armed job is replaced by one of version 2.
  slot = await nextHour();
  await sdk.create({ schedule_id: 'armed-edit', target: job, timing: hourly });
  await sleepUntil(slot - 30 * SECOND);
  await sdk.update('armed-edit', {
    expected_version: 1,
    spec: { target: { ...job, payload: { edited: true } }, timing: hourly },
  });
  await sleepUntil(slot + HOUR + 10 * MINUTE);
  await sdk.cancel('armed-edit');

  // A revocation inside the lead: the armed job is refused (SKIPPED), later slots too.
  slot = await nextHour();
  await sdk.create({ schedule_id: 'armed-revoked', target: job, timing: hourly });
  await sleepUntil(slot - 30 * SECOND);
  await h.env.client.workflow
    .getHandle(scheduleWorkflowId('acme', 'armed-revoked'))
    .signal(ownerRevokedSignal, { reason: 'owner acme/ops has no API key any more (recording)' });
  await sleepUntil(slot + HOUR + 10 * MINUTE);

  // A cancel inside the lead: the armed job is terminated, the occurrence CANCELLED.
  slot = await nextHour();
  await sdk.create({ schedule_id: 'armed-cancel', target: job, timing: hourly });
  await sleepUntil(slot - 30 * SECOND);
  await sdk.cancel('armed-cancel');
  await h.env.sleep(HOUR);

  // An armed run that continues as new, carrying what it armed.
  const continued = await startScheduleDirectly(h.env.client, {
    scheduleId: 'armed-continue',
    spec: { target: job, timing: { kind: 'INTERVAL', every: 'PT1M' } },
    createdAt: new Date(await h.now()).toISOString(),
    continueAsNewAfterEvents: 60,
    armLeadMs: LEAD,
  });
  await h.env.sleep(40 * MINUTE);
  await sdk.cancel('armed-continue');
  await h.env.sleep(MINUTE);

  // Since 0.11, armed ahead (armAheadMs, 10 minutes): every minute, up to ARMED_AT_MOST slots per task, the
  // slots of a task started by one activity (PATCHES.BATCHED_ARMING); a pause takes them all back, a resume
  // arms them again, an edit replaces them, a recompute and a policy change take them back, and the run
  // continues as new carrying them and its armAheadMs. (v0.11.0/armed-ahead-run-* were recorded before the
  // batches, one activity per slot; this records armed-batched-run-*.)
  const ahead = await startScheduleDirectly(h.env.client, {
    scheduleId: 'armed-batched',
    spec: { target: job, timing: { kind: 'INTERVAL', every: 'PT1M' } },
    createdAt: new Date(await h.now()).toISOString(),
    continueAsNewAfterEvents: 120,
    armLeadMs: LEAD,
    armAheadMs: 10 * MINUTE,
  });
  await h.env.sleep(25 * MINUTE + 30 * SECOND);
  await sdk.pause('armed-batched', 'maintenance', { wait: true });
  await h.env.sleep(3 * MINUTE);
  await sdk.resume('armed-batched', { wait: true });
  await h.env.sleep(7 * MINUTE);
  const edited = await sdk.describe('armed-batched');
  await sdk.update('armed-batched', {
    expected_version: edited.schedule.version,
    spec: { target: { ...job, payload: { edited: true } }, timing: { kind: 'INTERVAL', every: 'PT1M' } },
  });
  await h.env.sleep(7 * MINUTE);
  // A recompute takes the armed slots back and arms them again (PATCHES.RECOMPUTE_DISARMS); a policy
  // change refusing some armed jobs' targets takes those back, SKIPPED (PATCHES.POLICY_DISARMS).
  await sdk.recomputeSchedule('armed-batched', { reason: 'recording' });
  await h.env.sleep(2 * MINUTE);
  const armedNow = (await sdk.describe('armed-batched')).recent_occurrences
    .filter((o) => o.status === 'ARMED')
    .map((o) => o.occurrence_id);
  await h.env.client.workflow
    .getHandle(scheduleWorkflowId('acme', 'armed-batched'))
    .signal(armedTargetsRefusedSignal, {
      occurrence_ids: armedNow.slice(-2),
      reason: 'the tenant policy in force (recording) refuses it: target.job_type: not allowed',
    });
  await h.env.sleep(20 * MINUTE);
  await sdk.cancel('armed-batched');
  await h.env.sleep(MINUTE);

  await save('armed-hourly', 'armed-hourly');
  await save('armed-frequent', 'armed-frequent');
  await save('armed-pause', 'armed-pause');
  await save('armed-edit', 'armed-edit');
  await save('armed-revoked', 'armed-revoked');
  await save('armed-cancel', 'armed-cancel');
  await save('armed-continue-first-run', 'armed-continue', continued.firstExecutionRunId);
  await save('armed-continue-last-run', 'armed-continue');
  // Every run of the chain: the recompute and the policy change may land in any of them.
  let runId: string | null | undefined = ahead.firstExecutionRunId;
  for (let run = 1; runId; run++) {
    const history = await h.env.client.workflow
      .getHandle(scheduleWorkflowId('acme', 'armed-batched'), runId)
      .fetchHistory();
    writeRecordedHistory(outDir, `armed-batched-run-${run}`, history);
    runId = history.events?.find((e) => e.workflowExecutionContinuedAsNewEventAttributes)
      ?.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId;
  }
} finally {
  await h.teardown();
}
