/**
 * Scheduler lateness and history cost at a burst: N schedules (default 1,000) all due at the same
 * minute boundary, on a fresh Temporal dev server (temp SQLite file), with the real scheduler worker and
 * a job worker as separate processes (test/fixtures/worker-process.ts).
 *
 *   node --import tsx bench/scheduler/lateness.ts [--schedules 1000] [--concurrency 20]
 *        [--timing one-time|recurring] [--fires 4]
 *
 * `one-time` (default): each schedule is ONE_TIME at the same instant T with a JOB target (`noopJob`,
 * which returns at once); the run ends when every schedule COMPLETED.
 * `recurring`: each schedule is CRON `* * * * *` (overlap ALLOW: nothing waits for the job), first due at
 * T; after `--fires` minute boundaries every schedule is cancelled.
 * It reports, from each schedule's own `describe`, the lateness emitted_at − scheduled_for
 * (p50/p95/p99/max), the target's start (the job workflow's start time from visibility) − its slot, the
 * server history events per fire (the schedule workflow's whole history over its fires, and — recurring —
 * the steady state: the events from one slot's timer firing to the next one's, so each cycle includes
 * whatever the previous hand-off cost later, such as a child's completion), workflow tasks per fire, and
 * the CPU time the scheduler worker process and the dev server used from just before T to the end of the
 * burst. Prints a markdown table, the command and the machine.
 */
import { execFileSync } from 'node:child_process';
import { cpus, totalmem } from 'node:os';
import type { Client } from '@temporalio/client';
import { findTemporalCli } from '../../scripts/toolchain.mjs';
import type { ScheduleDescription } from '../../src/model/contracts.js';
import { scheduleWorkflowId } from '../../src/model/ids.js';
import { SCHEDULE_WORKFLOWS } from '../../src/workflows/definitions.js';
import { ScheduledForKey } from '../../src/workflows/search-attributes.js';
import {
  pool,
  procStats,
  quantile,
  type Stack,
  startStack,
  startWorker,
  stopStack,
} from '../../test/integration/support.js';
import { benchArgs, integer, oneOf } from '../args.js';
import { log, sleep, tsMs } from './common.js';

const args = benchArgs('node --import tsx bench/scheduler/lateness.ts', {
  schedules: integer(1000, 'schedules due at the same minute'),
  concurrency: integer(20, 'creates in flight'),
  timing: oneOf(['one-time', 'recurring'], 'one-time', 'ONE_TIME or CRON every minute'),
  fires: integer(4, 'with --timing recurring: minute boundaries before the cancel'),
});
const N = args.schedules;
const CONCURRENCY = args.concurrency;
const RECURRING = args.timing === 'recurring';
const FIRES = args.fires;
if (RECURRING && !(FIRES >= 2))
  throw new Error('--fires must be at least 2 (the steady state is between fires)');
const TENANT = 'acme';
const t0 = Date.now();

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

const cpuSeconds = (pid: number | undefined) => procStats(pid).cpuS;
const eventName = (e: object) => {
  const key = Object.keys(e).find((k) => k.endsWith('EventAttributes') && (e as Record<string, unknown>)[k]);
  return key ? key.replace(/EventAttributes$/, '') : 'unknown';
};

