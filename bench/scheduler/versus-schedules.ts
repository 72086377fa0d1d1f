/**
 * This scheduler against Temporal's own Schedules (issue #9), side by side in one run, each side on its
 * own fresh Temporal dev server (temp SQLite file, so its size can be measured at the end).
 *
 *   node --import tsx bench/scheduler/versus-schedules.ts [--schedules 1000] [--side both|ours|temporal]
 *        [--concurrency 20] [--lead <s>] [--arm-lead <s>] [--arm-ahead <s>] [--deadline <s>] [--jitter PT30S] [--history-sample 1000]
 *        [--idle] [--idle-months 1] [--idle-window 60] [--creates-only] [--rounds 3]
 *        [--worker-tuning '<WorkerOptions JSON over src/worker.ts's tuning>'] [--profile <dir>]
 *   (or: npm run bench:schedules -- --schedules 1000)
 *
 * Burst (default): N recurring schedules whose cron spec (`m h * * *`, UTC) is due at the same minute T,
 * created at `--concurrency` before T. Temporal's side: `client.schedule.create` with that cron spec and
 * the action startWorkflow `noopJob` on the job queue (overlap ALLOW_ALL). Our side: the SDK's `create`
 * (CRON timing, JOB target `noopJob`, overlap ALLOW; armed the longer of `--arm-lead` and `--arm-ahead` seconds
 * ahead, the product's defaults unless given; `--arm-lead 0`: started at the instant). Processes: the dev server, a job worker process
 * (test/fixtures/worker-process.ts, ROLES=jobs) and, ours only, a scheduler worker process (ROLES=scheduler,
 * tuned by src/worker.ts); this bench is the client. The burst ends once every expected job workflow has
 * COMPLETED (counted from the job side, visibility, polled every second). Reported per side:
 * - lateness: when the job's code began (its first workflow task started) − its slot (with --jitter: − the
 *   slot's jittered fire time), p50/p95/p99/max — not its start time, which an armed job has before its
 *   slot; fires, slots lost (no job) and doubled (more than one job);
 * - CPU (user+sys from /proc) of the dev server, the scheduler worker and the job worker, from the arm
 *   lead + 5 s before T (on both sides, so that our arming is counted) to the end of the burst, and the
 *   scheduler worker's RSS (now / peak);
 * - history events per fire of the schedule's own workflow (ours: the schedule workflow; Temporal's:
 *   `temporal-sys-scheduler:<id>`), the events from the start of that window on, fetched 5 s after the
 *   burst, over `--history-sample` schedules;
 * - creates/s;
 * - the dev server's persistence calls by operation over the same window (count and time per fire), read
 *   from its Prometheus endpoint: where the server's share of a fire goes;
 * - with --profile DIR, ours only: a V8 CPU profile of the scheduler worker over the same window (the
 *   workflows run on its main thread for this, `debugMode`), written to DIR and summarized (bench/profile/top.ts).
 *
 * Idle (--idle): N schedules whose only run is `--idle-months` months ahead (`0 0 1 <month> *`). Reports
 * the creation rate, the scheduler worker's RSS, the dev server's RSS and the database size every N/10
 * creates (growth per schedule), then, once the processes are quiet, the CPU they use in an idle window.
 *
 * Creation rate (--creates-only): `--rounds` rounds of N creates per side (due next month), each on a
 * fresh server, the side that goes first alternating per round; the median ratio is the result.
 *
 * Every table is printed with the load averages before and after its side (the machine is shared).
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Client } from '@temporalio/client';
import { findTemporalCli, repoRoot } from '../../scripts/toolchain.mjs';
import { SchedulerClient } from '../../src/api/client.js';
import { armWithinMs } from '../../src/model/arming.js';
import type { ScheduleDescription } from '../../src/model/contracts.js';
import { DEFAULT_ARM_AHEAD_MS, DEFAULT_ARM_LEAD_MS } from '../../src/model/defaults.js';
import { scheduleWorkflowId } from '../../src/model/ids.js';
import { computeSlots } from '../../src/model/slots.js';
import { freePort } from '../../src/runtime/ports.js';
import { schedulerWorkerTuning } from '../../src/worker.js';
import { ScheduledForKey, ScheduleIdKey } from '../../src/workflows/search-attributes.js';
import { spawnProcess } from '../../test/helpers/process.js';
import {
  JOB_QUEUE,
  pool,
  procStats,
  quantile,
  SCHEDULER_QUEUE,
  type Stack,
  startStack,
  startWorker,
  stopStack,
  type WorkerProcess,
} from '../../test/integration/support.js';
import { benchArgs, decimal, integer, oneOf, text, toggle } from '../args.js';
import { summarize } from '../profile/top.js';
import { createTemporalSchedule, loadavg, log, sleep, tsMs } from './common.js';
import {
  type PersistenceCall,
  persistenceDelta,
  persistencePerFire,
  scrapePersistence,
} from './server-metrics.js';
import type { ShardInput } from './shard/workflow.js';

const args = benchArgs('node --import tsx bench/scheduler/versus-schedules.ts', {
  schedules: integer(1000, 'schedules per side'),
  side: oneOf(['both', 'ours', 'temporal'], 'both', 'which side runs'),
  concurrency: integer(20, 'creates in flight'),
  lead: decimal(
    undefined,
    'at least this many seconds from the start of creation to T (default 30 + schedules / 25, plus the arm lead)',
  ),
  'arm-lead': decimal(
    DEFAULT_ARM_LEAD_MS / 1000,
    'our side: seconds before its slot a job is armed (SCHEDULER_ARM_LEAD_S; 0: started at the instant)',
  ),
  'arm-ahead': decimal(
    DEFAULT_ARM_AHEAD_MS / 1000,
    'our side: every slot within this many seconds is armed, when longer than the lead (SCHEDULER_ARM_AHEAD_S; 0: the lead alone)',
  ),
  jitter: text('ISO 8601 jitter of our side, e.g. PT30S'),
  'history-sample': integer(1000, 'schedules whose history is read'),
  deadline: decimal(undefined, 'seconds after T the burst may take (default max(360, schedules × 0.06))'),
  idle: toggle('idle schedules instead of a burst'),
  'idle-months': integer(1, 'with --idle: months to the only run'),
  'idle-window': decimal(60, 'with --idle: seconds of the idle CPU window'),
  'creates-only': toggle('only the creation rate, over --rounds'),
  rounds: integer(3, 'with --creates-only: rounds per side'),
  'worker-tuning': text(
    "WorkerOptions JSON over src/worker.ts's tuning, for the scheduler worker: another tuning",
  ),
  profile: text(
    'directory for a CPU profile of our scheduler worker over the burst (workflows in debugMode)',
  ),
  'armed-floor': toggle(
    'also a side with no scheduler: jobs started before T with a start delay to T (the floor of arming ahead)',
  ),
  'shard-size': integer(
    0,
    'also a side armed by shard workflows of this many schedules each (bench/scheduler/shard: a prototype of one workflow arming many schedules; 0: none)',
  ),
  'shard-starts': integer(100, 'with --shard-size: job starts per activity of a shard'),
  'server-config': text(
    'dynamic config JSON over the CLI\'s, for both sides\' dev servers: {"system.forceSearchAttributesCacheRefreshOnRead": false}',
  ),
});
/**
 * 'armed': no scheduler at all — the bench itself starts each job before T with a start delay to T, so the
 * server alone begins it at T. The floor of any scheduler that hands a slot off ahead of its instant
 * (`--armed-floor` adds it to a burst run).
 * 'shard': schedules armed many to a workflow (bench/scheduler/shard, a prototype; `--shard-size` adds it).
 */
