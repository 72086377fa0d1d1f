// Records the history of a labelled schedule (issue 42) on the time-skipping server: labels set at start,
// changed by an edit (the run upserts SchedulerLabels), removed (the run clears it), set again; a JOB with
// a `retry` policy started as a child (one-time timing of its own schedule). Replayed by test/unit/replay.test.ts.
//   node --import tsx test/histories/record-labels.ts test/histories/v0.11.0
import '../helpers/quiet-sdk.js';
import { SchedulerHarness } from '../helpers/scheduler-harness.js';
import { historySaver, recordingDirectory } from './recorded.js';

const MINUTE = 60_000;
const outDir = recordingDirectory('record-labels.ts <output directory>');

const h = await SchedulerHarness.start();
const sdk = h.sdk();
const save = historySaver(h.env.client, outDir);

try {
  const created = await sdk.create({
    schedule_id: 'labels',
    timing: { kind: 'INTERVAL', every: 'PT10M' },
    target: { type: 'JOB', job_type: 'recordedJob' },
    labels: { team: 'payments', env: 'prod' },
  });
  await h.env.sleep(15 * MINUTE);
  let version = created.schedule.version;
  for (const labels of [{ team: 'payments', env: 'dev' }, null, { team: 'shipping' }]) {
    version = (await sdk.patch('labels', { expected_version: version, labels })).version;
    await h.env.sleep(12 * MINUTE);
  }
  await sdk.cancel('labels');
  await save('labels', 'labels');

  await sdk.create({
    schedule_id: 'retried-job',
    timing: { kind: 'DELAY', delay: 'PT10M' },
    target: {
      type: 'JOB',
      job_type: 'flakyJob',
      payload: { succeed_on_attempt: 2 },
      retry: { attempts: 3, initial_interval_s: 10 },
    },
  });
  await h.env.sleep(12 * MINUTE);
  await save('retried-job', 'retried-job');
} finally {
  await h.teardown();
}
