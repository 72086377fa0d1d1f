// The audit (issue 42): every slot a schedule's definitions called for in a range, each definition for the
// time it was in force, joined with what the schedule's ledger recorded — "what didn't run last night, and
// why". Contracts for the answer (zod, as every contract) and the record the schedule gives of itself.
import { z } from 'zod';
import type { Occurrence, ScheduleSpec, ScheduleStatus } from './contracts.js';

const instant = z.iso.datetime({ offset: true });

/** The most expected slots one schedule's audit computes; a longer range is refused, naming the bound. */
export const AUDIT_MAX_SLOTS = 5000;
/** The most schedules a tenant-wide report reads. */
export const AUDIT_MAX_SCHEDULES = 500;

export const SlotOutcome = z.enum([
  'ON_TIME', // handed off (or begun) within late_after_s of its instant
  'LATE', // handed off later than that (the lateness is given)
  'FAILED', // the hand-off failed, or the watched job failed
  'MISSED', // a misfire: found too late (an outage, a pause) and skipped by the misfire policy
  'SKIPPED', // the overlap policy skipped it
  'REFUSED', // the owner was revoked, or the tenant policy refused the target
  'CANCELLED', // the schedule was cancelled before it ran
  'REMOVED', // the calendar's own options removed it: a window that skips, an exclusion, a closed day
  'RUNNING', // handed off, still running or being handed off
  'PENDING', // not decided yet: due now, or the schedule is paused (decided on resume)
  'BEYOND_LEDGER', // older than what the ledger keeps, or than the oldest definition it recorded
  'UNEXPLAINED', // expected, decided, and no record: a bug by definition (counted in a metric)
]);
export type SlotOutcome = z.infer<typeof SlotOutcome>;

export const AuditRequest = z
  .object({
    from: instant,
    to: instant,
    late_after_s: z.coerce
      .number()
      .int()
      .min(0)
      .max(86_400)
      .default(60)
      .describe('a slot handed off later than this after its instant is LATE'),
  })
  .strict()
  .refine((r) => Date.parse(r.from) < Date.parse(r.to), { message: 'from must be before to', path: ['to'] });
export type AuditRequest = z.infer<typeof AuditRequest>;
export type AuditRequestInput = z.input<typeof AuditRequest>;

const OutcomeCounts = z
  .partialRecord(SlotOutcome, z.number().int())
  .describe('slots by outcome (outcomes with none left out)');

export const AuditSlot = z.object({
  scheduled_for: z.string(),
  version: z
    .number()
    .int()
    .nullable()
    .describe('the definition version that called for it (null beyond reach)'),
  outcome: SlotOutcome,
  reason: z.string().nullable(),
  occurrence_id: z.string().nullable(),
  lateness_s: z
    .number()
    .nullable()
    .describe('hand-off after the slot was due (fire_at), for slots handed off'),
});
export type AuditSlot = z.infer<typeof AuditSlot>;

export const ScheduleAudit = z.object({
  schedule_id: z.string(),
  from: z.string(),
  to: z.string().describe('the end of the range, or now when the range reaches past it'),
  reach: z.object({
    ledger_since: z
      .string()
      .nullable()
      .describe('the ledger has a record of every decided slot after this instant (null: since creation)'),
    definitions_since: z
      .string()
      .nullable()
      .describe('the definitions in force are known after this instant (null: none recorded in the range)'),
  }),
  counts: OutcomeCounts,
  slots: z.array(AuditSlot),
  other_runs: z
    .array(
      z.object({
        occurrence_id: z.string(),
        trigger: z.string(),
        status: z.string(),
        scheduled_for: z.string(),
      }),
    )
    .describe(
      'manual triggers and backfills (and payload overrides) in the range: runs no definition called for',
    ),
});
export type ScheduleAudit = z.infer<typeof ScheduleAudit>;

export const TenantAudit = z.object({
  from: z.string(),
  to: z.string(),
  schedules_read: z.number().int(),
  counts: OutcomeCounts,
  schedules: z
    .array(z.object({ schedule_id: z.string(), counts: OutcomeCounts, not_on_time: z.array(AuditSlot) }))
    .describe('the schedules with any slot other than ON_TIME or REMOVED, each with those slots'),
  unread: z
    .array(z.object({ schedule_id: z.string(), reason: z.string() }))
    .describe(
      'schedules whose audit could not be made (their worker did not answer, a definition that cannot be computed)',
    ),
});
export type TenantAudit = z.infer<typeof TenantAudit>;

/** A definition and when it took over: its slots are those after `from` (until the next one's `from`). */
export interface DefinitionInForce {
  version: number;
  from: string;
  spec: ScheduleSpec;
}

/** What a schedule tells of itself for an audit (its `audit` query): everything else is computed outside. */
export interface ScheduleAuditRecord {
  created_at: string;
  status: ScheduleStatus;
  version: number;
  /** Every slot with scheduled_for <= watermark has been decided. */
  watermark: string;
  /** Oldest first; empty when the definitions before the current one were never recorded. */
  in_force: DefinitionInForce[];
  occurrences: Occurrence[];
  /** The latest scheduled_for among occurrences the ledger let go; null: it let none go. */
  dropped_up_to: string | null;
}
