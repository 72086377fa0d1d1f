// The contracts of recompute (SPEC.md "Zone rule changes"): what a schedule shows of the tz database and the
// holiday data its slots follow, and what a recompute asks and answers. Part of the contracts (contracts.ts
// re-exports all of it).
import { z } from 'zod';

/** What one recompute of a schedule's buffered slots did. */
export const RecomputeRecord = z.object({
  at: z.string().describe('when the buffered future slots were dropped and computed again'),
  reason: z.string().describe('horizon, or who asked and why (a tenant, a worker with a newer tz database)'),
  dropped: z.number().int().describe('future slots dropped'),
  moved: z
    .number()
    .int()
    .describe('dropped slots whose instant or offset changed (absent from the new computation)'),
  tz_version: z.string().nullable().describe('the tz database release that computed the new slots'),
});
export type RecomputeRecord = z.infer<typeof RecomputeRecord>;

/** Which tz database the schedule's recorded instants come from, and how they are kept fresh. */
export const ScheduleTzView = z.object({
  computed_with: z
    .array(z.string())
    .describe('tz database releases that computed the buffered future slots (oldest first)'),
  trusted_until: z
    .string()
    .nullable()
    .describe('slots firing after this are computed again first (the horizon); null before 0.6'),
  newer_seen: z
    .object({ version: z.string(), seen_at: z.string() })
    .nullable()
    .describe('a worker with a newer tz database than computed_with said so; cleared by a recompute'),
  horizon_refreshes: z.number().int(),
  recomputes: z.number().int().describe('recomputes asked for (a tenant, an operator, a newer worker)'),
  last_recompute: RecomputeRecord.nullable(),
});
export type ScheduleTzView = z.infer<typeof ScheduleTzView>;

/** The business-day calendar a schedule's slots follow: which data decided them, and until when it is trusted. */
export const ScheduleHolidaysView = z.object({
  region: z.string(),
  computed_with: z
    .array(z.string())
    .describe('holiday data releases that decided the buffered future slots (e.g. date-holidays@3.37.0)'),
  trusted_until: z
    .string()
    .nullable()
    .describe(
      'slots firing after this are computed again first, with the holiday data of the worker then (the horizon)',
    ),
  newer_seen: z
    .object({ version: z.string(), seen_at: z.string() })
    .nullable()
    .describe('a worker with newer holiday data than computed_with said so; cleared by a recompute'),
});
export type ScheduleHolidaysView = z.infer<typeof ScheduleHolidaysView>;

export const RecomputeRequest = z
  .object({
    zone: z
      .string()
      .min(1)
      .max(64)
      .optional()
      .describe('only schedules whose instants depend on this IANA zone; default: every one'),
    if_older_than: z
      .string()
      .regex(/^\d{4}[a-z]+$/, 'a tz database release such as 2025c')
      .optional()
      .describe('only schedules with a buffered slot computed by an older tz database release'),
    if_holiday_data_older_than: z
      .string()
      .regex(/^[a-z0-9@/._-]+@\d+\.\d+\.\d+$/, 'a holiday data release such as date-holidays@3.38.0')
      .optional()
      .describe(
        'only schedules with a buffered slot whose business days an older holiday data release decided',
      ),
    reason: z.string().max(500).optional(),
  })
  .strict();
export type RecomputeRequest = z.infer<typeof RecomputeRequest>;

export const RecomputeResult = z.object({
  recomputed: z.boolean(),
  reason: z.string().describe('why not, when recomputed is false'),
  record: RecomputeRecord.nullable(),
});
export type RecomputeResult = z.infer<typeof RecomputeResult>;

/** What a recompute of a tenant's schedules did (POST /v1/schedules:recompute). */
export const RecomputeSummary = z.object({
  matched: z.number().int().describe('running schedules selected (by zone, when one was given)'),
  recomputed: z.number().int(),
  moved_slots: z.number().int().describe('buffered slots whose instant changed, over all schedules'),
  moved: z
    .array(z.object({ schedule_id: z.string(), moved: z.number().int(), tz_version: z.string().nullable() }))
    .describe('the schedules whose slots moved'),
  failed: z
    .array(z.object({ schedule_id: z.string(), error: z.string() }))
    .describe(
      'schedules that could not be asked: recompute each alone (POST /v1/schedules/{id}/recompute; idempotent), as a tenant-wide recompute runs once per tenant every 10 minutes',
    ),
});
export type RecomputeSummary = z.infer<typeof RecomputeSummary>;
