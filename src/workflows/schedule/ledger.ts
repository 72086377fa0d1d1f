// The schedule's record of its occurrences: every status an occurrence takes and every counter that moves
// is written here and nowhere else (state.ts, STATE_OWNERS), so describe, the exported metrics and the
// hand-off envelope agree. Bounded: the oldest
// finished occurrences make room; active ones stay however many there are.
import * as wf from '@temporalio/workflow';
import type { JobStartResult } from '../../activities/handoff.js';
import type {
  NoticeFailure,
  Occurrence,
  OccurrenceEnvelope,
  PayloadOverride,
  ScheduleCounters,
} from '../../model/contracts.js';
import { idempotencyKey, occurrenceId } from '../../model/ids.js';
import { NOTICE_FAILURES_LISTED } from '../../model/views.js';
import { workflowNow, workflowNowIso } from '../clock.js';
import { countDisarmed, countOccurrence, type MetricLabels, recordLateness } from '../metrics.js';
import { hasFailureHooks, type PendingFire, RECENT_LIMIT, type ScheduleState } from './state.js';

const ACTIVE_OCCURRENCE: ReadonlySet<Occurrence['status']> = new Set([
  'QUEUED',
  'DISPATCHING',
  'ARMED',
  'RUNNING',
]);
const JOB_EXISTED = 'the target workflow for this slot already existed';

/** How a target took an occurrence: the target's word that it had it already counts as a duplicate. */
export interface HandedOff {
  targetRef: string;
  attempt: number;
  duplicate: boolean;
}

/** A finished occurrence of a schedule with failure hooks, and the streak it ended or lengthened. */
export interface FinishedRun {
  occ: Occurrence;
  failed: boolean;
  /** Failures in a row: with this one, or (a success) those it ended. */
  consecutive: number;
  /** The last of them, oldest first. */
  failures: NoticeFailure[];
}

export class Ledger {
  /** Told of every finished occurrence of a schedule with on_failure or on_recovery (./hooks.ts). */
  onFinished: ((run: FinishedRun) => void) | null = null;

  constructor(private readonly s: ScheduleState) {}

  find(id: string): Occurrence | undefined {
    return this.s.occurrences.find((o) => o.occurrence_id === id);
  }

  /** The occurrence a fire is: its slot, and the payload override it runs with. */
  idOf(fire: Pick<PendingFire, 'slot' | 'override'>): string {
    const { tenant_id, schedule_id } = this.s.identity;
    return occurrenceId(tenant_id, schedule_id, fire.slot.scheduledFor, fire.override);
  }

  /** A trigger's or backfill's payload override, kept until no occurrence that may still run uses it. */
  keepOverride(digest: string, override: PayloadOverride): void {
    this.s.overrides ??= {};
    this.s.overrides[digest] = override;
  }

  /** Drops the overrides no active occurrence runs with (after a trigger or backfill, and as they finish). */
  releaseOverrides(): void {
    const { overrides } = this.s;
    if (!overrides) return;
    const inUse = new Set(
      this.s.occurrences.filter((o) => o.override && ACTIVE_OCCURRENCE.has(o.status)).map((o) => o.override),
    );
    for (const digest of Object.keys(overrides)) if (!inUse.has(digest)) delete overrides[digest];
  }

  /** Occurrences the overlap policy counts as running: started and awaited, or being handed off. */
  activeCount(): number {
    return this.s.running.length + this.s.occurrences.filter((o) => o.status === 'DISPATCHING').length;
  }

  newOccurrence(fire: PendingFire): Occurrence {
    const { s } = this;
    return {
      occurrence_id: this.idOf(fire),
      schedule_id: s.identity.schedule_id,
      schedule_version: s.version,
      scheduled_for: fire.slot.scheduledFor,
      fire_at: fire.slot.fireAt,
      emitted_at: null,
      idempotency_key: idempotencyKey(s.identity.schedule_id, fire.slot.scheduledFor, fire.override),
      target_ref: '',
      payload_ref: fire.override
        ? (s.overrides?.[fire.override]?.payload_ref ?? null)
        : (s.spec.target.payload_ref ?? null),
      status: 'QUEUED',
      attempt: 0,
      reason: [fire.reason, ...fire.slot.adjustments.map((a) => a.note)].filter(Boolean).join('; ') || null,
      trigger: fire.trigger,
      duplicate_prevented: false,
      finished_at: null,
      ...(fire.slot.tz ? { tz_version: fire.slot.tz } : {}),
      ...(fire.slot.holidays ? { holiday_data_version: fire.slot.holidays } : {}),
      ...(fire.override ? { override: fire.override } : {}),
    };
  }

  remember(occ: Occurrence): void {
    const { occurrences } = this.s;
    occurrences.push(occ);
    while (occurrences.length > RECENT_LIMIT) {
      const index = occurrences.findIndex((o) => !ACTIVE_OCCURRENCE.has(o.status));
      if (index < 0) break;
      const [dropped] = occurrences.splice(index, 1);
      this.noteDropped(dropped!);
    }
  }

