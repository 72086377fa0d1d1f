/**
 * Scheduler lateness and history cost at a burst: N schedules (default 1,000) all due at the same
 * minute boundary, on a fresh Temporal dev server (temp SQLite file), with the real scheduler worker and
 * a job worker as separate processes (test/fixtures/worker-process.ts).
 *
 *   node --import tsx bench/scheduler/lateness.ts [--schedules 1000] [--concurrency 20]
 *
 * Each schedule is ONE_TIME at the same instant T with a JOB target (`noopJob`, which returns at once).
 * After all fired and completed it reports, from each schedule's own `describe`, the lateness
 * emitted_at − scheduled_for (p50/p95/p99/max), the target's start (the job workflow's start time from
 * visibility) − scheduled_for, and the server history events per fire: the schedule workflow's whole
 * history (a one-time schedule: creation, slot batch, timer, handoff, completion) and the job's own.
 * Prints a markdown table, the command and the machine.
 */
import { execFileSync } from 'node:child_process';
import { cpus, totalmem } from 'node:os';
import { parseArgs } from 'node:util';
import type { Client } from '@temporalio/client';
import { findTemporalCli } from '../../scripts/toolchain.mjs';
import type { ScheduleDescription } from '../../src/model/contracts.js';
import { scheduleWorkflowId } from '../../src/model/ids.js';
import { type Stack, startStack, startWorker, stopStack } from '../../test/integration/support.js';

const { values } = parseArgs({
  options: {
    schedules: { type: 'string', default: '1000' },
    concurrency: { type: 'string', default: '20' },
  },
});
const N = Number(values.schedules);
const CONCURRENCY = Number(values.concurrency);
const TENANT = 'acme';
const t0 = Date.now();
const log = (msg: string) => console.error(`[${((Date.now() - t0) / 1000).toFixed(1).padStart(6)} s] ${msg}`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, Math.max(ms, 0)));
const tsMs = (t: { seconds?: unknown; nanos?: number | null } | null | undefined) =>
  Number(t?.seconds ?? 0) * 1000 + Math.floor((t?.nanos ?? 0) / 1e6);

/** Runs `fn` over `items` with at most `limit` in flight; results in input order. */
async function pool<T, R>(items: T[], limit: number, fn: (item: T, i: number) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await fn(items[i]!, i);
      }
    }),
  );
  return out;
}

function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[i]!;
}
const ms = (v: number) => (Number.isFinite(v) ? `${Math.round(v)} ms` : '—');

async function retry<T>(what: string, fn: () => Promise<T>, attempts = 5): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await fn();
    } catch (err) {
      if (i >= attempts) throw new Error(`${what}: ${(err as Error).message}`);
      await sleep(250 * i);
    }
  }
}

async function count(client: Client, query: string): Promise<number> {
  return (await client.workflow.count(query)).count;
}

