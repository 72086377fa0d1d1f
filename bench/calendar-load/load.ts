// Issue 20: the calendar off the HTTP API's event loop, measured. A dev server, a scheduler worker process
// and two API processes (src/main.ts, SCHEDULER_ROLE=api) on it, side by side:
//   before  SCHEDULER_CALENDAR_THREADS=0: every calendar search on the event loop, as main's API ran them
//   after   the default pool (2 threads, 1000 ms budget per request, fair queue per tenant)
// Tenant B has a schedule. For each kind of worst request and each K, tenant A keeps K of them in flight
// (each answered request replaced at once) for a few seconds, while B reads its schedule with
// GET /v1/schedules/{id} every 50 ms (open loop) and a probe asks /healthz the same way: the figures are
// p50/p99/max of those two latencies, and what A got (statuses, mean latency).
// CPU per request: each kind sent alone a few times to the `before` API, its process CPU (/proc) divided.
//
//   node --import tsx bench/calendar-load/load.ts [--seconds 6] [--k 3,6] [--runs 3] [--kinds a,b]
import { randomUUID } from 'node:crypto';
import {
  type ApiProcess,
  procStats,
  quantile,
  startApiProcess,
  startStack,
  startWorker,
  stopStack,
} from '../../test/integration/support.js';
import { benchArgs, decimal, integer, integers, names } from '../args.js';

const args = benchArgs('node --import tsx bench/calendar-load/load.ts', {
  seconds: decimal(6, 'how long tenant A keeps each K in flight'),
  k: integers([3, 6], "tenant A's requests in flight, one round per K"),
  runs: integer(3, 'rounds per kind and K'),
  kinds: names('only these kinds of worst request (default: all)'),
  'cpu-samples': integer(3, 'requests per kind for CPU per request'),
});
const SECONDS = args.seconds;
const KS = args.k;
const RUNS = args.runs;
const CPU_SAMPLES = args['cpu-samples'];

/** B reads its schedule, and a probe asks /healthz, every PACE_MS (open loop). */
const PACE_MS = 50;
const KEY_A = 'bench-calendar-load-tenant-a-0123456789';
const KEY_B = 'bench-calendar-load-tenant-b-0123456789';
const KEYS = `${KEY_A}=a:ops,${KEY_B}=b:ops`;
const job = { type: 'JOB', job_type: 'benchJob' };
const daily = (dtstart: string, timezone: string) => ({
  kind: 'RECURRENCE',
  rule: `DTSTART:${dtstart}T000000\nRRULE:FREQ=DAILY;COUNT=1000000000`,
  timezone,
});

interface Kind {
  name: string;
  what: string;
  send: (api: ApiProcess) => Promise<number>;
}
const preview = (body: Record<string, unknown>) => async (api: ApiProcess) =>
  (await api.call('POST', '/v1/preview', { key: KEY_A, body })).status;
const create = (body: Record<string, unknown>) => async (api: ApiProcess) =>
  (
    await api.call('POST', '/v1/schedules', {
      key: KEY_A,
      body: { schedule_id: `a-${randomUUID()}`, target: job, ...body },
    })
  ).status;

const KINDS: Kind[] = [
  {
    name: 'preview-y1000',
    what: 'POST /v1/preview, DAILY;COUNT=1e9 from DTSTART 1000-01-01, Asia/Kathmandu, count 100 (422)',
    send: preview({ timing: daily('10000101', 'Asia/Kathmandu'), count: 100 }),
  },
  {
    name: 'create-y1000',
    what: 'POST /v1/schedules, the same rule in Pacific/Chatham (422)',
    send: create({ timing: daily('10000101', 'Pacific/Chatham') }),
  },
  {
    name: 'create-y1482',
    what: 'POST /v1/schedules, DAILY;COUNT=1e9 from 1482-01-01, Australia/Lord_Howe: just inside the 200,000 candidates, so valid (201 before, two full searches)',
    send: create({ timing: daily('14820101', 'Australia/Lord_Howe') }),
  },
  {
    name: 'preview-feb29-monday',
    what: 'POST /v1/preview, FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=29;BYDAY=MO, Australia/Lord_Howe, count 100 (200)',
    send: preview({
      timing: {
        kind: 'RECURRENCE',
        rule: 'FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=29;BYDAY=MO',
        timezone: 'Australia/Lord_Howe',
      },
      count: 100,
    }),
  },
  {
    name: 'create-window-skip',
    what: 'POST /v1/schedules, FREQ=MINUTELY in Australia/Lord_Howe, window 00:00–00:01 Mondays, SKIP (201)',
    send: create({
      timing: { kind: 'RECURRENCE', rule: 'FREQ=MINUTELY', timezone: 'Australia/Lord_Howe' },
      window: { from: '00:00', to: '00:01', outside: 'SKIP', days: ['MO'] },
    }),
  },
];
const kinds = args.kinds ? KINDS.filter((k) => args.kinds!.includes(k.name)) : KINDS;

interface Probe {
  latencies: number[];
  statuses: Map<number, number>;
}
/**
 * Sends `one` every `everyMs` until `until` whether or not the previous one was answered (an open loop: a
 * blocked server is measured as every request that waited on it, not as the one that got through), recording
 * each latency (ms) and status.
 */
async function paced(until: number, everyMs: number, one: () => Promise<number>): Promise<Probe> {
  const probe: Probe = { latencies: [], statuses: new Map() };
  const pending: Promise<void>[] = [];
  for (let at = Date.now(); at < until; at += everyMs) {
    await new Promise((r) => setTimeout(r, Math.max(0, at - Date.now())));
    const t0 = performance.now();
    pending.push(
      one()
        .catch(() => -1)
        .then((status) => {
          probe.latencies.push(performance.now() - t0);
          probe.statuses.set(status, (probe.statuses.get(status) ?? 0) + 1);
        }),
    );
  }
  await Promise.all(pending);
  return probe;
}

