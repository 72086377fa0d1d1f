// Records the history of a schedule with failure hooks (issue 42) on the time-skipping server: a watched JOB
// that fails twice sets on_failure off (the schedule pauses itself, a FAILING notice is signalled to an inbox
// started for it), an edit to a job that succeeds, a resume, and the RECOVERED notice. Replayed by
// test/unit/replay.test.ts.
//   node --import tsx test/histories/record-hooks.ts test/histories/v0.11.0
import '../helpers/quiet-sdk.js';
import { JOB_QUEUE, SchedulerHarness } from '../helpers/scheduler-harness.js';
import { historySaver, recordingDirectory } from './recorded.js';

const MINUTE = 60_000;
const outDir = recordingDirectory('record-hooks.ts <output directory>');

const h = await SchedulerHarness.start();
const sdk = h.sdk();
const save = historySaver(h.env.client, outDir);

const inbox = {
  type: 'WORKFLOW_SIGNAL' as const,
  workflow_id: 'hooks-inbox',
  signal_name: 'occurrence',
  start: { workflow_type: 'signalInbox', task_queue: JOB_QUEUE },
};
const spec = {
  timing: { kind: 'INTERVAL' as const, every: 'PT10M' },
  overlap: 'SKIP' as const,
  misfire: 'SKIP' as const,
  on_failure: { after_consecutive: 2, pause: true, notify: inbox },
  on_recovery: { notify: inbox },
};

/** Activities run in real time while the server skips: wait until the schedule shows it. */
async function until(what: string, shows: (d: Awaited<ReturnType<typeof sdk.describe>>) => boolean) {
  for (const deadline = Date.now() + 60_000; Date.now() < deadline; ) {
    if (shows(await sdk.describe('failure-hooks'))) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`never: ${what}`);
}

try {
  await sdk.create({
    schedule_id: 'failure-hooks',
    target: { type: 'JOB', job_type: 'failingJob' },
    ...spec,
  });
  await h.env.sleep(25 * MINUTE);
  await until(
    'the hook paused it',
    (d) => d.failures?.paused_by_hook === true && d.failures.last_notice !== null,
  );
  await sdk.update('failure-hooks', {
    expected_version: 1,
    spec: { target: { type: 'JOB', job_type: 'recordedJob' }, ...spec },
  });
  await sdk.resume('failure-hooks');
  await h.env.sleep(12 * MINUTE);
  await until('recovered', (d) => d.failures?.last_notice?.kind === 'RECOVERED');
  await sdk.cancel('failure-hooks');
  await save('failure-hooks', 'failure-hooks');
} finally {
  await h.teardown();
}
