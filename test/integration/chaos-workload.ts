// The worker-kill chaos workload (issue 10), shared by `npm run chaos` (scripts/chaos.ts, ≥ 100 kills) and
// the small version in `npm test` (test/integration/worker-chaos.test.ts). On a fresh dev server, schedules
// of the three hand-off kinds fire in bursts (one common grid): JOB started from a local activity (overlap
// ALLOW), JOB started as a child (overlap QUEUE) and EVENT POSTed to a sink in this process. The scheduler
// worker process (with the job worker) is SIGKILLed at a random moment of each of its lives and replaced.
// What the targets received is recorded outside Temporal — the ledger: a JOB's activity appends a run
// line to a file (test/fixtures/durable-jobs.ts), the sink appends every delivery it receives — and at the
// end the ledger is compared with the slots the grid says were due: lost, doubled, redelivered.

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import proto from '@temporalio/proto';
import type { ScheduleSpecInput } from '../../src/model/contracts.js';
import { idempotencyKey, occurrenceId, scheduleWorkflowId } from '../../src/model/ids.js';
import { isLocalActivityMarker } from '../helpers/history.js';
import { retryTransient, TransientCounter } from '../helpers/transient.js';
import { prng } from '../unit/calendar/helpers.js';
import { type FaultSink, startFaultSink } from './fault-sink.js';
import {
  eventually,
  groupBy,
  killHard,
  quantile,
  readRunLines,
  type Stack,
  startStack,
  startWorker,
  stopStack,
} from './support.js';

export interface ChaosOptions {
  kills: number;
  /** Schedules of each kind (JOB local activity, JOB child, EVENT). */
  perKind: number;
  /** The grid every schedule fires on, in seconds. */
  everyS: number;
  /** Each worker lives a random time in [0, maxUpMs] after it polls before it is killed. */
  maxUpMs: number;
  /** Seed of the kill moments (the run is still timed by a real machine: not replayable exactly). */
  seed: number;
  /** Where to write the histories of schedules whose workflow tasks failed (default: not written). */
  historiesDir?: string;
  log?: (line: string) => void;
}

export interface KillRecord {
  /** When the killed worker polled, and when it was killed (epoch ms). */
  readyAt: number;
  killedAt: number;
  /** Time from the kill to the replacement worker polling. */
  restartMs: number;
  /** Time from the kill to the next hand-off any target received; null: none before the next kill. */
  recoveryMs: number | null;
}

export interface ChaosReport {
  options: ChaosOptions;
  schedules: number;
  kills: KillRecord[];
  /** Grid slots due up to `cut`: every one must have exactly one logical occurrence in the ledger. */
  expectedSlots: number;
  cut: string;
  lost: string[];
  /** Slots whose target ran or was delivered as more than one logical occurrence. */
  doubled: string[];
  /** Ledger entries that are no slot of any schedule's grid. */
  strays: string[];
  /** EVENT deliveries of an already delivered occurrence (same id and key): at-least-once delivery. */
  eventRedeliveries: number;
  /** Deliveries whose id or Idempotency-Key is not the slot's. */
  wrongKeys: number;
  /** JOB run lines written by a retried attempt of the job's own activity (same run). */
  jobActivityRetries: number;
  ledgerEntries: number;
  /** Occurrences the schedules recorded as FAILED (their own view). */
  failedOccurrences: number;
  /** Schedules with lost slots, as they describe themselves at the end. */
  stalled: Array<{
    scheduleId: string;
    lost: number;
    firstLost: string;
    status: string;
    running: string[];
    queued: number;
    occurrenceStatuses: Record<string, number>;
  }>;
  /** Schedules that could not be read at the end (e.g. their workflow task is failing). */
  unreadable: Array<{ scheduleId: string; error: string }>;
  /** Workflow tasks that failed in the schedules' histories, by cause and message. */
  workflowTaskFailures: Array<{ scheduleId: string; cause: string; message: string; count: number }>;
  /** Job starts the schedules made from a local activity (v0.4's inert starts), against all job starts. */
  jobStarts: { local: number; activity: number };
  /** Histories of schedules with failed workflow tasks or lost slots, written here (binary protobuf). */
  savedHistories: string[];
  /** Transient server answers to the reads at the end (asked again), e.g. a read past its deadline. */
  transientAnswers: string;
  durationMs: number;
}

type Kind = 'job-local' | 'job-child' | 'event';
const KINDS: Kind[] = ['job-local', 'job-child', 'event'];