let stack: Stack | undefined;
try {
  stack = await startStack('bench-lateness');
  const { sdk, client } = stack;
  log(`dev server ${stack.server.address} (db in ${stack.dir})`);
  // Scheduler and jobs in two processes: the deployment's shape, and each gets a core.
  await Promise.all([startWorker(stack, { ROLES: 'scheduler' }), startWorker(stack, { ROLES: 'jobs' })]);
  log('workers polling');

  // T: a minute boundary far enough ahead for every create to land before it (estimated at a
  // conservative 10 creates/s, plus 30 s of margin).
  const T = Math.ceil((Date.now() + 30_000 + (N / 10) * 1000) / 60_000) * 60_000;
  const at = new Date(T).toISOString();
  log(`creating ${N} ONE_TIME schedules due at ${at} (concurrency ${CONCURRENCY})`);
  const ids = Array.from({ length: N }, (_, i) => `burst-${String(i).padStart(5, '0')}`);
  const createStart = Date.now();
  await pool(ids, CONCURRENCY, (id) =>
    retry(`create ${id}`, () =>
      sdk.create({
        schedule_id: id,
        target: { type: 'JOB', job_type: 'noopJob' },
        timing: { kind: 'ONE_TIME', at },
        max_lateness_s: 3600, // lateness is measured here, not judged: no slot may be dropped as a misfire
      }),
    ),
  );
  const createMs = Date.now() - createStart;
  log(
    `created in ${(createMs / 1000).toFixed(1)} s (${(N / (createMs / 1000)).toFixed(0)}/s); ${((T - Date.now()) / 1000).toFixed(0)} s until T`,
  );
  if (Date.now() > T) throw new Error('creation did not finish before T: the burst is not in one minute');

  await sleep(T - Date.now());
  log('T reached; waiting until every schedule completed');
  const completedQuery = `WorkflowType = 'scheduleWorkflow' AND ExecutionStatus = 'Completed'`;
  const deadline = T + 6 * 60_000;
  for (;;) {
    const done = await count(client, completedQuery);
    if (done >= N) break;
    if (Date.now() > deadline) throw new Error(`only ${done}/${N} schedules completed 6 min after T`);
    await sleep(2000);
  }
  const allCompletedMs = Date.now() - T;
  log(`all ${N} schedules completed (seen ${(allCompletedMs / 1000).toFixed(1)} s after T)`);

  const descriptions = await pool(ids, CONCURRENCY, (id) => retry(`describe ${id}`, () => sdk.describe(id)));
  const lateness: number[] = [];
  let failed = 0;
  let fires = 0;
  for (const d of descriptions as ScheduleDescription[]) {
    for (const o of d.recent_occurrences) {
      if (o.emitted_at === null) continue;
      fires += 1;
      lateness.push(Date.parse(o.emitted_at) - Date.parse(o.scheduled_for));
      if (o.status !== 'COMPLETED') failed += 1;
    }
  }
  lateness.sort((a, b) => a - b);
  log(`described: ${fires} fires, ${failed} not COMPLETED`);

  // The target's start as the server recorded it (visibility), against the slot.
  const targetStart: number[] = [];
  for await (const wf of client.workflow.list({ query: `WorkflowType = 'noopJob'` })) {
    targetStart.push(wf.startTime.getTime() - T);
  }
  targetStart.sort((a, b) => a - b);

  // History events: every schedule workflow's whole history, and every job's.
  const scheduleEvents = await pool(ids, CONCURRENCY, async (id) => {
    const h = await retry(`history ${id}`, () =>
      client.workflow.getHandle(scheduleWorkflowId(TENANT, id)).fetchHistory(),
    );
    return h.events ?? [];
  });
  const jobIds = (descriptions as ScheduleDescription[]).flatMap((d) =>
    d.recent_occurrences.filter((o) => o.emitted_at !== null).map((o) => o.occurrence_id),
  );
  const jobEvents = await pool(jobIds, CONCURRENCY, async (id) => {
    const h = await retry(`history ${id}`, () => client.workflow.getHandle(id).fetchHistory());
    return h.events?.length ?? 0;
  });
  const totalScheduleEvents = scheduleEvents.reduce((s, e) => s + e.length, 0);
  const totalJobEvents = jobEvents.reduce((s, n) => s + n, 0);
  const byType = new Map<string, number>();
  for (const events of scheduleEvents) {
    for (const e of events) {
      const key = Object.keys(e).find(
        (k) => k.endsWith('EventAttributes') && (e as Record<string, unknown>)[k],
      );
      const name = key ? key.replace(/EventAttributes$/, '') : 'unknown';
      byType.set(name, (byType.get(name) ?? 0) + 1);
    }
  }
  // When the last schedule's timer fired (server time), for context: how long the server took to
  // deliver the burst at all, before any worker saw it.
  const timerFired = scheduleEvents
    .map((events) => events.find((e) => e.timerFiredEventAttributes))
    .filter((e) => e !== undefined)
    .map((e) => tsMs(e!.eventTime) - T)
    .sort((a, b) => a - b);

  const cli = findTemporalCli();
  const cliVersion = cli ? execFileSync(cli, ['--version']).toString().trim() : 'unknown';
  const lines = [
    `### Scheduler burst: ${N} ONE_TIME schedules due at the same instant (JOB target)`,
    '',
    '| metric | p50 | p95 | p99 | max |',
    '|---|---|---|---|---|',
    `| lateness (emitted_at − scheduled_for) | ${ms(quantile(lateness, 0.5))} | ${ms(quantile(lateness, 0.95))} | ${ms(quantile(lateness, 0.99))} | ${ms(lateness.at(-1)!)} |`,
    `| target workflow started − scheduled_for | ${ms(quantile(targetStart, 0.5))} | ${ms(quantile(targetStart, 0.95))} | ${ms(quantile(targetStart, 0.99))} | ${ms(targetStart.at(-1)!)} |`,
    `| schedule's timer fired (server) − scheduled_for | ${ms(quantile(timerFired, 0.5))} | ${ms(quantile(timerFired, 0.95))} | ${ms(quantile(timerFired, 0.99))} | ${ms(timerFired.at(-1)!)} |`,
    '',
    '| metric | value |',
    '|---|---|',
    `| schedules / fires / fires not COMPLETED | ${N} / ${fires} / ${failed} |`,
    `| history events per fire, schedule workflow (whole one-time lifecycle: create → fire → job done → COMPLETED) | ${(totalScheduleEvents / fires).toFixed(1)} |`,
    `| history events per fire, the job workflow (noopJob) | ${(totalJobEvents / fires).toFixed(1)} |`,
    `| creation of ${N} schedules (SDK create, concurrency ${CONCURRENCY}) | ${(createMs / 1000).toFixed(1)} s (${(N / (createMs / 1000)).toFixed(0)}/s) |`,
    `| all schedules COMPLETED (visibility, polled every 2 s) | ≤ ${(allCompletedMs / 1000).toFixed(1)} s after T |`,
    '',
    `Schedule workflow events per fire by type: ${[...byType.entries()]
      .sort((a, b) => b[1] - a[1])
      .map(([k, v]) => `${k} ${(v / fires).toFixed(2)}`)
      .join(', ')}.`,
    '',
    `Command: \`node --import tsx bench/scheduler/lateness.ts --schedules ${N} --concurrency ${CONCURRENCY}\``,
    `Machine: ${cpus().length} CPUs (nproc; ${cpus()[0]?.model ?? 'unknown'}), ${(totalmem() / 2 ** 30).toFixed(0)} GiB RAM, Node ${process.version}, ${process.platform}/${process.arch}; Temporal dev server: ${cliVersion}, SQLite file in a temp dir; one scheduler worker process and one job worker process (SDK defaults), the bench client in a third process, all on this machine.`,
    `Total bench run time: ${((Date.now() - t0) / 1000).toFixed(0)} s.`,
  ];
  console.log(lines.join('\n'));
} finally {
  await stopStack(stack);
}
