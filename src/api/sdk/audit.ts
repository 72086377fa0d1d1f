// The audit (issue 42): the slots a schedule's definitions called for in a range — each definition for the
// time it was in force, computed with the calendar the workflow uses — joined with the schedule's ledger.
// Every expected slot gets an outcome and a reason; one decided with no record is UNEXPLAINED (a bug by
// definition). The tenant-wide report is the same for each of the tenant's schedules, a few at a time.
import { CalendarError } from '../../calendar/errors.js';
import type { Slot } from '../../calendar/index.js';
import {
  AUDIT_MAX_SCHEDULES,
  AUDIT_MAX_SLOTS,
  AuditRequest,
  type AuditRequestInput,
  type AuditSlot,
  type DefinitionInForce,
  type ScheduleAudit,
  type ScheduleAuditRecord,
  type SlotOutcome,
  type TenantAudit,
} from '../../model/audit.js';
import type { Occurrence, ScheduleSpec } from '../../model/contracts.js';
import { REFUSED_BY_POLICY } from '../../model/handoff-failures.js';
import { canonicalInstant } from '../../model/ids.js';
import { isTerminal } from '../../model/views.js';
import { parseOrThrow, SchedulerError, validationError } from '../errors.js';
import { IN_PROCESS_SLOTS } from '../slot-runner.js';
import { inTurns } from './in-turns.js';
import { visibleScheduleIds } from './listing.js';
import type { ScheduleCalls } from './schedule-calls.js';

/** Schedules a tenant-wide report audits at once. */
const AUDITS_AT_ONCE = 4;

/** Why a SKIPPED or FAILED occurrence was not run, as an outcome: by the reasons the schedule wrote. */
export function outcomeOfRecord(occ: Occurrence, lateAfterS: number, nowMs: number): AuditSlot {
  const base = { occurrence_id: occ.occurrence_id, reason: occ.reason, lateness_s: null };
  const slot = (outcome: SlotOutcome, extra: Partial<AuditSlot> = {}): AuditSlot => ({
    scheduled_for: occ.scheduled_for,
    version: occ.schedule_version,
    ...base,
    outcome,
    ...extra,
  });
  switch (occ.status) {
    case 'HANDED_OFF':
    case 'COMPLETED': {
      // An armed job was handed to the server before its instant, which began it then.
      const handed = Math.max(Date.parse(occ.emitted_at ?? occ.fire_at), Date.parse(occ.fire_at));
      const lateness = (handed - Date.parse(occ.fire_at)) / 1000;
      return slot(lateness <= lateAfterS ? 'ON_TIME' : 'LATE', { lateness_s: lateness });
    }
    case 'FAILED':
      return slot(occ.reason?.startsWith(REFUSED_BY_POLICY) ? 'REFUSED' : 'FAILED');
    case 'SKIPPED':
      return slot(skippedOutcome(occ.reason ?? ''));
    case 'CANCELLED':
      return slot('CANCELLED');
    case 'ARMED':
      return slot(Date.parse(occ.fire_at) > nowMs ? 'PENDING' : 'RUNNING');
    default:
      return slot('RUNNING');
  }
}

/**
 * The reasons src/workflows/policy.ts and the lifecycle write (test/unit/audit.test.ts derives them from
 * those functions, so a reworded reason fails there, not silently here).
 */
function skippedOutcome(reason: string): SlotOutcome {
  if (/^late by /.test(reason)) return 'MISSED';
  if (/^refused/.test(reason)) return 'REFUSED';
  return 'SKIPPED';
}

const instantKey = canonicalInstant;
const isOwnRun = (o: Occurrence) => o.trigger === 'SCHEDULE' && !o.override;

/** The calendar's own removals to explain: a window that skips, exclusions, closed days that are skipped. */
function withoutRemovals(
  spec: ScheduleSpec,
): { relaxed: ScheduleSpec; removers: Array<keyof ScheduleSpec> } | null {
  const removers: Array<keyof ScheduleSpec> = [];
  if (spec.window?.outside === 'SKIP') removers.push('window');
  if (spec.exclusions?.length) removers.push('exclusions');
  if (
    spec.business_days &&
    (spec.business_days.roll ?? 'SKIP') === 'SKIP' &&
    spec.timing.kind !== 'BUSINESS_DAY'
  )
    removers.push('business_days');
  if (removers.length === 0) return null;
  const relaxed = { ...spec };
  for (const key of removers) delete relaxed[key];
  return { relaxed, removers };
}

const REMOVAL_REASONS: Partial<Record<keyof ScheduleSpec, string>> = {
  window: 'outside the window (window.outside SKIP)',
  exclusions: 'an excluded date (exclusions)',
  business_days: 'a closed day (business_days, roll SKIP)',
};

/** Computes the slots of definitions, counting them against AUDIT_MAX_SLOTS for the whole audit. */
class SlotBudget {
  private computed = 0;

  constructor(
    private readonly calls: ScheduleCalls,
    private readonly scheduleId: string,
    private readonly createdAt: string,
  ) {}

