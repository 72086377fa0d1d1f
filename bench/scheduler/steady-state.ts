import { cpus, totalmem } from 'node:os';
import { DEFAULT_ARM_AHEAD_MS, DEFAULT_ARM_LEAD_MS } from '../../src/model/defaults.js';
import { scheduleWorkflowId } from '../../src/model/ids.js';
import { freePort } from '../../src/runtime/ports.js';
import {
  OccurrenceIdKey,
  ScheduledForKey,
  ScheduleIdKey,
  TenantIdKey,
} from '../../src/workflows/search-attributes.js';
import type { HistoryEvent } from '../../test/helpers/history.js';
import {
  JOB_QUEUE,
  pool,
  procStats,
  quantile,
  type Stack,
  startStack,
  startWorker,
  stopStack,
} from '../../test/integration/support.js';
import { benchArgs, decimal, integer, integers, oneOf, text } from '../args.js';
import { createTemporalSchedule, loadavg, log, sleep, tsMs } from './common.js';
import {
  type PersistenceCall,
  persistenceDelta,
  persistencePerFire,
  scrapePersistence,
} from './server-metrics.js';

const args = benchArgs('node --import tsx bench/scheduler/steady-state.ts', {
  schedules: integer(200, 'schedules per side'),
  minutes: integer(6, 'minutes of the measured window'),
  warmup: integer(2, 'minutes between the end of creation and the window'),
  side: oneOf(['all', 'ours', 'temporal', 'floor'], 'all', 'which side runs'),
  mix: integers([60, 30, 10], 'percent of schedules every minute, every 5 minutes, hourly'),
  'floor-lead': decimal(DEFAULT_ARM_LEAD_MS / 1000, 'the floor: seconds before its slot a job is started'),
  'arm-ahead': decimal(
    DEFAULT_ARM_AHEAD_MS / 1000,
    'ours: SCHEDULER_ARM_AHEAD_S (seconds; 0 the lead alone)',
  ),
  'server-config': text(
    'dynamic config JSON over the CLI\'s, for every side\'s dev server: {"system.forceSearchAttributesCacheRefreshOnRead": false}',
  ),
});
/** Parsed once, before any server starts. */
const SERVER_CONFIG: Record<string, unknown> | undefined = args['server-config']
  ? JSON.parse(args['server-config'])
  : undefined;

type Side = 'ours' | 'temporal' | 'floor';
const SIDES: Side[] = args.side === 'all' ? ['ours', 'temporal', 'floor'] : [args.side];
const N = args.schedules;
const MINUTE = 60_000;
const WINDOW_MS = args.minutes * MINUTE;
const FLOOR_LEAD_MS = args['floor-lead'] * 1000;
const CONCURRENCY = 20;

interface Cadence {
  name: 'minute' | '5 minutes' | 'hourly';
  /** Its cron (UTC), given the window's first minute. */
  cron: (i: number, w0: Date) => string;
}
const CADENCES: Cadence[] = [
  { name: 'minute', cron: () => '* * * * *' },
  { name: '5 minutes', cron: (i) => `${i % 5}-59/5 * * * *` },
  {
    name: 'hourly',
    cron: (i, w0) => `${(w0.getUTCMinutes() + 1 + (i % args.minutes)) % 60} * * * *`,
  },
];
/** Schedule i's cadence, by --mix. */
function cadenceOf(i: number): Cadence {
  const [minute = 0, five = 0] = args.mix;
  const at = ((i + 0.5) / N) * 100;
  return at < minute ? CADENCES[0]! : at < minute + five ? CADENCES[1]! : CADENCES[2]!;
}

/** The instants in [from, to) a cron of the three shapes above fires at (UTC, minute resolution). */
function slotsOf(cron: string, from: number, to: number): number[] {
  const [minuteField] = cron.split(' ');
  const out: number[] = [];
  for (let t = Math.ceil(from / MINUTE) * MINUTE; t < to; t += MINUTE) {
    const m = new Date(t).getUTCMinutes();
    if (minuteField === '*') out.push(t);
    else if (minuteField!.includes('/')) {
      const start = Number(minuteField!.split('-')[0]);
      if (m % 5 === start % 5) out.push(t);
    } else if (Number(minuteField) === m) out.push(t);
  }
  return out;
}

const idOf = (side: Side, i: number) =>
  `${{ ours: 'st', temporal: 'tst', floor: 'fst' }[side]}-${String(i).padStart(5, '0')}`;
const TEMPORAL_JOB = /^tjob-(tst-\d+)-(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)$/;
const FLOOR_JOB = /^fjob-(fst-\d+)-(\d+)$/;

