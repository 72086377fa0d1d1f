// The cost of the tz horizon (issue #23): what a schedule's history holds per simulated day, by kind of
// schedule, on the time-skipping server (server time skips; nothing here measures speed). Run it on two
// checkouts to compare releases side by side:
//   node --import tsx bench/scheduler/tz-horizon.ts [--days 60]
// Per schedule kind: slot-batch activities per day, history events per day and per fire.
import { parseArgs } from 'node:util';
import '../../test/helpers/quiet-sdk.js';
import { scheduleWorkflowId } from '../../src/model/ids.js';
import { SchedulerHarness } from '../../test/helpers/scheduler-harness.js';

const DAY = 24 * 3_600_000;
const { values } = parseArgs({ options: { days: { type: 'string', default: '60' } } });
const days = Number(values.days);
const job = { type: 'JOB' as const, job_type: 'recordedJob' };

const kinds = {
  'every 10 min (UTC)': { kind: 'INTERVAL', every: 'PT10M' },
  'hourly, Europe/Riga': { kind: 'CRON', expression: '0 * * * *', timezone: 'Europe/Riga' },
  'daily 09:00, Europe/Riga': { kind: 'CRON', expression: '0 9 * * *', timezone: 'Europe/Riga' },
  'weekly Mon 09:00, Europe/Riga': { kind: 'CRON', expression: '0 9 * * 1', timezone: 'Europe/Riga' },
  'monthly 1st 09:00, Europe/Riga': { kind: 'CRON', expression: '0 9 1 * *', timezone: 'Europe/Riga' },
} as const;

const h = await SchedulerHarness.start();
try {
  const sdk = h.sdk();
  const ids = Object.keys(kinds).map((name, i) => ({ name, id: `k${i}` }));
  for (const { name, id } of ids)
    await sdk.create({ schedule_id: id, target: job, timing: kinds[name as keyof typeof kinds] as never });
  // Continue-as-new would split a history across runs: count every run of each schedule.
  await h.env.sleep(days * DAY);
  console.log(`| schedule | fires | slot batches / day | events / day | events / fire |`);
  console.log(`|---|---:|---:|---:|---:|`);
  for (const { name, id } of ids) {
    const workflowId = scheduleWorkflowId('acme', id);
    let events = 0;
    let batches = 0;
    // The first run, then each run it continued as new into (the time-skipping server lists nothing).
    const latest = await h.env.client.workflow.getHandle(workflowId).describe();
    let runId: string | null | undefined = latest.raw.workflowExecutionInfo?.firstRunId ?? latest.runId;
    while (runId) {
      const history = await h.env.client.workflow.getHandle(workflowId, runId).fetchHistory();
      runId = null;
      for (const e of history.events ?? []) {
        events += 1;
        if (e.activityTaskScheduledEventAttributes?.activityType?.name === 'computeSlotBatch') batches += 1;
        runId ??= e.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId;
      }
    }
    const fired = (await sdk.describe(id)).counters.fired;
    console.log(
      `| ${name} | ${fired} | ${(batches / days).toFixed(3)} | ${(events / days).toFixed(1)} | ${(events / Math.max(fired, 1)).toFixed(2)} |`,
    );
  }
} finally {
  await h.teardown();
}
