// Records the history of triggers and a backfill with a payload override (issue 42) on the time-skipping
// server: the override kept once in the state, each run named `…~override-<digest>`, the same override
// again answered as the same occurrence. Replayed by test/unit/replay.test.ts.
//   node --import tsx test/histories/record-override.ts test/histories/v0.11.0
import '../helpers/quiet-sdk.js';
import { SchedulerHarness } from '../helpers/scheduler-harness.js';
import { historySaver, recordingDirectory } from './recorded.js';

const HOUR = 3_600_000;
const outDir = recordingDirectory('record-override.ts <output directory>');

const h = await SchedulerHarness.start();
const sdk = h.sdk();
const save = historySaver(h.env.client, outDir);

try {
  await sdk.create({
    schedule_id: 'payload-override',
    timing: { kind: 'INTERVAL', every: 'PT1H' },
    target: { type: 'JOB', job_type: 'recordedJob', payload: { scope: 'delta' } },
  });
  await h.env.sleep(3 * HOUR + 60_000);
  const now = await h.now();
  const override = { payload: { scope: 'full' } };
  await sdk.triggerNow('payload-override', { override });
  await sdk.triggerNow('payload-override', { override: { payload_ref: 'state://reindex/all' } });
  const range = { from: new Date(now - 3 * HOUR - 60_000).toISOString(), to: new Date(now).toISOString() };
  await sdk.backfill('payload-override', { ...range, override });
  await sdk.backfill('payload-override', { ...range, override });
  await h.env.sleep(HOUR);
  await sdk.cancel('payload-override');
  await save('payload-override', 'payload-override');
} finally {
  await h.teardown();
}