interface Result {
  side: Side;
  fires: number;
  expected: number;
  lost: number;
  doubled: number;
  began: number[];
  cpu: { server: number; scheduler: number; jobs: number };
  eventsPerFire: number | null;
  wftsPerFire: number | null;
  /** Ours: how the sampled schedules' job starts went (local batches, their retries, regular activities). */
  starts: StartStats | null;
  persistence: PersistenceCall[];
  loadBefore: string;
  loadAfter: string;
}

interface StartStats {
  localActivities: number;
  localRetried: number;
  regularActivities: number;
  regularRetried: number;
  starts: number;
  duplicates: number;
}

const noStarts = (): StartStats => ({
  localActivities: 0,
  localRetried: 0,
  regularActivities: 0,
  regularRetried: 0,
  starts: 0,
  duplicates: 0,
});

const JOB_START_ACTIVITIES = new Set(['startJobWorkflows', 'startJobWorkflow']);

/**
 * A schedule's job starts inside the window, from its history: local activities (markers: their attempt and
 * result), regular ones (scheduled, and the attempt they completed on), the starts they made and how many
 * of those the server answered as already started. Says where a start is attempted twice.
 */
function startStatsOf(events: readonly HistoryEvent[]): StartStats {
  const stats = noStarts();
  const text = (p: { data?: Uint8Array | null } | undefined) => Buffer.from(p?.data ?? []).toString('utf8');
  const countStarts = (result: string) => {
    stats.starts += result.match(/"workflowId":/g)?.length ?? 0;
    stats.duplicates += result.match(/"duplicate":true/g)?.length ?? 0;
  };
  for (const e of events) {
    const marker = e.markerRecordedEventAttributes;
    if (marker?.markerName === 'core_local_activity') {
      const data = JSON.parse(text(marker.details?.data?.payloads?.[0]) || '{}');
      if (!JOB_START_ACTIVITIES.has(data.activity_type)) continue;
      stats.localActivities += 1;
      if (data.attempt > 1) stats.localRetried += 1;
      countStarts(text(marker.details?.result?.payloads?.[0]));
    }
    if (JOB_START_ACTIVITIES.has(e.activityTaskScheduledEventAttributes?.activityType?.name ?? ''))
      stats.regularActivities += 1;
    if ((e.activityTaskStartedEventAttributes?.attempt ?? 1) > 1) stats.regularRetried += 1;
    const completed = e.activityTaskCompletedEventAttributes;
    if (completed) countStarts(text(completed.result?.payloads?.[0]));
  }
  return stats;
}