let stack: Stack | undefined;
try {
  stack = await startStack('bench-lateness');
  const { sdk, client } = stack;
  log(`dev server ${stack.server.address} (db in ${stack.dir})`);
  // Scheduler and jobs in two processes: the deployment's shape, and each gets a core.
  const [schedulerWorker] = await Promise.all([
    startWorker(stack, { ROLES: 'scheduler' }),
    startWorker(stack, { ROLES: 'jobs' }),
  ]);
  log('workers polling');

  // T: a minute boundary far enough ahead for every create to land before it (estimated at a
  // conservative 10 creates/s, plus 30 s of margin).
  // (Recurring: every-minute schedules fire at every minute boundary from their creation on; T is then
  // the first boundary after creation ended, and only the FIRES slots from T on are measured.)
  let T = Math.ceil((Date.now() + 30_000 + (N / 10) * 1000) / 60_000) * 60_000;
  const at = new Date(T).toISOString();
  log(
    `creating ${N} ${RECURRING ? 'every-minute CRON' : 'ONE_TIME'} schedules due at ${at} (concurrency ${CONCURRENCY})`,
  );
  const ids = Array.from({ length: N }, (_, i) => `burst-${String(i).padStart(5, '0')}`);
  const createStart = Date.now();
  await pool(ids, CONCURRENCY, (id) =>
    retry(`create ${id}`, () =>
      sdk.create({
        schedule_id: id,
        target: { type: 'JOB', job_type: 'noopJob' },
        timing: RECURRING
          ? { kind: 'CRON', expression: '* * * * *', timezone: 'UTC' }
          : { kind: 'ONE_TIME', at },
        max_lateness_s: 3600, // lateness is measured here, not judged: no slot may be dropped as a misfire
      }),
    ),
  );
  const createMs = Date.now() - createStart;
  if (RECURRING) T = Math.ceil((Date.now() + 10_000) / 60_000) * 60_000;
  log(
    `created in ${(createMs / 1000).toFixed(1)} s (${(N / (createMs / 1000)).toFixed(0)}/s); ${((T - Date.now()) / 1000).toFixed(0)} s until T (${new Date(T).toISOString()})`,
  );
  if (Date.now() > T) throw new Error('creation did not finish before T: the burst is not in one minute');
  const last = T + (RECURRING ? FIRES - 1 : 0) * 60_000;
  const measured = (slot: number) => slot >= T && slot <= last;

  await sleep(T - Date.now() - 5000);
  const cpuAtT = {
    worker: cpuSeconds(schedulerWorker.child.pid),
    server: cpuSeconds(stack.server.process.pid),
  };
  await sleep(T - Date.now());
  let allCompletedMs: number;
  if (RECURRING) {
    log(`T reached; ${FIRES} fires per schedule, the last due at ${new Date(last).toISOString()}`);
    await sleep(last - Date.now());
    const deadline = last + 6 * 60_000;
    // Counted from the job side: every measured slot's job workflow has started. (Visibility compares the
    // stored text: instants without milliseconds, as it stores them.)
    const iso = (t: number) => new Date(t).toISOString().replace('.000Z', 'Z');
    const startedQuery = `WorkflowType = 'noopJob' AND SchedulerScheduledFor >= '${iso(T)}' AND SchedulerScheduledFor <= '${iso(last)}'`;
    for (;;) {
      const started = await count(client, startedQuery);
      if (started >= N * FIRES) break;
      if (Date.now() > deadline)
        throw new Error(`${started}/${N * FIRES} jobs started 6 min after the last slot`);
      await sleep(1000);
    }
    allCompletedMs = Date.now() - last;
    log(
      `every measured slot's job started (seen ${(allCompletedMs / 1000).toFixed(1)} s after the last slot)`,
    );
  } else {
    log('T reached; waiting until every schedule completed');
    const completedQuery = `${SCHEDULE_WORKFLOWS} AND ExecutionStatus = 'Completed'`;
    const deadline = T + 6 * 60_000;
    for (;;) {
      const done = await count(client, completedQuery);
      if (done >= N) break;
      if (Date.now() > deadline) throw new Error(`only ${done}/${N} schedules completed 6 min after T`);
      await sleep(2000);
    }
    allCompletedMs = Date.now() - T;
    log(`all ${N} schedules completed (seen ${(allCompletedMs / 1000).toFixed(1)} s after T)`);
  }
  const cpu = {
    worker: cpuSeconds(schedulerWorker.child.pid) - cpuAtT.worker,
    server: cpuSeconds(stack.server.process.pid) - cpuAtT.server,
  };
  if (RECURRING) {
    await pool(ids, CONCURRENCY, (id) => retry(`cancel ${id}`, () => sdk.cancel(id)));
    log('cancelled every schedule');
  }

  const descriptions = await pool(ids, CONCURRENCY, (id) => retry(`describe ${id}`, () => sdk.describe(id)));
  const lateness: number[] = [];
  let failed = 0;
  let fires = 0;
  let measuredFires = 0;
  for (const d of descriptions as ScheduleDescription[]) {
    for (const o of d.recent_occurrences) {
      if (o.emitted_at === null) continue;
      fires += 1;
      if (!measured(Date.parse(o.scheduled_for))) continue;
      measuredFires += 1;
      lateness.push(Date.parse(o.emitted_at) - Date.parse(o.scheduled_for));
      if (o.status !== (RECURRING ? 'HANDED_OFF' : 'COMPLETED')) failed += 1;
    }
  }
  lateness.sort((a, b) => a - b);
  log(
    `described: ${fires} fires (${measuredFires} measured), ${failed} not ${RECURRING ? 'HANDED_OFF' : 'COMPLETED'}`,
  );

  // The target's start as the server recorded it (visibility), against its slot.
  const targetStart: number[] = [];
  for await (const wf of client.workflow.list({ query: `WorkflowType = 'noopJob'` })) {
    const slot = wf.typedSearchAttributes.get(ScheduledForKey)?.getTime() ?? T;
    if (measured(slot)) targetStart.push(wf.startTime.getTime() - slot);
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
    for (const e of events) byType.set(eventName(e), (byType.get(eventName(e)) ?? 0) + 1);
  }
  const workflowTasks = byType.get('workflowTaskCompleted') ?? 0;
  // Steady state (recurring): from the first slot timer firing to the last one, per cycle between them.
  const steadyByType = new Map<string, number>();
  let steadyCycles = 0;
  for (const events of scheduleEvents) {
    const fired = events.flatMap((e, i) =>
      e.timerFiredEventAttributes && tsMs(e.eventTime) >= T - 1000 ? [i] : [],
    );
    if (fired.length < 2) continue;
    steadyCycles += fired.length - 1;
    for (const e of events.slice(fired[0], fired.at(-1)))
      steadyByType.set(eventName(e), (steadyByType.get(eventName(e)) ?? 0) + 1);
  }
  const steadyEvents = [...steadyByType.values()].reduce((a, b) => a + b, 0);
  // When the last schedule's timer fired (server time), for context: how long the server took to
  // deliver the burst at all, before any worker saw it.
  // (Recurring: each timer against the minute boundary it fired for.)
  const timerFired = scheduleEvents
    .flatMap((events) => events.filter((e) => e.timerFiredEventAttributes).map((e) => tsMs(e.eventTime)))
    .map((at) => ({ at, slot: RECURRING ? Math.floor(at / 60_000) * 60_000 : T }))
    .filter(({ slot }) => measured(slot))
    .map(({ at, slot }) => at - slot)
    .sort((a, b) => a - b);

  const cli = findTemporalCli();
  const cliVersion = cli ? execFileSync(cli, ['--version']).toString().trim() : 'unknown';
  const perFire = (map: Map<string, number>, n: number) =>
    [...map.entries()]
      .sort((a, b) => b[1] - a[1])
      .map(([k, v]) => `${k} ${(v / n).toFixed(2)}`)
      .join(', ');
  const lines = [
    RECURRING
      ? `### Scheduler burst: ${N} every-minute CRON schedules (overlap ALLOW, JOB target), ${FIRES} fires each, all due at the same instants`
      : `### Scheduler burst: ${N} ONE_TIME schedules due at the same instant (JOB target)`,
    '',
    '| metric | p50 | p95 | p99 | max |',
    '|---|---|---|---|---|',
    `| lateness (emitted_at − scheduled_for) | ${ms(quantile(lateness, 0.5))} | ${ms(quantile(lateness, 0.95))} | ${ms(quantile(lateness, 0.99))} | ${ms(lateness.at(-1)!)} |`,
    `| target workflow started − scheduled_for | ${ms(quantile(targetStart, 0.5))} | ${ms(quantile(targetStart, 0.95))} | ${ms(quantile(targetStart, 0.99))} | ${ms(targetStart.at(-1)!)} |`,
    `| schedule's timer fired (server) − scheduled_for | ${ms(quantile(timerFired, 0.5))} | ${ms(quantile(timerFired, 0.95))} | ${ms(quantile(timerFired, 0.99))} | ${ms(timerFired.at(-1)!)} |`,
    '',
    '| metric | value |',
    '|---|---|',
    `| schedules / fires (measured: slots from T on) / measured fires not ${RECURRING ? 'HANDED_OFF' : 'COMPLETED'} | ${N} / ${fires} (${measuredFires}) / ${failed} |`,
    RECURRING
      ? `| history events per fire, schedule workflow, steady state (slot timer fired → next slot timer fired; ${steadyCycles} cycles) | ${(steadyEvents / steadyCycles).toFixed(1)} |`
      : null,
    RECURRING
      ? `| workflow tasks per fire, schedule workflow, steady state | ${((steadyByType.get('workflowTaskCompleted') ?? 0) / steadyCycles).toFixed(2)} |`
      : null,
    `| history events per fire, schedule workflow (whole lifecycle: ${RECURRING ? 'create → fires → cancel' : 'create → fire → job done → COMPLETED'}) | ${(totalScheduleEvents / fires).toFixed(1)} |`,
    `| workflow tasks per fire, schedule workflow (whole lifecycle) | ${(workflowTasks / fires).toFixed(2)} |`,
    `| CPU per fire, scheduler worker process / dev server (user+sys, from 5 s before T to the end of the burst) | ${((cpu.worker / measuredFires) * 1000).toFixed(1)} ms / ${((cpu.server / measuredFires) * 1000).toFixed(1)} ms |`,
    `| history events per fire, the job workflow (noopJob) | ${(totalJobEvents / fires).toFixed(1)} |`,
    `| creation of ${N} schedules (SDK create, concurrency ${CONCURRENCY}) | ${(createMs / 1000).toFixed(1)} s (${(N / (createMs / 1000)).toFixed(0)}/s) |`,
    RECURRING
      ? `| every measured slot's job workflow started (visibility, polled every second) | ≤ ${(allCompletedMs / 1000).toFixed(1)} s after the last slot |`
      : `| all schedules COMPLETED (visibility, polled every 2 s) | ≤ ${(allCompletedMs / 1000).toFixed(1)} s after T |`,
    '',
    `Schedule workflow events per fire by type (whole lifecycle): ${perFire(byType, fires)}.`,
    RECURRING ? `\nSteady state, per fire: ${perFire(steadyByType, steadyCycles)}.` : null,
    '',
    `Command: \`node --import tsx bench/scheduler/lateness.ts --schedules ${N} --concurrency ${CONCURRENCY}${RECURRING ? ` --timing recurring --fires ${FIRES}` : ''}\``,
    `Machine: ${cpus().length} CPUs (nproc; ${cpus()[0]?.model ?? 'unknown'}), ${(totalmem() / 2 ** 30).toFixed(0)} GiB RAM, Node ${process.version}, ${process.platform}/${process.arch}; Temporal dev server: ${cliVersion}, SQLite file in a temp dir; one scheduler worker process and one job worker process (SDK defaults), the bench client in a third process, all on this machine.`,
    `Total bench run time: ${((Date.now() - t0) / 1000).toFixed(0)} s.`,
  ];
  console.log(lines.filter((l) => l !== null).join('\n'));
} finally {
  await stopStack(stack);
}
