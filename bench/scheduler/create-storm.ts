/**
 * Creation storm (issue 11): how fast the SDK creates schedules, and how many creates fail, with no
 * scheduler worker, an idle one, or a busy one, on a fresh Temporal dev server (temp SQLite file).
 *
 *   node --import tsx bench/scheduler/create-storm.ts [--creates 1000] [--concurrency 20]
 *        [--worker none|idle|busy] [--background 300]
 *
 * `busy`: before the storm, `--background` schedules firing every 10 s (JOB target `noopJob`), started
 * with the workflow API directly (so the background is the same whatever the SDK's create does), keep
 * the scheduler worker saturated. The storm's schedules fire hourly, so they add only their first
 * workflow task. Reports creates/s, create latency p50/p95/max and the failures by message. Each create
 * is tried once: a failure is what a caller would have seen.
 */
import { cpus } from 'node:os';
import { ScheduleSpec } from '../../src/model/contracts.js';
import { scheduleWorkflowId } from '../../src/model/ids.js';
import { SCHEDULE_WORKFLOW_TYPE } from '../../src/workflows/definitions.js';
import {
  pool,
  quantile,
  type Stack,
  startStack,
  startWorker,
  stopStack,
} from '../../test/integration/support.js';
import { benchArgs, integer, oneOf } from '../args.js';
import { log, sleep } from './common.js';

const args = benchArgs('node --import tsx bench/scheduler/create-storm.ts', {
  creates: integer(1000, 'schedules the storm creates'),
  concurrency: integer(20, 'creates in flight'),
  worker: oneOf(['none', 'idle', 'busy'], 'idle', 'the scheduler worker'),
  background: integer(300, 'with --worker busy: schedules firing every 10 s'),
});
const N = args.creates;
const CONCURRENCY = args.concurrency;
const MODE = args.worker;
const BACKGROUND = args.background;

let stack: Stack | undefined;
try {
  stack = await startStack('bench-create-storm');
  const { sdk, client } = stack;
  log(`dev server ${stack.server.address}; worker: ${MODE}`);
  if (MODE !== 'none') {
    await Promise.all([startWorker(stack, { ROLES: 'scheduler' }), startWorker(stack, { ROLES: 'jobs' })]);
    log('workers polling');
  }
  if (MODE === 'busy') {
    const spec = ScheduleSpec.parse({
      target: { type: 'JOB', job_type: 'noopJob' },
      timing: { kind: 'INTERVAL', every: 'PT10S' },
    });
    await pool(
      Array.from({ length: BACKGROUND }, (_, i) => `background-${i}`),
      CONCURRENCY,
      (id) =>
        client.workflow.start(SCHEDULE_WORKFLOW_TYPE, {
          taskQueue: 'scheduler',
          workflowId: scheduleWorkflowId('acme', id),
          args: [
            {
              identity: { schedule_id: id, tenant_id: 'acme', owner_ref: 'ops' },
              spec,
              defaultJobTaskQueue: 'jobs',
            },
          ],
        }),
    );
    log(`${BACKGROUND} background schedules (every 10 s) started; letting them load the worker for 30 s`);
    await sleep(30_000);
  }

  const ids = Array.from({ length: N }, (_, i) => `storm-${String(i).padStart(5, '0')}`);
  const latencies: number[] = [];
  const failures = new Map<string, number>();
  const start = Date.now();
  await pool(ids, CONCURRENCY, async (id) => {
    const began = Date.now();
    try {
      await sdk.create({
        schedule_id: id,
        target: { type: 'JOB', job_type: 'noopJob' },
        timing: { kind: 'INTERVAL', every: 'PT1H' },
      });
      latencies.push(Date.now() - began);
    } catch (err) {
      const message = (err as Error).message.replace(/storm-\d+/g, '<id>').slice(0, 120);
      failures.set(message, (failures.get(message) ?? 0) + 1);
    }
  });
  const elapsed = (Date.now() - start) / 1000;
  latencies.sort((a, b) => a - b);
  const failed = [...failures.values()].reduce((s, n) => s + n, 0);
  console.log(
    [
      `| worker | creates | succeeded | failed | elapsed | creates/s | latency p50 / p95 / max |`,
      `|---|---:|---:|---:|---:|---:|---|`,
      `| ${MODE}${MODE === 'busy' ? ` (${BACKGROUND} schedules every 10 s)` : ''} | ${N} | ${N - failed} | ${failed} | ${elapsed.toFixed(1)} s | ${(N / elapsed).toFixed(1)} | ${quantile(latencies, 0.5)} / ${quantile(latencies, 0.95)} / ${latencies.at(-1) ?? '—'} ms |`,
      '',
      ...[...failures.entries()].map(([m, n]) => `- ${n} × ${m}`),
      `node --import tsx bench/scheduler/create-storm.ts --creates ${N} --concurrency ${CONCURRENCY} --worker ${MODE}${MODE === 'busy' ? ` --background ${BACKGROUND}` : ''}; ${cpus().length} cores, Node ${process.version}`,
    ].join('\n'),
  );
} finally {
  await stopStack(stack);
}
