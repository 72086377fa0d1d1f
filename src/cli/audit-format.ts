/**
 * Human output of `audit`: the counts by outcome (in the model's order), how far back the audit sees, and
 * a table of the slots worth a line. Pure functions of the API's responses, as format.ts.
 */
import { type AuditSlot, type ScheduleAudit, SlotOutcome, type TenantAudit } from '../model/audit.js';
import { asWritten, table } from './format.js';

const countsLine = (counts: ScheduleAudit['counts']): string =>
  SlotOutcome.options
    .filter((o) => counts[o])
    .map((o) => `${counts[o]} ${o}`)
    .join(', ') || 'no slots';

const auditRows = (slots: AuditSlot[]) =>
  slots.map((s) => [
    asWritten(s.scheduled_for),
    s.version === null ? '-' : String(s.version),
    s.outcome,
    s.lateness_s === null ? '' : `${Math.round(s.lateness_s * 10) / 10}s`,
    s.reason ?? '',
  ]);
const AUDIT_HEAD = ['SCHEDULED FOR (local)', 'V', 'OUTCOME', 'LATENESS', 'REASON'];
const NOT_WORTH_A_LINE: ReadonlySet<string> = new Set(['ON_TIME', 'REMOVED']);

/** `audit <id>`: the counts, how far back the audit sees, and the slots (all, or those not on time). */
export function formatAudit(a: ScheduleAudit, all: boolean): string {
  const shown = all ? a.slots : a.slots.filter((s) => !NOT_WORTH_A_LINE.has(s.outcome));
  return [
    `${a.schedule_id} ${a.from} .. ${a.to}: ${a.slots.length} slot(s): ${countsLine(a.counts)}`,
    `ledger: ${a.reach.ledger_since ? `records let go up to ${a.reach.ledger_since}` : 'complete'}; definitions known since ${a.reach.definitions_since ?? '-'}`,
    ...(shown.length > 0 ? [table(AUDIT_HEAD, auditRows(shown))] : []),
    ...(a.other_runs.length > 0
      ? [`other runs: ${a.other_runs.map((r) => `${r.trigger} ${r.occurrence_id} ${r.status}`).join('; ')}`]
      : []),
  ].join('\n');
}

/** `audit` without an id: the tenant's counts, and each schedule with a slot not on time. */
export function formatTenantAudit(t: TenantAudit): string {
  return [
    `${t.from} .. ${t.to}: ${t.schedules_read} schedule(s) read: ${countsLine(t.counts)}`,
    ...t.schedules.flatMap((s) => [
      `${s.schedule_id}: ${countsLine(s.counts)}`,
      table(AUDIT_HEAD, auditRows(s.not_on_time)),
    ]),
    ...t.unread.map((u) => `not read: ${u.schedule_id}: ${u.reason}`),
  ].join('\n');
}