type Side = 'ours' | 'temporal' | 'armed' | 'shard';
const N = args.schedules;
const CONCURRENCY = args.concurrency;
const SIDES: Side[] = [
  ...(args.side === 'both' ? (['ours', 'temporal'] as const) : [args.side]),
  ...(args['armed-floor'] ? (['armed'] as const) : []),
  ...(args['shard-size'] > 0 ? (['shard'] as const) : []),
];
const SHARD_SIZE = args['shard-size'];
const SHARD_STARTS = args['shard-starts'];
const SHARD_QUEUE = 'shards';
const shardWorkerScript = fileURLToPath(new URL('./shard/worker.ts', import.meta.url));
const ARM_LEAD_MS = args['arm-lead'] * 1000;
const ARM_AHEAD_MS = args['arm-ahead'] * 1000;
/** Our side's work for T begins this long before T (its schedules wake then and arm), and the CPU window with it. */
const ARM_WITHIN_MS = armWithinMs(ARM_LEAD_MS, ARM_AHEAD_MS);
// Lead time before T: creation must end before it (a slot created after T is tomorrow's), and before our
// side's arming begins, so that arming is measured in the window and not inside the creation.
const LEAD_S = args.lead ?? 30 + N / 25 + ARM_WITHIN_MS / 1000;
/** The measured window opens this long before T on both sides: ours arms ahead from it. */
const WINDOW_BEFORE_T_MS = ARM_WITHIN_MS + 5000;
const JITTER = args.jitter;
const HISTORY_SAMPLE = args['history-sample'];
/** How long after T the burst may take before the side is reported as not finished. */
const DEADLINE_MS = (args.deadline ?? Math.max(360, N * 0.06)) * 1000;
const IDLE = args.idle;
const IDLE_MONTHS = args['idle-months'];
const IDLE_WINDOW_S = args['idle-window'];
const CREATES_ONLY = args['creates-only'];
const ROUNDS = args.rounds;
/** Parsed once, before any server starts: a malformed --worker-tuning fails here. */
const WORKER_TUNING: Record<string, unknown> | undefined = args['worker-tuning']
  ? JSON.parse(args['worker-tuning'])
  : undefined;
const TENANT = 'acme';
const PROFILE_DIR = args.profile;
/** Parsed once, before any server starts, like --worker-tuning. */
const SERVER_CONFIG: Record<string, unknown> | undefined = args['server-config']
  ? JSON.parse(args['server-config'])
  : undefined;

const t0 = Date.now();
const sec = (ms: number) => (Number.isFinite(ms) ? `${(ms / 1000).toFixed(2)} s` : '—');
const mib = (bytes: number) => (Number.isFinite(bytes) ? `${(bytes / 2 ** 20).toFixed(0)} MiB` : '—');
const eventName = (e: object) => {
  const key = Object.keys(e).find((k) => k.endsWith('EventAttributes') && (e as Record<string, unknown>)[k]);
  return key ? key.replace(/EventAttributes$/, '') : 'unknown';
};
const scheduleIds = (side: Side) =>
  Array.from(
    { length: N },
    (_, i) =>
      `${{ ours: 'vs', temporal: 'tvs', armed: 'avs', shard: 'svs' }[side]}-${String(i).padStart(6, '0')}`,
  );
/** The armed side's job for schedule `id`. */
const ARMED_JOB_ID = /^ajob-(avs-\d+)$/;
/** Temporal's schedule starts `<action workflowId>-<nominal time, RFC 3339>`. */
const TEMPORAL_JOB_ID = /^tjob-(tvs-\d+)-(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)$/;
/** The schedule's own workflow: where its per-fire history cost is counted. */
const ownWorkflowId = (side: Side, id: string) =>
  side === 'ours' ? scheduleWorkflowId(TENANT, id) : `temporal-sys-scheduler:${id}`; // (armed: none; shard: below)
