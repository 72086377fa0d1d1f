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

export const Timing = z.discriminatedUnion('kind', [
  OneTimeTiming,
  DelayTiming,
  IntervalTiming,
  RecurrenceTiming,
  CronTiming,
  DeadlineTiming,
]);
export type Timing = z.infer<typeof Timing>;
export type TimingKind = Timing['kind'];
/** Every timing kind, in the order of the union: derived from it, never written out again. */
export const TIMING_KINDS = Timing.options.map((option) => option.shape.kind.value) as [
  TimingKind,
  ...TimingKind[],
];

export const Weekday = z.enum(['MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU']);
export type Weekday = z.infer<typeof Weekday>;

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
