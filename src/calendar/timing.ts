/**
 * Zod contracts for `timing` and the calendar options of a schedule (SPEC.md "Contracts").
 * Field names are part of the public contract. The schemas check shape; everything that needs
 * more than shape (zones, rules, durations, dates) is checked by `compileCalendar`, which throws
 * a typed {@link CalendarError} naming the field.
 */
import { z } from 'zod';
import { CalendarError } from './errors.js';

const zoneId = z
  .string()
  .min(1)
  .max(64)
  .describe('IANA time zone id, e.g. Europe/Riga (never a fixed offset)');
const dateTime = z
  .string()
  .min(10)
  .max(40)
  .describe('ISO 8601 date-time; local wall clock (with `timezone`) or with Z / UTC offset');
const instant = z.string().min(10).max(40).describe('ISO 8601 instant with Z or a UTC offset');
const duration = z.string().min(2).max(40).describe('ISO 8601 duration, e.g. PT10M, P1D');

export const OneTimeTiming = z
  .object({
    kind: z.literal('ONE_TIME'),
    at: dateTime,
    timezone: zoneId.optional(),
  })
  .strict();

export const DelayTiming = z
  .object({
    kind: z.literal('DELAY'),
    delay: duration,
    anchor: instant.optional().describe('instant the delay counts from; default: schedule creation'),
  })
  .strict();

export const IntervalTiming = z
  .object({
    kind: z.literal('INTERVAL'),
    every: duration.describe('fixed-length ISO 8601 duration (no years/months)'),
    mode: z.enum(['FIXED_RATE', 'FIXED_DELAY']).optional(),
    anchor: instant.optional().describe('grid origin (FIXED_RATE) / first run basis; default: creation'),
  })
  .strict();

export const RecurrenceTiming = z
  .object({
    kind: z.literal('RECURRENCE'),
    rule: z
      .string()
      .min(1)
      .max(8192)
      .describe(
        'RRULE body (FREQ=…;…) or RFC 5545 block with DTSTART;TZID=, RRULE (several), EXRULE, RDATE (also VALUE=PERIOD), EXDATE lines',
      ),
    timezone: zoneId,
  })
  .strict();

export const CronTiming = z
  .object({
    kind: z.literal('CRON'),
    expression: z.string().min(1).max(512).describe('5 fields (min hour dom mon dow) or 6 (sec first)'),
    timezone: zoneId,
  })
  .strict();

export const DeadlineTiming = z
  .object({
    kind: z.literal('DEADLINE'),
    at: dateTime,
    timezone: zoneId.optional(),
    reminders: z
      .array(duration)
      .max(32)
      .optional()
      .describe('durations before `at`, each its own occurrence'),
  })
  .strict();

export const Weekday = z.enum(['MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU']);
export type Weekday = z.infer<typeof Weekday>;

// ---- Business days (issue 43): the public holidays of a region (src/calendar/business-days.ts) ---------------
const localDate = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'expected YYYY-MM-DD');

/** `options.business_days`: which local dates (in the schedule's zone) are working days. */
export const BusinessDaysOptions = z
  .object({
    region: z
      .string()
      .regex(
        /^[A-Z]{2}(-[A-Z0-9]{1,3})?$/,
        'expected a country code, optionally with a subdivision (LV, DE-BY)',
      )
      .describe('ISO 3166-1 country, optionally -subdivision (ISO 3166-2): its public holidays are closed'),
    closed: z.array(localDate).max(5000).optional().describe('extra closed dates (company shutdowns)'),
    open: z
      .array(localDate)
      .max(5000)
      .optional()
      .describe(
        'extra open dates (a working Saturday, a holiday worked); they win over weekend and holidays',
      ),
    weekend: z
      .array(Weekday)
      .min(0)
      .max(6)
      .optional()
      .describe('default SA, SU for every region (the holiday data has no weekend rule): IL is FR, SA'),
    roll: z
      .enum(['FORWARD', 'BACKWARD', 'SKIP'])
      .optional()
      .describe(
        'a slot of another kind (RECURRENCE, CRON, ONE_TIME…) on a closed day: the next business day at the same time, the previous one, or none. Default SKIP, as `exclusions` (a run is never moved to a day the rule does not name unless asked); a slot rolled onto a day that has its own slot at that time is that slot',
      ),
  })
  .strict();
export type BusinessDaysOptions = z.infer<typeof BusinessDaysOptions>;