async function runSide(side: Side): Promise<Result> {
  const loadBefore = loadavg();
  const metricsPort = await freePort();
  const stack = await startStack(
    `bench-steady-${side}`,
    { metricsPort, ...(SERVER_CONFIG ? { dynamicConfig: SERVER_CONFIG } : {}) },
    { armAheadMs: args['arm-ahead'] * 1000 },
  );
  try {
    const [jobs, scheduler] = await Promise.all([
      startWorker(stack, { ROLES: 'jobs' }),
      side === 'ours' ? startWorker(stack, { ROLES: 'scheduler' }) : Promise.resolve(undefined),
    ]);
    const cpuOf = () => ({
      server: procStats(stack.server.process.pid).cpuS,
      scheduler: scheduler ? procStats(scheduler.child.pid).cpuS : 0,
      jobs: procStats(jobs.child.pid).cpuS,
    });
    // The window opens whole minutes after creation could end (about 8 creates a second per side here).
    const createBudgetMs = (N / 8) * 1000 + 20_000;
    const w0 = Math.ceil((Date.now() + createBudgetMs + args.warmup * MINUTE) / MINUTE) * MINUTE + MINUTE / 2;
    const w1 = w0 + WINDOW_MS;
    const w0Date = new Date(w0);
    const crons = Array.from({ length: N }, (_, i) => cadenceOf(i).cron(i, w0Date));
    const expected = new Map<string, number[]>(
      crons.map((cron, i) => [idOf(side, i), slotsOf(cron, w0, w1)]),
    );

    log(`${side}: creating ${N} schedules; window ${w0Date.toISOString()} + ${args.minutes} min`);
    let floorStarts: Promise<unknown> = Promise.resolve();
    if (side === 'floor') {
      const through = new Map(crons.map((cron, i) => [idOf(side, i), slotsOf(cron, w0, w1 + FLOOR_LEAD_MS)]));
      floorStarts = startFloorJobs(stack, through, w0 - FLOOR_LEAD_MS, w1);
    } else
      await pool(crons, CONCURRENCY, async (cron, i) => {
        const id = idOf(side, i);
        if (side === 'ours')
          await stack.sdk.create({
            schedule_id: id,
            target: { type: 'JOB', job_type: 'noopJob' },
            timing: { kind: 'CRON', expression: cron, timezone: 'UTC' },
            overlap: 'ALLOW',
            max_lateness_s: 3600,
          });
        else await createTemporalSchedule(stack.client, id, cron);
      });
    if (Date.now() > w0) throw new Error(`${side}: creation ended inside the window: raise --warmup`);
    log(`${side}: created; ${((w0 - Date.now()) / 1000).toFixed(0)} s to the window`);
    await sleep(w0 - Date.now());
    const cpuBefore = cpuOf();
    const persistenceBefore = await scrapePersistence(metricsPort);
    await sleep(w1 - Date.now());
    const cpuAfter = cpuOf();
    const persistence = persistenceDelta(persistenceBefore, await scrapePersistence(metricsPort));
    const loadAfter = loadavg();
    log(`${side}: window closed; collecting`);
    await floorStarts;
    await sleep(20_000); // the window's last jobs begin and finish

    const jobsOf = new Map<string, Array<{ workflowId: string; slot: number }>>();
    for await (const wf of stack.client.workflow.list({ query: `WorkflowType = 'noopJob'` })) {
      let id: string | undefined;
      let slot: number | undefined;
      if (side === 'ours') {
        id = wf.typedSearchAttributes.get(ScheduleIdKey);
        slot = wf.typedSearchAttributes.get(ScheduledForKey)?.getTime();
      } else {
        const m = (side === 'temporal' ? TEMPORAL_JOB : FLOOR_JOB).exec(wf.workflowId);
        if (m) [id, slot] = [m[1], side === 'temporal' ? Date.parse(m[2]!) : Number(m[2])];
      }
      if (id === undefined || slot === undefined || slot < w0 || slot >= w1) continue;
      jobsOf.set(id, [...(jobsOf.get(id) ?? []), { workflowId: wf.workflowId, slot }]);
    }
    let fires = 0;
    let lost = 0;
    let doubled = 0;
    let expectedFires = 0;
    for (const [id, slots] of expected) {
      expectedFires += slots.length;
      for (const slot of slots) {
        const n = (jobsOf.get(id) ?? []).filter((j) => j.slot === slot).length;
        fires += n;
        if (n === 0) lost += 1;
        if (n > 1) doubled += 1;
      }
    }
    const began = (
      await pool([...jobsOf.values()].flat(), CONCURRENCY, async ({ workflowId, slot }) => {
        const events = (await stack.client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
        const first = events.find((e) => e.workflowTaskStartedEventAttributes);
        return first ? tsMs(first.eventTime) - slot : Number.NaN;
      })
    )
      .filter(Number.isFinite)
      .sort((a, b) => a - b);

    // The schedules' own workflows: their events inside the window, per fire of the same schedules.
    let eventsPerFire: number | null = null;
    let wftsPerFire: number | null = null;
    let starts: StartStats | null = null;
    if (side !== 'floor') {
      const sample = [...expected.keys()].slice(0, 60);
      const counted = await pool(sample, CONCURRENCY, async (id) => {
        const workflowId = side === 'ours' ? scheduleWorkflowId('acme', id) : `temporal-sys-scheduler:${id}`;
        const events = (await stack.client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
        const inWindow = events.filter((e) => tsMs(e.eventTime) >= w0 && tsMs(e.eventTime) < w1);
        return {
          events: inWindow.length,
          wfts: inWindow.filter((e) => e.workflowTaskCompletedEventAttributes).length,
          fires: jobsOf.get(id)?.length ?? 0,
          starts: side === 'ours' ? startStatsOf(inWindow) : null,
        };
      });
      if (side === 'ours') {
        starts = counted.reduce((sum, c) => {
          for (const key of Object.keys(sum) as Array<keyof StartStats>) sum[key] += c.starts![key];
          return sum;
        }, noStarts());
      }
      const sampledFires = counted.reduce((s, c) => s + c.fires, 0);
      eventsPerFire = counted.reduce((s, c) => s + c.events, 0) / sampledFires;
      wftsPerFire = counted.reduce((s, c) => s + c.wfts, 0) / sampledFires;
    }
    return {
      side,
      fires,
      expected: expectedFires,
      lost,
      doubled,
      began,
      cpu: {
        server: cpuAfter.server - cpuBefore.server,
        scheduler: cpuAfter.scheduler - cpuBefore.scheduler,
        jobs: cpuAfter.jobs - cpuBefore.jobs,
      },
      eventsPerFire,
      wftsPerFire,
      starts,
      persistence,
      loadBefore,
      loadAfter,
    };
  } finally {
    await stopStack(stack);
  }
}

/**
 * The floor: each slot's job started FLOOR_LEAD_MS before it with a start delay to it, no scheduler. The same
 * start ours makes (its four search attributes, its summary, an envelope as argument), so that what differs
 * is the scheduler; and every start due inside the window is made, also for slots past its end (ours arms
 * those too), so that the window holds one creation per fire in steady state.
 */
async function startFloorJobs(stack: Stack, expected: Map<string, number[]>, from: number, to: number) {
  const starts = [...expected.entries()]
    .flatMap(([id, slots]) => slots.map((slot) => ({ id, slot, at: slot - FLOOR_LEAD_MS })))
    .filter((s) => s.at >= from && s.at < to)
    .sort((a, b) => a.at - b.at);
  for (let i = 0; i < starts.length; ) {
    await sleep(starts[i]!.at - Date.now());
    const due = [];
    while (i < starts.length && starts[i]!.at <= Date.now()) due.push(starts[i++]!);
    await pool(due, CONCURRENCY, ({ id, slot }) => {
      const scheduledFor = new Date(slot).toISOString();
      const workflowId = `fjob-${id}-${slot}`;
      return stack.client.workflow.start('noopJob', {
        taskQueue: JOB_QUEUE,
        workflowId,
        args: [
          {
            occurrence_id: workflowId,
            idempotency_key: `schedule:${id}:${scheduledFor}`,
            tenant_id: 'acme',
            schedule_id: id,
            schedule_version: 1,
            scheduled_for: scheduledFor,
            emitted_at: new Date().toISOString(),
            trigger: 'SCHEDULE',
            payload_ref: null,
            payload: null,
          },
        ],
        startDelay: slot - Date.now(),
        typedSearchAttributes: [
          { key: TenantIdKey, value: 'acme' },
          { key: ScheduleIdKey, value: id },
          { key: OccurrenceIdKey, value: workflowId },
          { key: ScheduledForKey, value: new Date(slot) },
        ],
        staticSummary: `Occurrence of schedule ${id} for ${scheduledFor}`,
      });
    });
  }
}

const ms = (x: number) => (Number.isFinite(x) ? `${(x / 1000).toFixed(2)} s` : '—');
const perFire = (r: Result) => ((r.cpu.server + r.cpu.scheduler + r.cpu.jobs) * 1000) / r.fires;
const callsPerFire = (r: Result) => r.persistence.reduce((s, c) => s + c.requests, 0) / r.fires;

const results: Result[] = [];
for (const side of SIDES) results.push(await runSide(side));
const byName = (side: Side) => results.find((r) => r.side === side);
const command = `node --import tsx bench/scheduler/steady-state.ts ${process.argv.slice(2).join(' ')}`.trim();
const lines = [
  `### Steady state: ${N} schedules (${args.mix.join('/')} % every minute / 5 minutes / hourly), a ${args.minutes}-minute window`,
  '',
  `Command: \`${command}\`; ${new Date().toISOString()}; ${cpus().length} cores, ${(totalmem() / 2 ** 30).toFixed(0)} GiB.`,
  '',
  '| side | fires (expected) | lost / doubled | job began p50 / p99 | server CPU s | scheduler worker CPU s | job worker CPU s | total CPU ms / fire | events / fire (WFTs) | persistence calls / fire | load before → after |',
  '|---|---:|---|---|---:|---:|---:|---:|---:|---:|---|',
  ...results.map(
    (r) =>
      `| ${r.side} | ${r.fires} (${r.expected}) | ${r.lost} / ${r.doubled} | ${ms(quantile(r.began, 0.5))} / ${ms(quantile(r.began, 0.99))} | ${r.cpu.server.toFixed(1)} | ${r.cpu.scheduler.toFixed(1)} | ${r.cpu.jobs.toFixed(1)} | ${perFire(r).toFixed(1)} | ${r.eventsPerFire === null ? '—' : `${r.eventsPerFire.toFixed(1)} (${r.wftsPerFire!.toFixed(2)})`} | ${callsPerFire(r).toFixed(1)} | ${r.loadBefore} → ${r.loadAfter} |`,
  ),
];
const ours = byName('ours');
for (const other of ['temporal', 'floor'] as const) {
  const o = byName(other);
  if (!ours || !o) continue;
  lines.push(
    '',
    `Ours / ${other}: CPU per fire ${(perFire(ours) / perFire(o)).toFixed(2)}, job-began p99 ${(quantile(ours.began, 0.99) / quantile(o.began, 0.99)).toFixed(2)}.`,
  );
}
lines.push('');
for (const r of results)
  lines.push(
    `- ${r.side}: the server's persistence calls per fire: ${persistencePerFire(r.persistence, r.fires)}.`,
  );
for (const r of results)
  if (r.starts)
    lines.push(
      `- ${r.side}, the job starts of the sampled schedules in the window: ${r.starts.starts} starts (${r.starts.duplicates} answered as already started) by ${r.starts.localActivities} local activities (${r.starts.localRetried} on a second attempt or later) and ${r.starts.regularActivities} regular ones (${r.starts.regularRetried} attempts after the first).`,
    );
console.log(lines.join('\n'));