  /** Where the audit's knowledge of the schedule's own slots ends. */
  private noteDropped(occ: Occurrence): void {
    if (occ.trigger !== 'SCHEDULE') return;
    const upTo = this.s.droppedUpTo;
    if (!upTo || Date.parse(occ.scheduled_for) > Date.parse(upTo)) this.s.droppedUpTo = occ.scheduled_for;
  }

  /**
   * The occurrence already emitted for this slot (counted as a prevented duplicate), or null: the slot is
   * free to emit, a SKIPPED record of it forgotten (a skipped slot may run later; its new record replaces
   * the old one).
   */
  emittedBefore(fire: PendingFire): Occurrence | null {
    const existing = this.find(this.idOf(fire));
    if (existing && existing.status !== 'SKIPPED') {
      this.count('duplicates_prevented', fire);
      return existing;
    }
    if (existing) this.forget(existing);
    return null;
  }

  /** A skipped slot may run later (trigger, backfill): its new record replaces the old one. */
  forget(occ: Occurrence): void {
    this.s.occurrences.splice(this.s.occurrences.indexOf(occ), 1);
  }

  private labels(occ: Pick<Occurrence, 'trigger'>): MetricLabels {
    return { tenant: this.s.identity.tenant_id, timing_kind: this.s.spec.timing.kind, trigger: occ.trigger };
  }

  /** Every counter moves here: the schedule's own (describe) and the exported metric. */
  count(counter: keyof ScheduleCounters, occ: Pick<Occurrence, 'trigger'>): void {
    this.s.counters[counter] += 1;
    countOccurrence(counter, this.labels(occ));
  }

  /** A slot decided not to run: a new SKIPPED occurrence, counted as skipped or expired. */
  skip(fire: PendingFire, reason: string, counter: 'skipped' | 'expired' = 'skipped'): Occurrence {
    const occ = this.newOccurrence(fire);
    occ.status = 'SKIPPED';
    occ.reason = reason;
    this.count(counter, occ);
    this.remember(occ);
    return occ;
  }

  /** An occurrence already recorded (queued, or waiting for its hand-off) that will not run after all. */
  markSkipped(occ: Occurrence, reason: string): void {
    occ.status = 'SKIPPED';
    occ.reason = reason;
    this.count('skipped', occ);
    if (occ.override) this.releaseOverrides();
  }

  /** Decided to run: its hand-off starts now, or once the schedule's bound leaves room. */
  recordDispatching(occ: Occurrence): void {
    occ.status = 'DISPATCHING';
  }

  /** An armed job a disarm could not take back: it runs, and says why. */
  noteNotDisarmed(occ: Occurrence, note: string): void {
    occ.reason = [occ.reason, note].filter(Boolean).join('; ');
  }

  markCancelled(ids: readonly string[]): void {
    for (const id of ids) {
      const occ = this.find(id);
      if (occ) {
        occ.status = 'CANCELLED';
        occ.reason = 'schedule cancelled before the occurrence ran';
      }
    }
  }

  /**
   * The hand-off goes out now: the emission is counted (and its lateness, for a slot of the calendar). An
   * armed one (`armed`) runs at its instant, its last run then (recordArmedBegun); its lateness is the
   * server's.
   */
  recordEmitted(occ: Occurrence, late: boolean, armed = false): void {
    occ.emitted_at = workflowNowIso();
    if (!armed) this.s.lastRunAt = occ.emitted_at;
    this.count('fired', occ);
    if (late) this.count('caught_up', occ);
    wf.log.info('occurrence emitted', {
      occurrence_id: occ.occurrence_id,
      scheduled_for: occ.scheduled_for,
      trigger: occ.trigger,
      schedule_version: occ.schedule_version,
    });
    if (occ.trigger === 'SCHEDULE' && !armed) {
      recordLateness((Date.parse(occ.emitted_at) - Date.parse(occ.scheduled_for)) / 1000, this.labels(occ));
    }
  }

  envelope(occ: Occurrence): OccurrenceEnvelope {
    const { s } = this;
    return {
      occurrence_id: occ.occurrence_id,
      idempotency_key: occ.idempotency_key,
      tenant_id: s.identity.tenant_id,
      schedule_id: s.identity.schedule_id,
      schedule_version: occ.schedule_version,
      scheduled_for: occ.scheduled_for,
      emitted_at: occ.emitted_at!,
      trigger: occ.trigger,
      payload_ref: occ.payload_ref,
      payload: occ.override
        ? (s.overrides?.[occ.override]?.payload ?? null)
        : (s.spec.target.payload ?? null),
      ...(occ.override ? { override: occ.override } : {}),
    };
  }