/** The shards of the shard side: consecutive schedule IDs, SHARD_SIZE to a workflow. */
const shardsOf = (ids: string[]) =>
  Array.from({ length: Math.ceil(ids.length / SHARD_SIZE) }, (_, i) => ({
    workflowId: `shard-${String(i).padStart(5, '0')}`,
    scheduleIds: ids.slice(i * SHARD_SIZE, (i + 1) * SHARD_SIZE),
  }));

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

/** The dev server's SQLite files (db, -wal, -shm): their apparent size, as `du -b` counts it. */
function dbBytes(stack: Stack): number {
  return readdirSync(stack.dir)
    .filter((f) => /^temporal\.db(-wal|-shm)?$/.test(f))
    .reduce((s, f) => s + statSync(join(stack.dir, f)).size, 0);
}

interface Procs {
  server: number | undefined;
  scheduler: number | undefined;
  jobs: number | undefined;
}
const cpuOf = (p: Procs) => ({
  server: procStats(p.server).cpuS,
  scheduler: p.scheduler === undefined ? 0 : procStats(p.scheduler).cpuS,
  jobs: procStats(p.jobs).cpuS,
});

/** The shard prototype's worker, its own process as our scheduler worker is (its CPU is counted the same). */
async function startShardWorker(stack: Stack): Promise<WorkerProcess> {
  const spawned = spawnProcess(
    process.execPath,
    ['--import', 'tsx', shardWorkerScript],
    { ...process.env, TEMPORAL_ADDRESS: stack.server.address, SHARD_QUEUE },
    repoRoot,
  );
  stack.processes.push(spawned);
  await spawned.waitFor(/ready pid=\d+ polling_at=\d+/, 120_000);
  const pollingAt = Number(/ready pid=\d+ polling_at=(\d+)/.exec(spawned.output())![1]);
  return Object.assign(spawned, { pollingAt });
}

/** The shard side's "creation": a workflow per SHARD_SIZE schedules, each arming its schedules' slot T. */
async function startShards(stack: Stack, ids: string[], T: number): Promise<number> {
  const start = Date.now();
  await pool(shardsOf(ids), CONCURRENCY, (shard) =>
    retry(`start ${shard.workflowId}`, () =>
      stack.client.workflow.start('shardWorkflow', {
        taskQueue: SHARD_QUEUE,
        workflowId: shard.workflowId,
        args: [
          {
            tenant: TENANT,
            scheduleIds: shard.scheduleIds,
            slotMs: T,
            leadMs: ARM_WITHIN_MS,
            jobType: 'noopJob',
            jobTaskQueue: JOB_QUEUE,
            startsPerActivity: SHARD_STARTS,
          } satisfies ShardInput,
        ],
      }),
    ),
  );
  return Date.now() - start;
}

