// Views of model values as plain functions without zod: the schedule workflow imports them, and a workflow
// bundle that reached zod would carry every contract schema into each workflow's context (measured in
// bench/scheduler/versus-schedules.ts: a 2.9 MB bundle instead of 1.6 MB, set up per cached workflow).
import type {
  LastOccurrence,
  NextRun,
  Occurrence,
  Schedule,
  ScheduleDescription,
  ScheduleIdentity,
  ScheduleSpec,
  ScheduleStatus,
} from './contracts.js';

/** A calendar slot as the API shows it. */
export function toNextRun(slot: {
  scheduledFor: string;
  fireAt: string;
  local: string;
  label?: string;
  adjustments: Array<{ kind: string; note: string }>;
}): NextRun {
  return {
    scheduled_for: slot.scheduledFor,
    fire_at: slot.fireAt,
    local: slot.local,
    ...(slot.label ? { label: slot.label } : {}),
    adjustments: slot.adjustments,
  };
}

/**
 * Finished occurrences a schedule keeps (describe, the occurrences endpoint); every active one is kept too.
 * Changing it changes only what the state holds, never a command.
 */
export const RECENT_OCCURRENCES_KEPT = 256;
/** The failures a failure hook's notice lists (the streak's last ones). */
export const NOTICE_FAILURES_LISTED = 10;

/** A definition without its target's inline payload: what an audit needs of it, at a fraction of the size. */
export function withoutPayload(spec: ScheduleSpec): ScheduleSpec {
  const { payload: _payload, ...target } = spec.target;
  return { ...spec, target: target as ScheduleSpec['target'] };
}

/** Statuses a schedule never leaves (its workflow has ended or is ending). */
export const TERMINAL_STATUSES: ReadonlySet<string> = new Set(['COMPLETED', 'FAILED', 'CANCELLED']);
export const isTerminal = (status: string): boolean => TERMINAL_STATUSES.has(status);

/**
 * The SchedulerStatus search attribute of a deleted schedule: CANCELLED with `deleted_at`, shown as DELETED
 * in visibility so that listings leave it out by default.
 */
export const DELETED_VISIBLE_STATUS = 'DELETED';
export const visibleStatus = (status: string, deletedAt: string | null | undefined): string =>
  deletedAt ? DELETED_VISIBLE_STATUS : status;

/** What a schedule.v1 document says beyond its identity and definition. */
export interface ScheduleFacts {
  status: ScheduleStatus;
  version: number;
  nextRunAt: string | null;
  lastRunAt: string | null;
  createdAt: string;
  updatedAt: string;
  pauseNote: string | null;
  ownerRevokedAt: string | null;
  deletedAt: string | null;
}

/** The schedule.v1 document: the workflow's describe and the SDK's answers build it here, field for field. */
export function scheduleDocument(identity: ScheduleIdentity, spec: ScheduleSpec, f: ScheduleFacts): Schedule {
  return {
    contract: 'schedule.v1',
    ...identity,
    ...spec,
    status: f.status,
    version: f.version,
    next_run_at: f.nextRunAt,
    last_run_at: f.lastRunAt,
    created_at: f.createdAt,
    updated_at: f.updatedAt,
    pause_note: f.pauseNote,
    owner_revoked_at: f.ownerRevokedAt,
    deleted_at: f.deletedAt,
  };
}

/** A schedule as it is created: version 1, never run, never edited. */
export const newScheduleDocument = (
  identity: ScheduleIdentity,
  spec: ScheduleSpec,
  createdAt: string,
  status: ScheduleStatus,
  nextRunAt: string | null,
): Schedule =>
  scheduleDocument(identity, spec, {
    status,
    version: 1,
    nextRunAt,
    lastRunAt: null,
    createdAt,
    updatedAt: createdAt,
    pauseNote: null,
    ownerRevokedAt: null,
    deletedAt: null,
  });

/**
 * A schedule's own answer as of `nowMs`: an armed job whose instant passed has begun (the server starts it
 * then; the schedule records it at its next wake, which may be a lead before its next slot), so it shows
 * HANDED_OFF, counts as the last run, and leaves the next runs.
 */
export function describedAsOf(d: ScheduleDescription, nowMs: number): ScheduleDescription {
  const begun = (o: Occurrence) => o.status === 'ARMED' && Date.parse(o.fire_at) <= nowMs;
  if (!d.recent_occurrences.some(begun)) return d;
  let lastRunAt = d.schedule.last_run_at;
  const recent = d.recent_occurrences.map((o) => {
    if (!begun(o)) return o;
    if (!lastRunAt || Date.parse(lastRunAt) < Date.parse(o.fire_at)) lastRunAt = o.fire_at;
    return { ...o, status: 'HANDED_OFF' as const, finished_at: o.fire_at };
  });
  const nextRuns = d.next_runs.filter((r) => Date.parse(r.fire_at) > nowMs);
  const nextRunAt =
    d.schedule.next_run_at && Date.parse(d.schedule.next_run_at) <= nowMs
      ? (nextRuns[0]?.fire_at ?? null)
      : d.schedule.next_run_at;
  return {
    ...d,
    schedule: { ...d.schedule, last_run_at: lastRunAt, next_run_at: nextRunAt },
    recent_occurrences: recent,
    next_runs: nextRuns,
  };
}

/**
 * The newest occurrence whose instant has come by `nowMs`, or null. One still ahead is not it whatever its
 * status: ARMED, or DISPATCHING while its arming batch is in flight, or CANCELLED when a pause took it back.
 * Newest by its instant, then by its slot.
 */
export function lastOccurrenceOf(occurrences: readonly Occurrence[], nowMs: number): LastOccurrence | null {
  let last: Occurrence | undefined;
  for (const o of occurrences) {
    if (!(Date.parse(o.fire_at) <= nowMs)) continue;
    if (!last || newerThan(o, last)) last = o;
  }
  if (!last) return null;
  const { occurrence_id, scheduled_for, fire_at, emitted_at, status, reason, trigger } = last;
  return { occurrence_id, scheduled_for, fire_at, emitted_at, status, reason, trigger };
}

const newerThan = (a: Occurrence, b: Occurrence): boolean => {
  const byInstant = Date.parse(a.fire_at) - Date.parse(b.fire_at);
  return byInstant !== 0 ? byInstant > 0 : Date.parse(a.scheduled_for) > Date.parse(b.scheduled_for);
};