  finish(occ: Occurrence, status: Occurrence['status'], reason: string | null): void {
    occ.status = status;
    occ.finished_at = workflowNowIso();
    if (reason) occ.reason = reason;
    this.s.lastCompletedAt = occ.finished_at;
    this.countStreak(occ);
    if (occ.override) this.releaseOverrides();
  }

  /**
   * Failures in a row, for the failure hooks: a FAILED occurrence lengthens the streak, a handed-off or
   * completed one ends it, a cancelled one is neither. Kept only for schedules with hooks.
   */
  private countStreak(occ: Occurrence): void {
    const { spec } = this.s;
    if (!hasFailureHooks(spec) || occ.status === 'CANCELLED') return;
    const failed = occ.status === 'FAILED';
    this.s.failureStreak ??= { count: 0, recent: [] };
    const streak = this.s.failureStreak;
    const ended = { consecutive: streak.count, failures: streak.recent };
    if (failed) {
      streak.count += 1;
      streak.recent = [
        ...streak.recent,
        { occurrence_id: occ.occurrence_id, scheduled_for: occ.scheduled_for, reason: occ.reason },
      ].slice(-NOTICE_FAILURES_LISTED);
    } else {
      streak.count = 0;
      streak.recent = [];
    }
    this.onFinished?.(
      failed
        ? { occ, failed, consecutive: streak.count, failures: streak.recent }
        : { occ, failed, ...ended },
    );
  }

  get consecutiveFailures(): number {
    return this.s.failureStreak?.count ?? 0;
  }

  recordFailed(occ: Occurrence, reason: string): void {
    this.finish(occ, 'FAILED', reason);
    this.count('failed', occ);
  }

  /** Every hand-off that nothing waits for ends here: HANDED_OFF, a duplicate counted as prevented. */
  recordHandedOff(occ: Occurrence, handed: HandedOff, duplicateNote: string | null): void {
    occ.target_ref = handed.targetRef;
    occ.attempt = handed.attempt;
    if (handed.duplicate) {
      occ.duplicate_prevented = true;
      this.count('duplicates_prevented', occ);
    }
    this.finish(occ, 'HANDED_OFF', handed.duplicate ? duplicateNote : null);
  }

  /**
   * A JOB started from an activity, which nothing waits for: handed off, or found already started; one
   * started ahead (`armed`) is ARMED until its instant.
   */
  recordJobStarted(occ: Occurrence, started: JobStartResult, armed = false): void {
    // Armed too late to wait for its instant (a start delayed past it), it began at once.
    if (armed && !started.duplicate && Date.parse(occ.fire_at) > workflowNow()) {
      occ.status = 'ARMED';
      occ.target_ref = started.workflowId;
      occ.attempt = started.attempt;
      return;
    }
    this.recordHandedOff(occ, { targetRef: started.workflowId, ...started }, JOB_EXISTED);
  }

  /** An armed job's instant passed: the server began it then. */
  recordArmedBegun(occ: Occurrence): void {
    this.finish(occ, 'HANDED_OFF', null);
    occ.finished_at = occ.fire_at;
    if (!this.s.lastRunAt || Date.parse(this.s.lastRunAt) < Date.parse(occ.fire_at))
      this.s.lastRunAt = occ.fire_at;
  }

  /**
   * An armed job terminated before it began: its emission is uncounted. Without `ended` (a pause, an edit)
   * the occurrence is taken back (forgotten); with it (a cancel, a revocation) the occurrence ends so.
   */
  recordDisarmed(occ: Occurrence, ended: { status: 'CANCELLED' | 'SKIPPED'; reason: string } | null): void {
    this.s.counters.fired -= 1;
    countDisarmed(this.labels(occ));
    // Taken back: never emitted.
    occ.emitted_at = null;
    if (ended?.status === 'SKIPPED') {
      this.markSkipped(occ, ended.reason);
      return;
    }
    if (ended) {
      occ.status = ended.status;
      occ.reason = ended.reason;
      return;
    }
    this.forget(occ);
  }

  /**
   * A JOB started as a child: RUNNING while the run awaits it (`awaited`), else handed off like any other.
   * Returns whether the run now awaits its completion (the invoker counts it as running).
   */
  recordChildStarted(occ: Occurrence, started: { workflowId: string; duplicate: boolean }, awaited: boolean) {
    if (started.duplicate || !awaited) {
      this.recordHandedOff(
        occ,
        { targetRef: started.workflowId, attempt: 1, duplicate: started.duplicate },
        JOB_EXISTED,
      );
      return false;
    }
    occ.target_ref = started.workflowId;
    occ.attempt = 1;
    occ.status = 'RUNNING';
    return true;
  }

  /** An awaited child finished: its outcome is the occurrence's. */
  recordChildFinished(
    occ: Occurrence,
    outcome: { status: Occurrence['status']; reason: string | null },
  ): void {
    this.finish(occ, outcome.status, outcome.reason);
    if (outcome.status === 'FAILED') this.count('failed', occ);
  }
}
