// Records histories of schedules created asleep (0.9: started with a delay to their first arming point) for
// the replay test, on the dev server in real time (the time-skipping server does not begin a delayed start
// when it skips): one woken by a read (the `wake` update in its first task), one paused while asleep (the
// signal and the wake in its first task), and one the server woke at its arming point, whose first task
// armed its job, which then ran. Each is then cancelled. Like record.ts (which explains the format):
//   node --import tsx test/histories/record-asleep.ts test/histories/v0.9.0
import { join } from 'node:path';
import '../helpers/quiet-sdk.js';
import { SchedulerClient, WAKE_MARGIN_MS } from '../../src/api/client.js';
import { armAtMs } from '../../src/model/arming.js';
import {
  eventually,
  JOB_QUEUE,
  SCHEDULER_QUEUE,
  startStack,
  startWorker,
  stopStack,
} from '../integration/support.js';
import { historySaver, recordingDirectory } from './recorded.js';

const LEAD_MS = 2 * WAKE_MARGIN_MS + 10_000;
const outDir = recordingDirectory('record-asleep.ts <output directory>');

const stack = await startStack('record-asleep-');
try {
  await startWorker(stack, { ROLES: 'jobs,scheduler', RUN_LOG: join(stack.dir, 'runs.jsonl') });
  const sdk = new SchedulerClient({
    client: stack.client,
    taskQueue: SCHEDULER_QUEUE,
    jobTaskQueue: JOB_QUEUE,
    principal: { tenant_id: 'acme', owner_ref: 'ops' },
    armLeadMs: LEAD_MS,
  });
  const job = { type: 'JOB' as const, job_type: 'fileRecordedJob', task_queue: JOB_QUEUE };
  const save = historySaver(stack.client, outDir);
  const daily = { kind: 'CRON' as const, expression: '0 9 * * *', timezone: 'Europe/Riga' };

  await sdk.create({ schedule_id: 'asleep-read', target: job, timing: daily });
  await sdk.describe('asleep-read');
  await sdk.create({ schedule_id: 'asleep-pause', target: job, timing: daily });
  await sdk.pause('asleep-pause', 'not yet');
  await sdk.resume('asleep-pause');
  const created = await sdk.create({
    schedule_id: 'asleep-armed',
    target: job,
    timing: { kind: 'INTERVAL', every: 'PT4M' },
  });
  const firstRun = Date.parse(created.schedule.next_run_at!);
  console.log(`asleep-armed wakes at ${new Date(armAtMs(firstRun, LEAD_MS, 'asleep-armed')).toISOString()}`);
  // Not read until its first slot was handed off and begun: the server's own wake runs its first task.
  await new Promise((r) => setTimeout(r, firstRun + 10_000 - Date.now()));
  await eventually(
    'asleep-armed handed off its first slot',
    async () => ((await sdk.describe('asleep-armed')).counters.fired >= 1 ? true : undefined),
    60_000,
  );
  for (const id of ['asleep-read', 'asleep-pause', 'asleep-armed']) await sdk.cancel(id);
  await new Promise((r) => setTimeout(r, 3_000));
  for (const id of ['asleep-read', 'asleep-pause', 'asleep-armed']) await save(id);
} finally {
  await stopStack(stack);
}