/** Sends `one` again and again, one at a time, until `until`, recording each latency (ms) and status. */
async function loop(until: number, one: () => Promise<number>): Promise<Probe> {
  const probe: Probe = { latencies: [], statuses: new Map() };
  while (Date.now() < until) {
    const t0 = performance.now();
    const status = await one().catch(() => -1);
    probe.latencies.push(performance.now() - t0);
    probe.statuses.set(status, (probe.statuses.get(status) ?? 0) + 1);
  }
  return probe;
}

const fmt = (ms: number) => (Number.isNaN(ms) ? '—' : ms >= 100 ? ms.toFixed(0) : ms.toFixed(1));
const stats = (xs: number[]) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return `${fmt(quantile(sorted, 0.5))} / ${fmt(quantile(sorted, 0.99))} / ${fmt(sorted[sorted.length - 1] ?? Number.NaN)}`;
};
const statusText = (m: Map<number, number>) =>
  [...m.entries()]
    .sort()
    .map(([s, n]) => `${n}×${s}`)
    .join(' ');

async function measure(api: ApiProcess, bPath: string, kind: Kind | null, k: number) {
  const until = Date.now() + SECONDS * 1000;
  // A's K requests in flight (closed loops); B's reads and the health probe start once they are sent.
  const attackers = kind ? Array.from({ length: k }, () => loop(until, () => kind.send(api))) : [];
  await new Promise((r) => setTimeout(r, 50));
  const [b, health, ...a] = await Promise.all([
    paced(until, PACE_MS, async () => (await api.call('GET', bPath, { key: KEY_B })).status),
    paced(until, PACE_MS, async () => (await api.call('GET', '/healthz')).status),
    ...attackers,
  ]);
  const aLatencies = a.flatMap((p) => p.latencies);
  const aStatuses = new Map<number, number>();
  for (const p of a) for (const [s, n] of p.statuses) aStatuses.set(s, (aStatuses.get(s) ?? 0) + n);
  return {
    b: stats(b.latencies),
    bStatuses: statusText(b.statuses),
    bCount: b.latencies.length,
    health: stats(health.latencies),
    a: aLatencies.length
      ? `${statusText(aStatuses)}, mean ${fmt(aLatencies.reduce((x, y) => x + y, 0) / aLatencies.length)} ms`
      : '—',
  };
}

async function main() {
  const stack = await startStack('calendar-load');
  try {
    await startWorker(stack, { ROLES: 'scheduler' });
    const before = await startApiProcess(stack, KEYS, { SCHEDULER_CALENDAR_THREADS: '0' });
    const after = await startApiProcess(stack, KEYS);
    const apis = { before, after };
    const created = await after.call('POST', '/v1/schedules', {
      key: KEY_B,
      body: {
        schedule_id: 'b-hourly',
        timing: { kind: 'CRON', expression: '0 * * * *', timezone: 'UTC' },
        target: job,
      },
    });
    if (created.status !== 201 && created.status !== 200) throw new Error(`B's create: ${created.status}`);
    const bPath = '/v1/schedules/b-hourly';
    for (const api of [before, after]) {
      const warm = await api.call('GET', bPath, { key: KEY_B });
      if (warm.status !== 200) throw new Error(`B's read: ${warm.status}`);
    }

    console.log(`machine: ${(await import('node:os')).cpus().length} CPUs, node ${process.version}`);
    console.log('\nCPU per request (sent alone to `before`, the API process on /proc, then `after`):');
    console.log('| request | before: CPU ms / wall ms / status | after: wall ms / status |');
    console.log('| --- | --- | --- |');
    for (const kind of kinds) {
      const row: string[] = [];
      for (const [mode, api] of Object.entries(apis)) {
        let status = 0;
        const cpu0 = procStats(api.child.pid).cpuS;
        const t0 = performance.now();
        for (let i = 0; i < CPU_SAMPLES; i++) status = await kind.send(api);
        const wall = (performance.now() - t0) / CPU_SAMPLES;
        const cpu = ((procStats(api.child.pid).cpuS - cpu0) * 1000) / CPU_SAMPLES;
        row.push(mode === 'before' ? `${fmt(cpu)} / ${fmt(wall)} / ${status}` : `${fmt(wall)} / ${status}`);
      }
      console.log(`| ${kind.name} | ${row.join(' | ')} |`);
    }

    for (let run = 1; run <= RUNS; run++) {
      console.log(`\nrun ${run}: p50 / p99 / max ms, ${SECONDS} s per cell`);
      console.log(
        "| A's requests in flight | API | B's GET /v1/schedules/{id} | B's reads | GET /healthz | A's answers |",
      );
      console.log('| --- | --- | --- | --- | --- | --- |');
      const cells: Array<[Kind | null, number]> = [
        [null, 0],
        ...kinds.flatMap((kd) => KS.map((k) => [kd, k] as [Kind, number])),
      ];
      for (const [kind, k] of cells) {
        for (const [mode, api] of Object.entries(apis)) {
          const m = await measure(api, bPath, kind, k);
          console.log(
            `| ${kind ? `${k} × ${kind.name}` : 'none'} | ${mode} | ${m.b} | ${m.bCount} (${m.bStatuses}) | ${m.health} | ${m.a} |`,
          );
          // Let the pool's queue and the worker's backlog of A's creates drain before the next cell.
          await new Promise((r) => setTimeout(r, 1500));
        }
      }
    }
    console.log('\nkinds:');
    for (const kind of kinds) console.log(`- ${kind.name}: ${kind.what}`);
  } finally {
    await stopStack(stack);
  }
}

await main();
process.exit(0);