  /** The slots `spec` calls for in (after, until]. */
  async slots(spec: ScheduleSpec, after: number, until: number): Promise<Slot[]> {
    const runner = this.calls.options.calendar ?? IN_PROCESS_SLOTS;
    let slots: Slot[];
    try {
      const [batch] = await runner.slots(this.calls.tenant, [
        {
          scheduleId: this.scheduleId,
          spec,
          createdAt: this.createdAt,
          after: new Date(after).toISOString(),
          until: new Date(until).toISOString(),
          count: AUDIT_MAX_SLOTS + 1 - this.computed,
        },
      ]);
      slots = batch!.slots;
    } catch (err) {
      if (err instanceof CalendarError && err.code === 'SEARCH_LIMIT')
        throw new SchedulerError(
          'VALIDATION',
          `the slots of this range could not be computed (${err.reason}): audit a shorter range`,
          'to',
        );
      throw validationError(err) ?? err;
    }
    this.computed += slots.length;
    if (this.computed > AUDIT_MAX_SLOTS)
      throw new SchedulerError(
        'VALIDATION',
        `the range covers more than ${AUDIT_MAX_SLOTS} expected slots: audit a shorter range`,
        'to',
      );
    return slots;
  }
}

/** Each definition's part of (from, to]: after its own `from`, until the next one took over. */
function intervalsOf(inForce: DefinitionInForce[], from: number, to: number) {
  return inForce
    .map((entry, i) => ({
      entry,
      after: Math.max(from, Date.parse(entry.from)),
      until: Math.min(to, i + 1 < inForce.length ? Date.parse(inForce[i + 1]!.from) : to),
    }))
    .filter((part) => part.after < part.until);
}

/** The slots of one definition's part: expected ones, and those its window, exclusions or closed days removed. */
async function expectedIn(
  budget: SlotBudget,
  part: { entry: DefinitionInForce; after: number; until: number },
): Promise<Array<{ slot: Slot; removedBy: string | null }>> {
  const { spec } = part.entry;
  const kept = await budget.slots(spec, part.after, part.until);
  const removals = withoutRemovals(spec);
  if (!removals) return kept.map((slot) => ({ slot, removedBy: null }));
  const keptAt = new Set(kept.map((s) => instantKey(s.scheduledFor)));
  const removed = (await budget.slots(removals.relaxed, part.after, part.until)).filter(
    (s) => !keptAt.has(instantKey(s.scheduledFor)),
  );
  // Which option removed a slot: the one whose absence alone brings it back.
  const reasons = new Map<string, string>();
  for (const remover of removals.removers) {
    if (removals.removers.length === 1) {
      for (const s of removed) reasons.set(instantKey(s.scheduledFor), REMOVAL_REASONS[remover]!);
      break;
    }
    const without = { ...spec };
    delete without[remover];
    for (const s of await budget.slots(without, part.after, part.until)) {
      const at = instantKey(s.scheduledFor);
      if (!keptAt.has(at) && !reasons.has(at)) reasons.set(at, REMOVAL_REASONS[remover]!);
    }
  }
  return [
    ...kept.map((slot) => ({ slot, removedBy: null })),
    ...removed.map((slot) => ({
      slot,
      removedBy: reasons.get(instantKey(slot.scheduledFor)) ?? 'removed by the calendar options together',
    })),
  ].sort((a, b) => Date.parse(a.slot.scheduledFor) - Date.parse(b.slot.scheduledFor));
}

/** An expected slot the ledger has no record of: not decided yet, let go, or unexplained. */
function unrecorded(record: ScheduleAuditRecord, at: string): Pick<AuditSlot, 'outcome' | 'reason'> {
  const atMs = Date.parse(at);
  if (atMs > Date.parse(record.watermark))
    return record.status === 'PAUSED'
      ? { outcome: 'PENDING', reason: 'the schedule is paused: the misfire policy decides it on resume' }
      : { outcome: 'PENDING', reason: 'due: not decided yet' };
  if (record.dropped_up_to && atMs <= Date.parse(record.dropped_up_to))
    return {
      outcome: 'BEYOND_LEDGER',
      reason:
        'the ledger keeps the latest 256 occurrences: this slot’s record was let go (a JOB’s workflow ID is its occurrence ID)',
    };
  return { outcome: 'UNEXPLAINED', reason: 'decided, and no record of it' };
}

