// Records histories of real schedule runs for the replay test (test/unit/replay.test.ts), as Temporal's
// own scheduler keeps a recorded history per release (service/worker/scheduler/testdata/replay_v*.json.gz).
// Stored as gzipped binary protobuf (test/histories/recorded.ts says why).
// Run it when workflow code changes in a way that running schedules must survive, into a new directory
// named for the release (the time-skipping server must be installed: `npm run servers`):
//   node --import tsx test/histories/record.ts test/histories/v0.2.0 [--prefix handoff-]
// and keep every older directory: the replay test replays all of them, forever. `--prefix` starts every
// file name (two branches recording into one release directory then never write the same file).
import { parseArgs } from 'node:util';
import '../helpers/quiet-sdk.js';
import { occurrenceId } from '../../src/model/ids.js';
import { SCHEDULE_WORKFLOW_TYPE_V1 } from '../../src/workflows/definitions.js';
import { startScheduleDirectly } from '../helpers/schedule-workflow.js';
import { JOB_QUEUE, SchedulerHarness } from '../helpers/scheduler-harness.js';
import { historySaver, recordingDirectory } from './recorded.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const job = { type: 'JOB' as const, job_type: 'recordedJob' };

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: { prefix: { type: 'string', default: '' } },
});
const outDir = recordingDirectory(
  'record.ts <output directory> [--prefix <file name prefix>]',
  positionals[0],
);

const h = await SchedulerHarness.start();
const sdk = h.sdk();
const save = historySaver(h.env.client, outDir, values.prefix);