const sleep = (ms: number) => new Promise((r) => setTimeout(r, Math.max(0, ms)));

function specOf(kind: Kind, sinkUrl: string, every: string, anchor: string): ScheduleSpecInput {
  const timing = { kind: 'INTERVAL' as const, every, anchor };
  // Every slot stays on time however long recovery takes: each one must fire.
  const common = { timing, max_lateness_s: 3600 };
  switch (kind) {
    case 'job-local':
      return { ...common, target: { type: 'JOB', job_type: 'fileRecordedJob' }, overlap: 'ALLOW' };
    case 'job-child':
      return {
        ...common,
        target: { type: 'JOB', job_type: 'fileRecordedJob' },
        overlap: 'QUEUE',
        queue_limit: 1000,
      };
    case 'event':
      return { ...common, target: { type: 'EVENT', event_type: 'chaos.tick', sink_url: sinkUrl } };
  }
}

export async function runKillChaos(options: ChaosOptions): Promise<ChaosReport> {
  const log = options.log ?? (() => {});
  const t0 = Date.now();
  const random = prng(options.seed);
  const everyMs = options.everyS * 1000;
  let stack: Stack | undefined;
  let sink: FaultSink | undefined;
  try {
    stack = await startStack('chaos');
    sink = await startFaultSink();
    const { deliveries } = sink;
    const sinkUrl = sink.url('/events');
    const runLog = join(stack.dir, 'runs.jsonl');
    const env = { RUN_LOG: runLog };

    // The first worker builds the workflow bundles; the replacements reuse them.
    let worker = await startWorker(stack, env);
    log(`worker ready (bundles built) after ${Date.now() - t0} ms`);
    const anchorMs = Math.ceil((Date.now() + 5000) / everyMs) * everyMs;
    const anchor = new Date(anchorMs).toISOString();
    const scheduleIds: string[] = [];
    for (const kind of KINDS) {
      for (let i = 0; i < options.perKind; i++) {
        const id = `chaos-${kind}-${i}`;
        scheduleIds.push(id);
        await stack.sdk.create({
          schedule_id: id,
          ...specOf(kind, sinkUrl, `PT${options.everyS}S`, anchor),
        });
      }
    }
    log(`${scheduleIds.length} schedules every ${options.everyS} s from ${anchor}`);
    await sleep(anchorMs - Date.now());

    const kills: Array<Omit<KillRecord, 'recoveryMs'>> = [];
    for (let k = 0; k < options.kills; k++) {
      await sleep(worker.pollingAt + random() * options.maxUpMs - Date.now());
      const readyAt = worker.pollingAt;
      const killedAt = await killHard(worker);
      worker = await startWorker(stack, env);
      kills.push({ readyAt, killedAt, restartMs: worker.pollingAt - killedAt });
      if ((k + 1) % 10 === 0 || k + 1 === options.kills) log(`${k + 1}/${options.kills} kills`);
    }

    // The last worker stays. Every slot due by the time it polled must reach its target.
    const cutMs = worker.pollingAt;
    const slotsDue = Math.floor((cutMs - anchorMs) / everyMs) + 1;
    const expected = new Map<string, { scheduleId: string; scheduledFor: string }>();
    for (const scheduleId of scheduleIds) {
      for (let n = 0; n < slotsDue; n++) {
        const scheduledFor = new Date(anchorMs + n * everyMs).toISOString();
        expected.set(occurrenceId('acme', scheduleId, scheduledFor), { scheduleId, scheduledFor });
      }
    }
    const ledgerIds = () =>
      new Set([...readRunLines(runLog).map((l) => l.occurrence_id), ...deliveries.map((d) => d.id)]);
    const missing = () => {
      const seen = ledgerIds();
      return [...expected.keys()].filter((id) => !seen.has(id));
    };
    // A hand-off whose worker died mid-activity is retried after its start-to-close timeout (20 s) and
    // backoff: allow a few minutes before calling a slot lost, but stop once nothing moved for 90 s.
    let lastCount = Number.POSITIVE_INFINITY;
    let lastMove = Date.now();
    await eventually(
      'every due slot in the ledger',
      async () => {
        const count = missing().length;
        if (count < lastCount) [lastCount, lastMove] = [count, Date.now()];
        return count === 0 || Date.now() - lastMove > 90_000 ? true : undefined;
      },
      300_000,
      1000,
    ).catch(() => undefined);
    // In-flight deliveries of the last slots settle before the ledger is read.
    await sleep(3000);

    const runLines = readRunLines(runLog);
    const lost = missing();
    const doubled: string[] = [];
    const strays: string[] = [];
    let wrongKeys = 0;
    let eventRedeliveries = 0;
    // JOB: one workflow run per occurrence, whatever its activity's attempts.
    for (const [id, lines] of groupBy(runLines, (l) => l.occurrence_id)) {
      if (new Set(lines.map((l) => l.run_id)).size > 1) doubled.push(id);
      const slot = expected.get(id);
      if (!slot && Date.parse(lines[0]!.scheduled_for) <= cutMs) strays.push(id);
    }
    const jobActivityRetries = runLines.length - new Set(runLines.map((l) => l.occurrence_id)).size;
    // EVENT: a slot is one occurrence ID and key; repeats of it are redeliveries, not new occurrences.
    for (const [slotKey, list] of groupBy(
      deliveries,
      (d) => `${d.scheduleId} ${Date.parse(d.scheduledFor)}`,
    )) {
      const ids = new Set(list.map((d) => d.id));
      if (ids.size > 1) doubled.push(slotKey);
      eventRedeliveries += list.length - 1;
      for (const d of list) {
        if (
          d.id !== occurrenceId('acme', d.scheduleId, d.scheduledFor) ||
          d.key !== idempotencyKey(d.scheduleId, d.scheduledFor)
        )
          wrongKeys++;
      }
      const first = list[0]!;
      if (!expected.has(first.id) && Date.parse(first.scheduledFor) <= cutMs) strays.push(first.id);
    }

    // Recovery: from each kill to the first hand-off after it, if it came before the next kill.
    const handoffTimes = [...runLines.map((l) => l.at), ...deliveries.map((d) => d.at)].sort((a, b) => a - b);
    const records: KillRecord[] = kills.map((kill, i) => {
      const until = kills[i + 1]?.killedAt ?? Number.POSITIVE_INFINITY;
      const next = handoffTimes.find((t) => t > kill.killedAt);
      return { ...kill, recoveryMs: next !== undefined && next <= until ? next - kill.killedAt : null };
    });

    const lostBySchedule = groupBy(lost, (id) => id.split('/')[2]!);
    const stalled: ChaosReport['stalled'] = [];
    let failedOccurrences = 0;
    const unreadable: ChaosReport['unreadable'] = [];
    const workflowTaskFailures: ChaosReport['workflowTaskFailures'] = [];
    const jobStarts = { local: 0, activity: 0 };
    const savedHistories: string[] = [];
    // The reads at the end meet a loaded server too: a transient answer is asked again (a few times, so a
    // schedule that cannot be read at all is still reported unreadable); any other error is not.
    const transient = new TransientCounter();
    const { sdk, client } = stack;
    for (const id of scheduleIds) {
      try {
        const d = await retryTransient('reads', transient, () => sdk.describe(id), 4);
        failedOccurrences += d.recent_occurrences.filter((o) => o.status === 'FAILED').length;
        const missingHere = lostBySchedule.get(id);
        if (missingHere) {
          const statuses = groupBy(d.recent_occurrences, (o) => o.status);
          stalled.push({
            scheduleId: id,
            lost: missingHere.length,
            firstLost: missingHere.sort()[0]!,
            status: d.schedule.status,
            running: d.running,
            queued: d.queued.length,
            occurrenceStatuses: Object.fromEntries([...statuses].map(([k, v]) => [k, v.length])),
          });
        }
      } catch (err) {
        unreadable.push({
          scheduleId: id,
          error: (err as Error).cause ? String((err as Error).cause) : String(err),
        });
      }
      // Every run of the schedule's workflow (it continues as new).
      const failures = new Map<string, number>();
      let runs = 0;
      for await (const wf of client.workflow.list({
        query: `WorkflowId = '${scheduleWorkflowId('acme', id)}'`,
      })) {
        runs++;
        const history = await retryTransient('history reads', transient, () =>
          client.workflow.getHandle(wf.workflowId, wf.runId).fetchHistory(),
        );
        let failedHere = 0;
        for (const e of history.events ?? []) {
          if (isLocalActivityMarker(e)) jobStarts.local++;
          if (e.activityTaskScheduledEventAttributes?.activityType?.name === 'startJobWorkflow')
            jobStarts.activity++;
          const f = e.workflowTaskFailedEventAttributes;
          if (!f) continue;
          failedHere++;
          const cause = proto.temporal.api.enums.v1.WorkflowTaskFailedCause[f.cause ?? 0] ?? String(f.cause);
          const key = `${cause}\u0000${(f.failure?.message ?? '').slice(0, 300)}`;
          failures.set(key, (failures.get(key) ?? 0) + 1);
        }
        if ((failedHere > 0 || lostBySchedule.has(id)) && options.historiesDir) {
          mkdirSync(options.historiesDir, { recursive: true });
          const file = join(options.historiesDir, `${id}-${wf.runId}.binpb`);
          writeFileSync(file, proto.temporal.api.history.v1.History.encode(history).finish());
          savedHistories.push(file);
        }
      }
      if (runs === 0) unreadable.push({ scheduleId: id, error: 'no workflow run listed' });
      for (const [key, count] of failures) {
        const [cause, message] = key.split('\u0000') as [string, string];
        workflowTaskFailures.push({ scheduleId: id, cause, message, count });
      }
    }
    return {
      options,
      schedules: scheduleIds.length,
      kills: records,
      expectedSlots: expected.size,
      cut: new Date(cutMs).toISOString(),
      lost,
      doubled,
      strays,
      eventRedeliveries,
      wrongKeys,
      jobActivityRetries,
      ledgerEntries: runLines.length + deliveries.length,
      failedOccurrences,
      stalled,
      unreadable,
      workflowTaskFailures,
      jobStarts,
      savedHistories,
      transientAnswers: String(transient),
      durationMs: Date.now() - t0,
    };
  } finally {
    await sink?.close();
    await stopStack(stack);
  }
}