async function startSide(
  side: Side,
): Promise<{ stack: Stack; procs: Procs; schedulerWorker?: WorkerProcess; metricsPort: number }> {
  const metricsPort = await freePort();
  const stack = await startStack(`bench-vs-${side}`, {
    metricsPort,
    ...(SERVER_CONFIG ? { dynamicConfig: SERVER_CONFIG } : {}),
  });
  log(`${side}: dev server ${stack.server.address} (db in ${stack.dir})`);
  // The product's client, with the lead this run measures (the default unless --arm-lead says otherwise).
  (stack as { sdk: SchedulerClient }).sdk = new SchedulerClient({
    client: stack.client,
    taskQueue: SCHEDULER_QUEUE,
    jobTaskQueue: JOB_QUEUE,
    principal: { tenant_id: TENANT, owner_ref: 'ops' },
    armLeadMs: ARM_LEAD_MS,
    armAheadMs: ARM_AHEAD_MS,
  });
  const [jobs, schedulerWorker] = await Promise.all([
    startWorker(stack, { ROLES: 'jobs' }),
    side === 'shard'
      ? startShardWorker(stack)
      : side === 'ours'
        ? startWorker(
            stack,
            {
              ROLES: 'scheduler',
              ...(WORKER_TUNING || PROFILE_DIR
                ? {
                    SCHEDULER_WORKER_TUNING: JSON.stringify({
                      ...WORKER_TUNING,
                      ...(PROFILE_DIR ? { debugMode: true } : {}),
                    }),
                  }
                : {}),
            },
            120_000,
            PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`] : [],
          )
        : Promise.resolve(undefined),
  ]);
  log(`${side}: workers polling`);
  return {
    stack,
    procs: { server: stack.server.process.pid, scheduler: schedulerWorker?.child.pid, jobs: jobs.child.pid },
    schedulerWorker,
    metricsPort,
  };
}

/** Creates one schedule on `side` whose cron spec is `cron` (UTC). */
async function createOne(side: Side, stack: Stack, id: string, cron: string, T: number): Promise<void> {
  if (side === 'armed') {
    await stack.client.workflow.start('noopJob', {
      taskQueue: JOB_QUEUE,
      workflowId: `ajob-${id}`,
      args: [{ occurrence_id: id }],
      startDelay: T - Date.now(),
    });
  } else if (side === 'ours') {
    await stack.sdk.create({
      schedule_id: id,
      target: { type: 'JOB', job_type: 'noopJob' },
      timing: { kind: 'CRON', expression: cron, timezone: 'UTC' },
      overlap: 'ALLOW',
      max_lateness_s: 3600, // lateness is measured here, not judged: no slot may be dropped as a misfire
      ...(JITTER ? { jitter: JITTER } : {}),
    });
  } else {
    await createTemporalSchedule(stack.client, id, cron, JITTER);
  }
}

async function createAll(
  side: Side,
  stack: Stack,
  ids: string[],
  cron: string,
  onEach?: (n: number) => void,
  T = 0,
) {
  let created = 0;
  const start = Date.now();
  await pool(ids, CONCURRENCY, async (id) => {
    await retry(`create ${id}`, () => createOne(side, stack, id, cron, T));
    created += 1;
    onEach?.(created);
  });
  return Date.now() - start;
}

interface BurstResult {
  side: Side;
  loadBefore: string;
  loadAfter: string;
  createMs: number;
  T: number;
  fires: number;
  lost: number;
  doubled: number;
  lateness: number[];
  /** The jobs' first workflow task started − T, sorted. */
  began: number[];
  spread: number[];
  jitterMismatches: number | null;
  burstDoneMs: number | null;
  cpu: { server: number; scheduler: number; jobs: number };
  schedulerRss: { rssBytes: number; peakRssBytes: number } | null;
  jobsRss: number;
  events: { perFire: number; byType: string; sampled: number; wfts: number };
  persistence: PersistenceCall[];
  profile: ReturnType<typeof summarize> | null;
  dbBytes: number;
  note: string;
}

async function jobsDone(client: Client): Promise<number> {
  return (await client.workflow.count(`WorkflowType = 'noopJob' AND ExecutionStatus = 'Completed'`)).count;
}

async function burst(side: Side): Promise<BurstResult> {
  const loadBefore = loadavg();
  const { stack, procs, schedulerWorker, metricsPort } = await startSide(side);
  try {
    const { client } = stack;
    const T = Math.ceil((Date.now() + LEAD_S * 1000) / 60_000) * 60_000;
    const tDate = new Date(T);
    const cron = `${tDate.getUTCMinutes()} ${tDate.getUTCHours()} * * *`;
    const ids = scheduleIds(side);
    log(`${side}: creating ${N} schedules, cron '${cron}' UTC (T = ${tDate.toISOString()})`);
    const createMs =
      side === 'shard'
        ? await startShards(stack, ids, T)
        : await createAll(side, stack, ids, cron, undefined, T);
    log(
      `${side}: created in ${(createMs / 1000).toFixed(1)} s (${(N / (createMs / 1000)).toFixed(1)}/s); ${((T - Date.now()) / 1000).toFixed(0)} s until T`,
    );
    if (Date.now() > T - WINDOW_BEFORE_T_MS)
      throw new Error(
        `${side}: creation ended inside the measured window (T − arming ahead − 5 s): raise --lead`,
      );
    await sleep(T - Date.now() - WINDOW_BEFORE_T_MS);
    const cpuBefore = cpuOf(procs);
    const persistenceBefore = await scrapePersistence(metricsPort);
    const profiled = PROFILE_DIR && schedulerWorker ? schedulerWorker : undefined;
    const windowFrom = Date.now();
    await sleep(T - Date.now());
    log(`${side}: T reached; waiting until ${N} jobs completed`);
    const deadline = T + DEADLINE_MS;
    let burstDoneMs: number | null = null;
    let done = 0;
    for (;;) {
      done = await retry('count', () => jobsDone(client));
      if (done >= N) {
        burstDoneMs = Date.now() - T;
        break;
      }
      if (Date.now() > deadline) break;
      await sleep(1000);
    }
    const cpuAfter = cpuOf(procs);
    const persistence = persistenceDelta(persistenceBefore, await scrapePersistence(metricsPort));
    const schedulerRss = schedulerWorker ? procStats(schedulerWorker.child.pid) : null;
    const jobsRss = procStats(procs.jobs).rssBytes;
    let profile: BurstResult['profile'] = null;
    if (profiled && PROFILE_DIR) {
      // The profile is written when the process exits: stop it gracefully, then keep the burst's samples.
      const windowTo = Date.now();
      const [, epochMs, monoUs] = /clock epoch_ms=(\d+) mono_us=(\d+)/.exec(profiled.output())!.map(Number);
      const toMono = (epoch: number) => monoUs! + (epoch - epochMs!) * 1000;
      profiled.child.kill('SIGTERM');
      await profiled.exit;
      const file = readdirSync(PROFILE_DIR)
        .filter((f) => f.endsWith('.cpuprofile') && f.includes(`.${profiled.child.pid}.`))
        .map((f) => join(PROFILE_DIR, f))
        .sort((a, b) => statSync(b).size - statSync(a).size)[0];
      if (!file) throw new Error(`no CPU profile of pid ${profiled.child.pid} in ${PROFILE_DIR}`);
      profile = summarize(JSON.parse(readFileSync(file, 'utf8')), {
        fromUs: toMono(windowFrom),
        toUs: toMono(windowTo),
      });
      log(`${side}: worker profile ${file}`);
    }
    const cpu = {
      server: cpuAfter.server - cpuBefore.server,
      scheduler: cpuAfter.scheduler - cpuBefore.scheduler,
      jobs: cpuAfter.jobs - cpuBefore.jobs,
    };
    log(
      burstDoneMs === null
        ? `${side}: only ${done}/${N} jobs completed by the deadline`
        : `${side}: all ${N} jobs completed ${(burstDoneMs / 1000).toFixed(1)} s after T`,
    );
    await sleep(5000);

    // The jobs, from visibility: which schedule and slot each is for, and when it started.
    const jobsBySlot = new Map<string, number[]>(); // `${scheduleId} ${slotMs}` → start times
    const jobIds = new Map<string, string[]>(); // the same key → the jobs' workflow IDs
    for await (const wf of client.workflow.list({ query: `WorkflowType = 'noopJob'` })) {
      let scheduleId: string | undefined;
      let slot: number | undefined;
      if (side === 'ours' || side === 'shard') {
        scheduleId = wf.typedSearchAttributes.get(ScheduleIdKey);
        slot = wf.typedSearchAttributes.get(ScheduledForKey)?.getTime();
      } else if (side === 'armed') {
        scheduleId = ARMED_JOB_ID.exec(wf.workflowId)?.[1];
        slot = T;
      } else {
        const m = TEMPORAL_JOB_ID.exec(wf.workflowId);
        if (m) [scheduleId, slot] = [m[1], Date.parse(m[2]!)];
      }
      if (scheduleId === undefined || slot === undefined) continue;
      const key = `${scheduleId} ${slot}`;
      jobsBySlot.set(key, [...(jobsBySlot.get(key) ?? []), wf.startTime.getTime()]);
      jobIds.set(key, [...(jobIds.get(key) ?? []), wf.workflowId]);
    }
    // When each job's code began: its first workflow task started (epoch ms). The same measure on every
    // side; a job started ahead with a start delay (armed) has a start time before its slot.
    const begunAt = new Map<string, number>();
    await pool(
      ids.flatMap((id) => jobIds.get(`${id} ${T}`) ?? []),
      CONCURRENCY,
      async (workflowId) => {
        const h = await retry(`job history ${workflowId}`, () =>
          client.workflow.getHandle(workflowId).fetchHistory(),
        );
        const first = (h.events ?? []).find((e) => eventName(e) === 'workflowTaskStarted');
        if (first) begunAt.set(workflowId, tsMs(first.eventTime));
      },
    );
    const began = [...begunAt.values()].map((at) => at - T).sort((a, b) => a - b);
    // When each schedule's slot T was due to fire: T, or T + its jitter.
    const fireAt = new Map<string, number>();
    let jitterMismatches: number | null = null;
    if (JITTER && side === 'ours') {
      // The calendar is a pure function: computing the slot here must give the fire time the worker used.
      jitterMismatches = 0;
      for (const id of ids) {
        const [slot] = computeSlots({
          scheduleId: id,
          spec: { timing: { kind: 'CRON', expression: cron, timezone: 'UTC' }, jitter: JITTER },
          createdAt: new Date(T - 3_600_000).toISOString(),
          after: new Date(T - 1).toISOString(),
          count: 1,
        }).slots;
        fireAt.set(id, Date.parse(slot!.fireAt));
      }
      const descriptions = await pool(ids, CONCURRENCY, (id) =>
        retry(`describe ${id}`, () => stack.sdk.describe(id)),
      );
      for (const d of descriptions as ScheduleDescription[]) {
        const o = d.recent_occurrences.find((x) => Date.parse(x.scheduled_for) === T);
        if (!o || Date.parse(o.fire_at) !== fireAt.get(d.schedule.schedule_id)) jitterMismatches += 1;
      }
    } else if (JITTER) {
      // Temporal's: the jittered start time it records on the workflow it starts.
      for await (const wf of client.workflow.list({ query: `WorkflowType = 'noopJob'` })) {
        const m = TEMPORAL_JOB_ID.exec(wf.workflowId);
        const at = (wf.searchAttributes?.TemporalScheduledStartTime as unknown[] | undefined)?.[0];
        if (m && at) fireAt.set(m[1]!, new Date(at as string).getTime());
      }
    }
    const lateness: number[] = [];
    const spread: number[] = [];
    let fires = 0;
    let lost = 0;
    let doubled = 0;
    for (const id of ids) {
      const starts = jobsBySlot.get(`${id} ${T}`) ?? [];
      if (starts.length === 0) lost += 1;
      if (starts.length > 1) doubled += 1;
      fires += starts.length;
      // Lateness is when the job began, not when it was started: an armed job is started before its slot.
      for (const workflowId of jobIds.get(`${id} ${T}`) ?? []) {
        const at = begunAt.get(workflowId);
        if (at === undefined) continue;
        lateness.push(at - (fireAt.get(id) ?? T));
        spread.push(at - T);
      }
    }
    lateness.sort((a, b) => a - b);
    spread.sort((a, b) => a - b);

    // History events per fire of the schedule's own workflow (the shard's: all of it), over a sample.
    const sample = side === 'armed' ? [] : ids.slice(0, Math.min(HISTORY_SAMPLE, N));
    const sampledShards =
      side === 'shard' ? shardsOf(ids).filter((shard) => sample.includes(shard.scheduleIds[0]!)) : [];
    const owners =
      side === 'shard'
        ? sampledShards.map((shard) => shard.workflowId)
        : sample.map((id) => ownWorkflowId(side, id));
    const sampledIds = side === 'shard' ? sampledShards.flatMap((shard) => shard.scheduleIds) : sample;
    const histories = await pool(owners, CONCURRENCY, async (workflowId) => {
      const h = await retry(`history ${workflowId}`, () =>
        client.workflow.getHandle(workflowId).fetchHistory(),
      );
      return (h.events ?? []).filter((e) => tsMs(e.eventTime) >= T - WINDOW_BEFORE_T_MS);
    });
    const byType = new Map<string, number>();
    for (const events of histories)
      for (const e of events) byType.set(eventName(e), (byType.get(eventName(e)) ?? 0) + 1);
    const sampledFires = sampledIds.reduce((s, id) => s + (jobsBySlot.get(`${id} ${T}`)?.length ?? 0), 0);
    const totalEvents = [...byType.values()].reduce((a, b) => a + b, 0);
    const events = {
      perFire: totalEvents / sampledFires,
      wfts: (byType.get('workflowTaskCompleted') ?? 0) / sampledFires,
      byType: [...byType.entries()]
        .sort((a, b) => b[1] - a[1])
        .map(([k, v]) => `${k} ${(v / sampledFires).toFixed(2)}`)
        .join(', '),
      sampled: sampledIds.length,
    };
    return {
      side,
      loadBefore,
      loadAfter: loadavg(),
      createMs,
      T,
      fires,
      lost,
      doubled,
      lateness,
      began,
      spread,
      jitterMismatches,
      burstDoneMs,
      cpu,
      schedulerRss,
      jobsRss,
      events,
      persistence,
      profile,
      dbBytes: dbBytes(stack),
      note: burstDoneMs === null ? `only ${done}/${N} jobs completed by T + ${(deadline - T) / 1000} s` : '',
    };
  } finally {
    await stopStack(stack);
  }
}

interface IdleSample {
  created: number;
  elapsedS: number;
  schedulerRss: number;
  serverRss: number;
  db: number;
}
interface IdleResult {
  side: Side;
  loadBefore: string;
  loadAfter: string;
  createMs: number;
  samples: IdleSample[];
  settleS: number;
  idleCpu: { server: number; scheduler: number };
  final: IdleSample & { schedulerPeak: number; serverPeak: number };
  /** Ours: the time of a describe of READ_SAMPLE schedules, the first read of each and the second (ms). */
  reads?: { first: number[]; again: number[]; asleepBefore: number };
}

/** Ours, after the idle window: schedules read one after another, each twice (the first wakes one asleep). */
const READ_SAMPLE = 50;

async function timedReads(stack: Stack, ids: string[]): Promise<NonNullable<IdleResult['reads']>> {
  const sdk = (stack as { sdk: SchedulerClient }).sdk;
  const sample = Array.from(
    { length: READ_SAMPLE },
    (_, i) => ids[Math.floor((i * ids.length) / READ_SAMPLE)]!,
  );
  let asleepBefore = 0;
  const first: number[] = [];
  const again: number[] = [];
  for (const id of sample) {
    const { executionTime, historyLength } = await stack.client.workflow
      .getHandle(scheduleWorkflowId(TENANT, id))
      .describe();
    if (historyLength <= 1 && executionTime && executionTime.getTime() > Date.now()) asleepBefore += 1;
    for (const into of [first, again]) {
      const t = performance.now();
      const d = await sdk.describe(id);
      into.push(performance.now() - t);
      if (d.schedule.status !== 'ACTIVE' || !d.schedule.next_run_at)
        throw new Error(`${id}: ${d.schedule.status}`);
    }
  }
  return { first: first.sort((a, b) => a - b), again: again.sort((a, b) => a - b), asleepBefore };
}

/** A cron spec whose only run in the bench's lifetime is on the 1st of the month `monthsAhead` from now. */
const idleCron = (monthsAhead: number) => `0 0 1 ${((new Date().getUTCMonth() + monthsAhead) % 12) + 1} *`;

async function idle(side: Side): Promise<IdleResult> {
  const loadBefore = loadavg();
  const { stack, procs } = await startSide(side);
  try {
    const cron = idleCron(IDLE_MONTHS);
    const ids = scheduleIds(side);
    const samples: IdleSample[] = [];
    const sampleNow = (created: number): IdleSample => ({
      created,
      elapsedS: (Date.now() - start) / 1000,
      schedulerRss: procs.scheduler === undefined ? Number.NaN : procStats(procs.scheduler).rssBytes,
      serverRss: procStats(procs.server).rssBytes,
      db: dbBytes(stack),
    });
    const every = Math.max(1, Math.floor(N / 10));
    log(`${side}: creating ${N} idle schedules, cron '${cron}' UTC`);
    const start = Date.now();
    samples.push(sampleNow(0));
    const createMs = await createAll(side, stack, ids, cron, (n) => {
      if (n % every === 0) {
        samples.push(sampleNow(n));
        log(`${side}: ${n} created (${(n / ((Date.now() - start) / 1000)).toFixed(1)}/s)`);
      }
    });
    // Settled: neither the scheduler worker nor the server spent more than 5 % of a core over 10 s.
    const settleStart = Date.now();
    let prev = cpuOf(procs);
    for (;;) {
      await sleep(10_000);
      const cur = cpuOf(procs);
      const quiet = cur.scheduler - prev.scheduler < 0.5 && cur.server - prev.server < 0.5;
      prev = cur;
      if (quiet || Date.now() - settleStart > 15 * 60_000) break;
    }
    const settleS = (Date.now() - settleStart) / 1000;
    log(`${side}: settled ${settleS.toFixed(0)} s after the last create; idle window ${IDLE_WINDOW_S} s`);
    const before = cpuOf(procs);
    await sleep(IDLE_WINDOW_S * 1000);
    const after = cpuOf(procs);
    const reads = side === 'ours' ? await timedReads(stack, ids) : undefined;
    const final = {
      ...sampleNow(N),
      schedulerPeak: procs.scheduler === undefined ? Number.NaN : procStats(procs.scheduler).peakRssBytes,
      serverPeak: procStats(procs.server).peakRssBytes,
    };
    return {
      side,
      loadBefore,
      loadAfter: loadavg(),
      createMs,
      samples,
      settleS,
      idleCpu: { server: after.server - before.server, scheduler: after.scheduler - before.scheduler },
      final,
      ...(reads ? { reads } : {}),
    };
  } finally {
    await stopStack(stack);
  }
}

const label = (side: Side) =>
  ({
    ours: 'this scheduler (CRON, JOB, ALLOW)',
    temporal: "Temporal's Schedules (cron spec, ALLOW_ALL)",
    armed: 'no scheduler: jobs started ahead with a start delay to T (the floor of arming ahead)',
    shard: `prototype: shard workflows of ${SHARD_SIZE} schedules, each arming its slot in one wake`,
  })[side];
const tuning = JSON.stringify({ ...schedulerWorkerTuning, ...WORKER_TUNING });
const cli = findTemporalCli();
const cliVersion = cli ? execFileSync(cli, ['--version']).toString().trim() : 'unknown';
const machine = `${cpus().length} CPUs (${cpus()[0]?.model ?? 'unknown'}), ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}; ${cliVersion}; scheduler worker tuning ${tuning}`;
const command =
  `node --import tsx bench/scheduler/versus-schedules.ts ${process.argv.slice(2).join(' ')}`.trim();

function printBurst(results: BurstResult[]) {
  const q = (r: BurstResult, p: number) => sec(quantile(r.lateness, p));
  const perFire = (r: BurstResult) => (1000 * (r.cpu.server + r.cpu.scheduler)) / r.fires;
  const lines = [
    `### ${N} recurring schedules due at the same minute${JITTER ? ` (jitter ${JITTER})` : ''}`,
    '',
    `Command: \`${command}\``,
    '',
    `Our side arms its slot ${ARM_WITHIN_MS / 1000} s before T (the longer of lead ${ARM_LEAD_MS / 1000} s and ahead ${ARM_AHEAD_MS / 1000} s); the CPU and persistence window opens ${WINDOW_BEFORE_T_MS / 1000} s before T on every side and closes when the last job completed.`,
    '',
    `| side | p50 | p95 | p99 | max | job began p50 / p99 | server CPU s | worker CPU s | job worker CPU s | (server + worker) CPU ms / fire | worker RSS (peak) | job worker RSS | history events / fire (WFTs) | creates/s | fires / lost (no job by the deadline) / doubled | all jobs done after T | DB size | load before → after |`,
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---|',
    ...results.map(
      (r) =>
        `| ${label(r.side)} | ${q(r, 0.5)} | ${q(r, 0.95)} | ${q(r, 0.99)} | ${sec(r.lateness.at(-1) ?? Number.NaN)} | ${sec(quantile(r.began, 0.5))} / ${sec(quantile(r.began, 0.99))} | ${r.cpu.server.toFixed(1)} | ${{ ours: r.cpu.scheduler.toFixed(1), temporal: '— (in the server)', armed: '—', shard: r.cpu.scheduler.toFixed(1) }[r.side]} | ${r.cpu.jobs.toFixed(1)} | ${perFire(r).toFixed(1)} | ${r.schedulerRss ? `${mib(r.schedulerRss.rssBytes)} (${mib(r.schedulerRss.peakRssBytes)})` : '—'} | ${mib(r.jobsRss)} | ${r.events.perFire.toFixed(1)} (${r.events.wfts.toFixed(2)}) | ${r.side === 'shard' ? `— (${shardsOf(scheduleIds('shard')).length} workflows started)` : (N / (r.createMs / 1000)).toFixed(1)} | ${r.fires} / ${r.lost} / ${r.doubled} | ${r.burstDoneMs === null ? r.note : sec(r.burstDoneMs)} | ${mib(r.dbBytes)} | ${r.loadBefore} → ${r.loadAfter} |`,
    ),
    '',
    ...results
      .filter((r) => r.events.sampled > 0)
      .map(
        (r) =>
          `- ${label(r.side)}: history events per fire by type (${r.events.sampled} schedules sampled): ${r.events.byType}.`,
      ),
  ];
  const ours = results.find((r) => r.side === 'ours');
  const theirs = results.find((r) => r.side === 'temporal');
  if (ours && theirs) {
    const p99 = quantile(ours.lateness, 0.99) / quantile(theirs.lateness, 0.99);
    const cpu = perFire(ours) / ((1000 * theirs.cpu.server) / theirs.fires);
    const total = (r: BurstResult) => (1000 * (r.cpu.server + r.cpu.scheduler + r.cpu.jobs)) / r.fires;
    lines.push(
      `- ratios (ours / Temporal's): p99 lateness ${p99.toFixed(2)} (goal ≤ 0.5); total CPU per fire (server + scheduler worker + job worker: ${total(ours).toFixed(1)} vs ${total(theirs).toFixed(1)} ms) ${(total(ours) / total(theirs)).toFixed(2)} (goal ≤ 0.8); (server + worker) CPU per fire / Temporal's server CPU per fire ${cpu.toFixed(2)}; history events per fire ${(ours.events.perFire / theirs.events.perFire).toFixed(2)}; creates/s ${(theirs.createMs / ours.createMs).toFixed(2)} (goal ≥ 1).`,
    );
  }
  if (theirs) {
    for (const r of results.filter((x) => x !== theirs))
      lines.push(
        `- ${label(r.side)}: job began p99 / Temporal's ${(quantile(r.began, 0.99) / quantile(theirs.began, 0.99)).toFixed(2)}; total CPU per fire / Temporal's ${((r.cpu.server + r.cpu.scheduler + r.cpu.jobs) / r.fires / ((theirs.cpu.server + theirs.cpu.jobs) / theirs.fires)).toFixed(2)}.`,
      );
  }
  for (const r of results) {
    lines.push(
      `- ${label(r.side)}: the server's persistence calls per fire: ${persistencePerFire(r.persistence, r.fires)}.`,
    );
    if (r.profile) {
      const pct = (us: number) => `${((100 * us) / (r.profile!.totalMs * 1000)).toFixed(1)} %`;
      lines.push(
        `- ${label(r.side)}: scheduler worker profile over the burst (${(r.profile.totalMs / 1000).toFixed(1)} s sampled, workflows in debugMode): by area ${r.profile.areas
          .slice(0, 10)
          .map(([a, us]) => `${a} ${pct(us)}`)
          .join(', ')}; top functions ${r.profile.functions
          .slice(0, 15)
          .map(([f, us]) => `\`${f}\` ${pct(us)}`)
          .join(', ')}.`,
      );
    }
  }
  if (JITTER) {
    for (const r of results) {
      const buckets = new Map<number, number>();
      for (const s of r.spread)
        buckets.set(Math.floor(s / 5000) * 5, (buckets.get(Math.floor(s / 5000) * 5) ?? 0) + 1);
      lines.push(
        `- ${label(r.side)}: job starts − slot, by 5 s bucket: ${[...buckets.entries()]
          .sort((a, b) => a[0] - b[0])
          .map(([b, n]) => `${b}–${b + 5} s: ${n}`)
          .join(
            ', ',
          )}${r.jitterMismatches === null ? '' : `; fire_at ≠ the calendar's jitter for the slot, computed independently by this bench: ${r.jitterMismatches}/${N}`}.`,
      );
    }
  }
  lines.push('', `Machine: ${machine}.`, `Total bench run time: ${((Date.now() - t0) / 1000).toFixed(0)} s.`);
  console.log(lines.join('\n'));
}

function printIdle(results: IdleResult[]) {
  const lines = [
    `### ${N} idle schedules (the only run ${IDLE_MONTHS} month(s) ahead)`,
    '',
    `Command: \`${command}\``,
    '',
    `| side | creation | creates/s | settled after | worker RSS (peak) | server RSS (peak) | DB size | worker RSS / schedule (2nd half) | server RSS / schedule (2nd half) | DB / schedule | idle CPU, server / worker (${IDLE_WINDOW_S} s) | load before → after |`,
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|',
  ];
  for (const r of results) {
    const mid = r.samples.find((s) => s.created >= N / 2) ?? r.samples[0]!;
    const last = r.samples.at(-1)!;
    const per = (a: number, b: number, n: number) =>
      Number.isFinite(a - b) ? `${((a - b) / n).toFixed(0)} B` : '—';
    lines.push(
      `| ${label(r.side)} | ${(r.createMs / 1000).toFixed(0)} s | ${(N / (r.createMs / 1000)).toFixed(1)} | ${r.settleS.toFixed(0)} s | ${mib(r.final.schedulerRss)} (${mib(r.final.schedulerPeak)}) | ${mib(r.final.serverRss)} (${mib(r.final.serverPeak)}) | ${mib(r.final.db)} | ${per(last.schedulerRss, mid.schedulerRss, last.created - mid.created)} | ${per(last.serverRss, mid.serverRss, last.created - mid.created)} | ${per(r.final.db, r.samples[0]!.db, N)} | ${r.idleCpu.server.toFixed(1)} s / ${r.side === 'ours' ? `${r.idleCpu.scheduler.toFixed(1)} s` : '—'} | ${r.loadBefore} → ${r.loadAfter} |`,
    );
  }
  for (const r of results) {
    if (!r.reads) continue;
    const ms = (xs: number[], p: number) => `${quantile(xs, p).toFixed(0)} ms`;
    lines.push(
      '',
      `${label(r.side)}: ${READ_SAMPLE} schedules read after the idle window (${r.reads.asleepBefore} of them still asleep, never run), one after another, each twice: first read p50 / p95 / max ${ms(r.reads.first, 0.5)} / ${ms(r.reads.first, 0.95)} / ${r.reads.first.at(-1)!.toFixed(0)} ms, second ${ms(r.reads.again, 0.5)} / ${ms(r.reads.again, 0.95)} / ${r.reads.again.at(-1)!.toFixed(0)} ms.`,
    );
  }
  for (const r of results) {
    lines.push(
      '',
      `${label(r.side)}, during creation:`,
      '',
      '| created | at | worker RSS | server RSS | DB size |',
      '|---:|---:|---:|---:|---:|',
      ...r.samples.map(
        (s) =>
          `| ${s.created} | ${s.elapsedS.toFixed(0)} s | ${mib(s.schedulerRss)} | ${mib(s.serverRss)} | ${mib(s.db)} |`,
      ),
    );
  }
  lines.push('', `Machine: ${machine}.`, `Total bench run time: ${((Date.now() - t0) / 1000).toFixed(0)} s.`);
  console.log(lines.join('\n'));
}

/**
 * Creation rate alone, side by side: each round creates N schedules due next month on a fresh server per
 * side, the sides alternating which goes first, so that drift of a shared machine falls on both.
 */
interface CreateRate {
  side: Side;
  perS: number;
  load: string;
}
async function createRate(side: Side): Promise<CreateRate> {
  const { stack } = await startSide(side);
  try {
    const createMs = await createAll(side, stack, scheduleIds(side), idleCron(1));
    log(`${side}: ${N} created in ${(createMs / 1000).toFixed(1)} s`);
    return { side, perS: N / (createMs / 1000), load: loadavg() };
  } finally {
    await stopStack(stack);
  }
}

if (CREATES_ONLY) {
  const rounds: CreateRate[][] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const order: Side[] = round % 2 === 0 ? ['ours', 'temporal'] : ['temporal', 'ours'];
    const results = [];
    for (const side of order) results.push(await createRate(side));
    rounds.push(results);
  }
  const rate = (r: CreateRate[], side: Side) => r.find((x) => x.side === side)!.perS;
  const ratios = rounds.map((r) => rate(r, 'ours') / rate(r, 'temporal'));
  console.log(
    [
      `### Creation rate, ${N} schedules per side per round, ${ROUNDS} rounds`,
      '',
      `Command: \`${command}\``,
      '',
      "| round (first side) | this scheduler creates/s | Temporal's Schedules creates/s | ratio (ours / Temporal's) | load after |",
      '|---|---:|---:|---:|---|',
      ...rounds.map(
        (r, i) =>
          `| ${i + 1} (${r[0]!.side}) | ${rate(r, 'ours').toFixed(1)} | ${rate(r, 'temporal').toFixed(1)} | ${ratios[i]!.toFixed(2)} | ${r.at(-1)!.load} |`,
      ),
      '',
      `Median ratio ${quantile(
        [...ratios].sort((a, b) => a - b),
        0.5,
      ).toFixed(2)} (goal ≥ 1).`,
      '',
      `Machine: ${machine}.`,
    ].join('\n'),
  );
} else if (IDLE) {
  const results: IdleResult[] = [];
  // Idle schedules have no instant to arm ahead of: the armed floor is a burst side only.
  for (const side of SIDES.filter((x) => x !== 'armed')) results.push(await idle(side));
  printIdle(results);
} else {
  const results: BurstResult[] = [];
  for (const side of SIDES) results.push(await burst(side));
  printBurst(results);
}