/**
 * `timing.kind: BUSINESS_DAY`: the n-th business day of every month or quarter, at `time` in `timezone`
 * (needs `business_days` with a region). "The first business day of the month at 09:00 in Latvia":
 * `{ kind: 'BUSINESS_DAY', period: 'MONTH', n: 1, time: '09:00', timezone: 'Europe/Riga' }` with
 * `business_days: { region: 'LV' }`. "The last working day before the 25th" is not this kind: it is a
 * RECURRENCE on BYMONTHDAY=24 with `roll: BACKWARD`. A period with fewer than |n| business days has no slot.
 */
export const BusinessDayTiming = z
  .object({
    kind: z.literal('BUSINESS_DAY'),
    period: z.enum(['MONTH', 'QUARTER']),
    n: z
      .number()
      .int()
      .min(-92)
      .max(92)
      .refine((n) => n !== 0, 'n counts from 1 (the first) or from -1 (the last); 0 is neither')
      .describe('1 = the first business day of the period, -1 = the last, 2 = the second…'),
    months: z
      .array(z.number().int().min(1).max(12))
      .min(1)
      .max(12)
      .optional()
      .describe('MONTH: only these months; QUARTER: not allowed. Default every month'),
    time: z
      .string()
      .regex(/^\d{2}:\d{2}(:\d{2})?$/, 'expected HH:mm or HH:mm:ss')
      .describe('local time of day; a time in a DST gap or fold follows options.dst as every other kind'),
    timezone: zoneId.describe('IANA zone: the business days are local dates in it'),
  })
  .strict();
export type BusinessDayTiming = z.infer<typeof BusinessDayTiming>;

export const Timing = z.discriminatedUnion('kind', [
  OneTimeTiming,
  DelayTiming,
  IntervalTiming,
  RecurrenceTiming,
  CronTiming,
  DeadlineTiming,
  BusinessDayTiming,
]);
export type Timing = z.infer<typeof Timing>;
export type TimingKind = Timing['kind'];
/** Every timing kind, in the order of the union: derived from it, never written out again. */
export const TIMING_KINDS = Timing.options.map((option) => option.shape.kind.value) as [
  TimingKind,
  ...TimingKind[],
];

const hhmm = z.string().regex(/^\d{2}:\d{2}$/, 'expected HH:mm');

export const CalendarWindow = z
  .object({
    timezone: zoneId
      .optional()
      .describe("zone of the window; default: the timing's zone, else options.timezone"),
    days: z.array(Weekday).min(1).max(7).optional().describe('days the window opens; default every day'),
    from: hhmm.describe('opening time, HH:mm (inclusive)'),
    to: hhmm.describe('closing time, HH:mm (exclusive); earlier than `from` means overnight; 24:00 allowed'),
    outside: z.enum(['DEFER', 'SKIP']).optional().describe('default DEFER: fire at the next opening'),
  })
  .strict();
export type CalendarWindow = z.infer<typeof CalendarWindow>;

export const DstOptions = z
  .object({
    gap: z.enum(['SHIFT_FORWARD', 'NEXT_VALID', 'SKIP']).optional(),
    fold: z.enum(['FIRST', 'LAST', 'BOTH']).optional(),
  })
  .strict();

export const CalendarOptions = z
  .object({
    timezone: zoneId.optional().describe('zone for window/exclusions when the timing has none (default UTC)'),
    window: CalendarWindow.optional(),
    exclusions: z
      .array(z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'expected YYYY-MM-DD'))
      .max(5000)
      .optional()
      .describe('local dates (in the zone) on which no slot fires'),
    starts_at: instant.optional(),
    ends_at: instant.optional(),
    max_count: z.number().int().min(1).max(1_000_000_000).optional(),
    jitter: duration
      .optional()
      .describe('maximum deterministic delay added to each slot (technical jobs only)'),
    dst: DstOptions.optional(),
    business_days: BusinessDaysOptions.optional(),
  })
  .strict();
export type CalendarOptions = z.infer<typeof CalendarOptions>;

/** Runs a zod schema and turns its first issue into a {@link CalendarError}. */
export function parseWith<T>(schema: z.ZodType<T>, value: unknown, root: string): T {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const issue = r.error.issues[0]!;
  const path = issue.path.map(String).join('.');
  const field = path ? `${root}.${path}` : root;
  throw new CalendarError(field, issue.message, 'INVALID_FIELD');
}

export function parseTiming(value: unknown): Timing {
  return parseWith(Timing, value, 'timing');
}

export function parseCalendarOptions(value: unknown): CalendarOptions {
  return parseWith(CalendarOptions, value ?? {}, 'options');
}