/** p50 / max of a list of milliseconds, as "p50 / max s". */
export function spread(values: number[]): { p50: number; max: number } {
  const sorted = [...values].sort((a, b) => a - b);
  return { p50: quantile(sorted, 0.5), max: sorted.at(-1) ?? Number.NaN };
}

export function formatReport(r: ChaosReport): string {
  const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  const recovered = r.kills.flatMap((k) => (k.recoveryMs === null ? [] : [k.recoveryMs]));
  const rec = spread(recovered);
  const restart = spread(r.kills.map((k) => k.restartMs));
  const up = spread(r.kills.map((k) => k.killedAt - k.readyAt));
  return [
    `| measure | value |`,
    `|---|---|`,
    `| worker SIGKILLs | ${r.kills.length} (each after a random ${s(0)}–${s(r.options.maxUpMs)} of polling; seed ${r.options.seed}) |`,
    `| schedules | ${r.schedules} (${r.options.perKind} each: JOB local activity, JOB child/QUEUE, EVENT), every ${r.options.everyS} s on one grid |`,
    `| slots due up to the last restart (${r.cut}) | ${r.expectedSlots} |`,
    `| ledger entries (run lines + sink deliveries) | ${r.ledgerEntries} |`,
    `| lost (due slot, nothing in the ledger) | ${r.lost.length} |`,
    `| doubled (a slot run/delivered as more than one logical occurrence) | ${r.doubled.length} |`,
    `| strays (ledger entries on no due slot) | ${r.strays.length} |`,
    `| wrong id / Idempotency-Key on a delivery | ${r.wrongKeys} |`,
    `| EVENT redeliveries (same id + key: at-least-once) | ${r.eventRedeliveries} |`,
    `| JOB activity re-runs inside one job run | ${r.jobActivityRetries} |`,
    `| occurrences recorded FAILED by the schedules | ${r.failedOccurrences} |`,
    `| schedules unreadable at the end | ${r.unreadable.length} |`,
    `| failed workflow tasks in the schedules' histories | ${r.workflowTaskFailures.reduce((n, f) => n + f.count, 0)} (${[...new Set(r.workflowTaskFailures.map((f) => f.cause))].join(', ') || 'none'}) |`,
    `| JOB starts from a local activity / from a regular activity (all runs' histories) | ${r.jobStarts.local} / ${r.jobStarts.activity} |`,
    `| worker lifetime before the kill, p50 / max | ${s(up.p50)} / ${s(up.max)} |`,
    `| kill → replacement polling, p50 / max | ${s(restart.p50)} / ${s(restart.max)} |`,
    `| kill → next hand-off, p50 / max (${recovered.length} kills; ${r.kills.length - recovered.length} had none before the next kill) | ${s(rec.p50)} / ${s(rec.max)} |`,
    `| reads at the end answered transiently (asked again) | ${r.transientAnswers} |`,
    `| wall time | ${s(r.durationMs)} |`,
  ].join('\n');
}