try {
  // One-time, in a zone, to completion.
  const at = new Date((await h.now()) + 3 * HOUR);
  await sdk.create({
    schedule_id: 'one-time',
    target: { ...job, payload_ref: 'state://x' },
    timing: { kind: 'ONE_TIME', at: at.toISOString() },
  });
  await h.env.sleep(3 * HOUR + MINUTE);
  await save('one-time', 'one-time');

  // A recurring schedule through every handler: edit, pause, resume (misfire), trigger, backfill, cancel.
  const { schedule } = await sdk.create({
    schedule_id: 'handlers',
    target: job,
    timing: { kind: 'CRON', expression: '0 * * * *', timezone: 'Europe/Riga' },
    misfire: 'CATCH_UP',
  });
  await h.env.sleep(2 * HOUR);
  await sdk.update('handlers', {
    expected_version: 1,
    spec: {
      target: job,
      timing: { kind: 'CRON', expression: '*/30 * * * *', timezone: 'Europe/Riga' },
      misfire: 'CATCH_UP',
    },
  });
  await h.env.sleep(HOUR);
  await sdk.pause('handlers', 'recording');
  await h.env.sleep(2 * HOUR);
  await sdk.resume('handlers');
  await h.env.sleep(MINUTE);
  await sdk.triggerNow('handlers', { reason: 'recording' });
  const created = Date.parse(schedule.created_at);
  await sdk.backfill('handlers', {
    from: new Date(created - 3 * HOUR).toISOString(),
    to: new Date(created).toISOString(),
  });
  await h.env.sleep(MINUTE);
  await sdk.cancel('handlers', { note: 'recording done' });
  await save('handlers', 'handlers');

  // Overlap QUEUE with a slow job.
  await sdk.create({
    schedule_id: 'queue',
    target: { ...job, payload: { sleep_ms: 150_000 } },
    timing: { kind: 'INTERVAL', every: 'PT1M' },
    overlap: 'QUEUE',
    queue_limit: 2,
  });
  await h.env.sleep(6 * MINUTE);
  await sdk.pause('queue');
  await h.env.sleep(10 * MINUTE); // let queued jobs finish before the schedule closes
  await sdk.cancel('queue');
  await save('overlap-queue', 'queue');

  // FIXED_DELAY: each slot counted from the previous job's completion.
  await sdk.create({
    schedule_id: 'fixed-delay',
    target: { ...job, payload: { sleep_ms: 90_000 } },
    timing: { kind: 'INTERVAL', every: 'PT1M', mode: 'FIXED_DELAY' },
  });
  await h.env.sleep(8 * MINUTE);
  await sdk.pause('fixed-delay');
  await h.env.sleep(3 * MINUTE);
  await sdk.cancel('fixed-delay');
  await save('fixed-delay', 'fixed-delay');

  // DEADLINE with reminders, to completion.
  const deadline = new Date((await h.now()) + 2 * 24 * HOUR);
  await sdk.create({
    schedule_id: 'deadline',
    target: job,
    timing: { kind: 'DEADLINE', at: deadline.toISOString(), reminders: ['P1D', 'PT1H'] },
  });
  await h.env.sleep(2 * 24 * HOUR + MINUTE);
  await save('deadline', 'deadline');

  // WORKFLOW_SIGNAL with signal-with-start, through the handOff activity.
  await sdk.create({
    schedule_id: 'signal',
    target: {
      type: 'WORKFLOW_SIGNAL',
      workflow_id: 'recording-inbox',
      signal_name: 'occurrence',
      start: { workflow_type: 'signalInbox', task_queue: JOB_QUEUE },
    },
    timing: { kind: 'INTERVAL', every: 'PT1H' },
  });
  await h.env.sleep(2 * HOUR + MINUTE);
  await sdk.cancel('signal');
  await h.env.client.workflow.getHandle('recording-inbox').terminate();
  await save('signal-with-start', 'signal');

  // An edit (the version goes into the memo), then continue-as-new carrying the memo (v0.2.0 on). A
  // signal target, not a JOB: the time-skipping server stops skipping time for good once a workflow
  // closed (here: continued as new) while a child it abandoned still ran.
  const inbox = {
    type: 'WORKFLOW_SIGNAL' as const,
    workflow_id: 'recording-inbox-2',
    signal_name: 'occurrence',
    start: { workflow_type: 'signalInbox', task_queue: JOB_QUEUE },
  };
  const edited = await startScheduleDirectly(h.env.client, {
    scheduleId: 'edit-continue',
    spec: { target: inbox, timing: { kind: 'INTERVAL', every: 'PT1M' } },
    createdAt: new Date(await h.now()).toISOString(),
    continueAsNewAfterEvents: 60,
    memo: { SchedulerVersion: 1 },
  });
  await h.env.sleep(3 * MINUTE + 1000);
  await sdk.update('edit-continue', {
    expected_version: 1,
    spec: { target: inbox, timing: { kind: 'INTERVAL', every: 'PT2M' } },
  });
  await h.env.sleep(HOUR);
  await sdk.cancel('edit-continue');
  await h.env.client.workflow.getHandle('recording-inbox-2').terminate();
  await save('edit-continue-first-run', 'edit-continue', edited.firstExecutionRunId);
  await save('edit-continue-last-run', 'edit-continue');

  // A recurring ALLOW schedule (its jobs start from a local activity) whose second slot's job already
  // exists (a prevented duplicate), then edited to overlap SKIP (its jobs start as children again).
  await sdk.create({
    schedule_id: 'allow-then-skip',
    target: job,
    timing: { kind: 'INTERVAL', every: 'PT10M' },
  });
  const taken = (await sdk.describe('allow-then-skip')).next_runs[1]!.scheduled_for;
  const takenId = occurrenceId('acme', 'allow-then-skip', taken);
  await h.env.client.workflow.start('recordedJob', {
    workflowId: takenId,
    taskQueue: JOB_QUEUE,
    args: [{ occurrence_id: takenId, payload: null }],
  });
  await h.env.sleep(35 * MINUTE);
  await sdk.update('allow-then-skip', {
    expected_version: 1,
    spec: { target: job, timing: { kind: 'INTERVAL', every: 'PT10M' }, overlap: 'SKIP' },
  });
  await h.env.sleep(21 * MINUTE);
  await sdk.cancel('allow-then-skip');
  await save('allow-then-skip', 'allow-then-skip');

  // A catch-up that continues as new half-way: the first run's history ends in ContinuedAsNew.
  const handle = await startScheduleDirectly(h.env.client, {
    scheduleId: 'catch-up',
    spec: {
      target: job,
      timing: { kind: 'INTERVAL', every: 'PT1M' },
      misfire: 'CATCH_UP',
      catch_up_limit: 60,
      max_lateness_s: 30,
    },
    // Low enough that the catch-up passes it (since 0.2 its 60 starts are 60 markers of one workflow
    // task, no longer 120 child events).
    continueAsNewAfterEvents: 60,
  });
  await h.env.sleep(MINUTE + 1000);
  await sdk.pause('catch-up');
  await h.env.sleep(HOUR + 30_000);
  await sdk.resume('catch-up');
  await h.env.sleep(MINUTE + 10_000); // the next slot's task finds the history full and continues as new
  await sdk.cancel('catch-up');
  await save('catch-up-first-run', 'catch-up', handle.firstExecutionRunId);
  await save('catch-up-last-run', 'catch-up');

  // Since 0.11: a run of the first type that behaves as the second continues as new as the second
  // (PATCHES.RETIRE_ONTO_V2); recorded by older releases, such a run continues as its own type.
  const retiring = await startScheduleDirectly(h.env.client, {
    type: SCHEDULE_WORKFLOW_TYPE_V1,
    scheduleId: 'retire',
    spec: { target: job, timing: { kind: 'INTERVAL', every: 'PT1M' } },
    continueAsNewAfterEvents: 60,
  });
  await h.env.sleep(12 * MINUTE + 10_000);
  await sdk.cancel('retire');
  await save('retire-first-run', 'retire', retiring.firstExecutionRunId);
  await save('retire-last-run', 'retire');

  // Since 0.11: business days (the n-th of a month, and a daily rule rolled off closed days).
  await sdk.create({
    schedule_id: 'business-day',
    target: job,
    timing: { kind: 'BUSINESS_DAY', period: 'MONTH', n: 1, time: '09:00', timezone: 'Europe/Riga' },
    business_days: { region: 'LV' },
  });
  await sdk.create({
    schedule_id: 'business-roll',
    target: job,
    timing: { kind: 'CRON', expression: '0 9 * * 6', timezone: 'Europe/Riga' },
    business_days: { region: 'LV', roll: 'FORWARD' },
  });
  await h.env.sleep(40 * 24 * HOUR);
  await sdk.cancel('business-day');
  await sdk.cancel('business-roll');
  await save('business-day', 'business-day');
  await save('business-roll', 'business-roll');
} finally {
  await h.teardown();
}