/** The audit of one schedule's record for `request`, as of `nowMs`. */
export async function auditRecordOf(
  calls: ScheduleCalls,
  scheduleId: string,
  record: ScheduleAuditRecord,
  request: AuditRequest,
  nowMs: number,
): Promise<ScheduleAudit> {
  const from = Math.max(Date.parse(request.from), Date.parse(record.created_at));
  // A schedule that ended called for nothing after its last decision.
  const end = isTerminal(record.status) ? Date.parse(record.watermark) : nowMs;
  const to = Math.min(Date.parse(request.to), end);
  const budget = new SlotBudget(calls, scheduleId, record.created_at);
  const own = new Map(record.occurrences.filter(isOwnRun).map((o) => [instantKey(o.scheduled_for), o]));
  const slots: AuditSlot[] = [];
  for (const part of intervalsOf(record.in_force, from - 1, to)) {
    // FIXED_DELAY counts each slot from the previous job's end: its slots are the ones it recorded.
    const fixedDelay =
      part.entry.spec.timing.kind === 'INTERVAL' && part.entry.spec.timing.mode === 'FIXED_DELAY';
    const expected = fixedDelay
      ? [...own.values()]
          .filter(
            (o) => Date.parse(o.scheduled_for) > part.after && Date.parse(o.scheduled_for) <= part.until,
          )
          .map((o) => ({ slot: { scheduledFor: o.scheduled_for } as Slot, removedBy: null }))
      : await expectedIn(budget, part);
    for (const { slot, removedBy } of expected) {
      const base = {
        scheduled_for: slot.scheduledFor,
        version: part.entry.version,
        occurrence_id: null,
        lateness_s: null,
      };
      const occ = own.get(instantKey(slot.scheduledFor));
      if (removedBy) slots.push({ ...base, outcome: 'REMOVED', reason: removedBy });
      else if (occ) slots.push(outcomeOfRecord(occ, request.late_after_s, nowMs));
      else slots.push({ ...base, ...unrecorded(record, slot.scheduledFor) });
    }
  }
  const inRange = (o: Occurrence) => Date.parse(o.scheduled_for) >= from && Date.parse(o.scheduled_for) <= to;
  return {
    schedule_id: scheduleId,
    from: new Date(from).toISOString(),
    to: new Date(to).toISOString(),
    reach: {
      ledger_since: record.dropped_up_to,
      definitions_since: record.in_force[0]?.from ?? null,
    },
    counts: countsOf(slots),
    slots,
    other_runs: record.occurrences
      .filter((o) => !isOwnRun(o) && inRange(o))
      .map((o) => ({
        occurrence_id: o.occurrence_id,
        trigger: o.trigger,
        status: o.status,
        scheduled_for: o.scheduled_for,
      })),
  };
}

function countsOf(slots: readonly AuditSlot[]): ScheduleAudit['counts'] {
  const counts: ScheduleAudit['counts'] = {};
  for (const s of slots) counts[s.outcome] = (counts[s.outcome] ?? 0) + 1;
  return counts;
}

/** SchedulerClient.audit: one schedule. */
export async function auditSchedule(
  calls: ScheduleCalls,
  scheduleId: string,
  input: AuditRequestInput,
): Promise<ScheduleAudit> {
  const request = parseOrThrow(AuditRequest, input);
  const record = await calls.auditRecord(scheduleId);
  return await auditRecordOf(calls, scheduleId, record, request, Date.parse(await calls.now()));
}

const ALL_RIGHT: ReadonlySet<SlotOutcome> = new Set(['ON_TIME', 'REMOVED']);

/** SchedulerClient.auditTenant: every schedule of the tenant (deleted ones too: what did not run, did not). */
export interface AuditHooks {
  /** Told how many schedules the report will audit, before it reads them (the HTTP API charges for them). */
  onRead?(schedules: number): void;
}

export async function auditTenant(
  calls: ScheduleCalls,
  input: AuditRequestInput,
  hooks: AuditHooks = {},
): Promise<TenantAudit> {
  const request = parseOrThrow(AuditRequest, input);
  // IDs from visibility: each schedule is then read once, by its audit record (a listing would read it too).
  const ids = await visibleScheduleIds(calls, AUDIT_MAX_SCHEDULES);
  if (ids.length > AUDIT_MAX_SCHEDULES)
    throw new SchedulerError(
      'VALIDATION',
      `the tenant has more than ${AUDIT_MAX_SCHEDULES} schedules: audit them by schedule`,
      'from',
    );
  ids.sort();
  hooks.onRead?.(ids.length);
  const nowMs = Date.parse(await calls.now());
  const audits = await inTurns(ids, AUDITS_AT_ONCE, async (id) => {
    try {
      const record = await calls.auditRecord(id);
      // Created after the range: it called for nothing in it.
      if (Date.parse(record.created_at) >= Date.parse(request.to)) return {};
      return { audit: await auditRecordOf(calls, id, record, request, nowMs) };
    } catch (err) {
      // Deleted from the store since it was listed: nothing to audit.
      if (err instanceof SchedulerError && err.code === 'NOT_FOUND') return {};
      return { unread: { schedule_id: id, reason: (err as Error).message } };
    }
  });
  const read = audits.flatMap((a) => (a.audit ? [a.audit] : []));
  return {
    from: request.from,
    to: new Date(Math.min(Date.parse(request.to), nowMs)).toISOString(),
    schedules_read: read.length,
    counts: countsOf(read.flatMap((a) => a.slots)),
    schedules: read
      .filter((a) => a.slots.some((s) => !ALL_RIGHT.has(s.outcome)))
      .map((a) => ({
        schedule_id: a.schedule_id,
        counts: a.counts,
        not_on_time: a.slots.filter((s) => !ALL_RIGHT.has(s.outcome)),
      })),
    unread: audits.flatMap((a) => (a.unread ? [a.unread] : [])),
  };
}
