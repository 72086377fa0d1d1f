/**
 * The shape of the words corpus (docs/words.md): a sentence, the `now` it is read at, an optional
 * request `timezone`, and what the reader must answer. Expected timings are written by hand from the
 * meaning of the sentence; the test compares them with the reader's answer by their instants (the
 * engine's next runs), so any encoding with the same runs passes.
 */
import type { CalendarOptions, Timing } from '../../../src/calendar/timing.js';

export type ReadOptions = Pick<
  CalendarOptions,
  'timezone' | 'window' | 'starts_at' | 'ends_at' | 'max_count' | 'dst' | 'business_days'
>;

/** One reading: a timing and the calendar options the sentence sets. */
export interface Expected {
  timing: Timing;
  options?: ReadOptions;
}

export type Expect =
  | Expected
  | { ambiguous: Expected[] }
  | { unreadable: string[] }
  | { zoneRequired: true }
  | { regionRequired: true };

export type Category =
  | 'one-time'
  | 'relative-midnight'
  | 'delay'
  | 'delay-anchor'
  | 'interval'
  | 'after-completion'
  | 'days'
  | 'ordinal'
  | 'month-end'
  | 'day-of-month'
  | 'quarterly'
  | 'yearly'
  | 'hours'
  | 'bounds'
  | 'deadline'
  | 'literal'
  | 'typo'
  | 'ambiguous'
  | 'unreadable'
  | 'zone-required'
  | 'business-days'
  | 'region-required';

export interface CorpusEntry {
  text: string;
  /** ISO instant the reader counts from (`now` of the request) */
  now: string;
  /** the request's zone, for wall-clock text that names none */
  timezone?: string;
  category: Category;
  /** typo entries: a word (or its stem) one of the answer's notes must mention as the correction */
  corrected?: string[];
  expect: Expect;
}

/** Monday 21 December 2026, 12:00 in Riga: Latvia's Christmas holidays (24–26 December) are ahead */
export const XMAS_WEEK = '2026-12-21T10:00:00Z';

/** Wednesday, 12:00 in Riga, 05:00 in New York, 19:00 in Tokyo, 13:00 in Moscow. */
export const NOW = '2026-12-02T10:00:00Z';
/** Friday 22:30 UTC = Saturday 27 March 00:30 in Riga (the night before Riga springs forward). */
export const LATE = '2027-03-26T22:30:00Z';
/** Thursday 03:30 UTC = Wednesday 2 December 22:30 in New York. */
export const NY_LATE = '2026-12-03T03:30:00Z';
/** Thursday 31 December 21:30 UTC = Friday 1 January 2027 00:30 in Moscow. */
export const NEW_YEAR = '2026-12-31T21:30:00Z';

export const RIGA = 'Europe/Riga';
export const NEW_YORK = 'America/New_York';
export const TOKYO = 'Asia/Tokyo';
export const LONDON = 'Europe/London';
export const BERLIN = 'Europe/Berlin';
export const MOSCOW = 'Europe/Moscow';

/** a one-time wall clock `YYYY-MM-DDTHH:MM:SS` in `timezone` */
export const once = (at: string, timezone: string, options?: ReadOptions): Expected => ({
  timing: { kind: 'ONE_TIME', at, timezone },
  ...(options ? { options } : {}),
});

/** a recurrence: an RRULE body (starts at the minute of `now`) or an RFC 5545 block, in `timezone` */
export const rec = (rule: string, timezone: string, options?: ReadOptions): Expected => ({
  timing: { kind: 'RECURRENCE', rule, timezone },
  ...(options ? { options } : {}),
});

export const delay = (d: string, anchor?: string): Expected => ({
  timing: { kind: 'DELAY', delay: d, ...(anchor ? { anchor } : {}) },
});

export const every = (d: string, options?: ReadOptions, anchor?: string): Expected => ({
  timing: { kind: 'INTERVAL', every: d, mode: 'FIXED_RATE', ...(anchor ? { anchor } : {}) },
  ...(options ? { options } : {}),
});

export const afterEach = (d: string): Expected => ({
  timing: { kind: 'INTERVAL', every: d, mode: 'FIXED_DELAY' },
});

export const cron = (expression: string, timezone: string): Expected => ({
  timing: { kind: 'CRON', expression, timezone },
});

export const deadline = (at: string, timezone: string, reminders?: string[]): Expected => ({
  timing: { kind: 'DEADLINE', at, timezone, ...(reminders ? { reminders } : {}) },
});

/** `BYHOUR=h;BYMINUTE=m;BYSECOND=0` */
export const hm = (h: number | string, m: number | string = 0): string =>
  `BYHOUR=${h};BYMINUTE=${m};BYSECOND=0`;

export const WEEKDAYS = 'MO,TU,WE,TH,FR';

/** the two readings of a bare hour h (1–6): h:00 and (h+12):00, built by `make(hour)` */
export const bareHour = (h: number, make: (hour: number) => Expected): { ambiguous: Expected[] } => ({
  ambiguous: [make(h), make(h + 12)],
});

/** the two readings of "the Nth of every month" for N = 29, 30, 31: skip short months, or fire on the last day */
export function monthDay(n: 29 | 30 | 31, time: string, timezone: string): { ambiguous: Expected[] } {
  const [h, m] = time.split(':').map(Number) as [number, number];
  const lastDay =
    n === 31 ? 'BYMONTHDAY=-1' : `BYMONTHDAY=${[28, 29, 30].filter((d) => d <= n).join(',')};BYSETPOS=-1`;
  return {
    ambiguous: [
      rec(`FREQ=MONTHLY;BYMONTHDAY=${n};${hm(h, m)}`, timezone),
      rec(`FREQ=MONTHLY;${lastDay};${hm(h, m)}`, timezone),
    ],
  };
}

/** a one-time wall clock in a DST gap: shifted forward, or the next valid time */
export const gap = (at: string, timezone: string): { ambiguous: Expected[] } => ({
  ambiguous: [
    once(at, timezone, { dst: { gap: 'SHIFT_FORWARD' } }),
    once(at, timezone, { dst: { gap: 'NEXT_VALID' } }),
  ],
});

/** a one-time wall clock in a DST fold: the first or the second */
export const fold = (at: string, timezone: string): { ambiguous: Expected[] } => ({
  ambiguous: [once(at, timezone, { dst: { fold: 'FIRST' } }), once(at, timezone, { dst: { fold: 'LAST' } })],
});

/**
 * The n-th business day (1 first, -1 last, -2 second to last) of every month (or quarter, or of `months`) at
 * `time` in `timezone`, with the public holidays of `region` (default LV, the zone Europe/Riga's country).
 */
export const businessDay = (
  n: number,
  time: string,
  extra: { period?: 'MONTH' | 'QUARTER'; months?: number[]; region?: string; timezone?: string } = {},
): Expected => ({
  timing: {
    kind: 'BUSINESS_DAY',
    period: extra.period ?? 'MONTH',
    n,
    ...(extra.months ? { months: extra.months } : {}),
    time,
    timezone: extra.timezone ?? RIGA,
  },
  options: { business_days: { region: extra.region ?? 'LV' } },
});

/** a recurrence on the business days of `region` (closed days skipped, or rolled as `roll` says) */
export const onBusinessDays = (
  rule: string,
  timezone: string,
  business: NonNullable<ReadOptions['business_days']>,
): Expected => rec(rule, timezone, { business_days: business });

/** Mon–Fri, 09:00–18:00, the hours `during business hours` means */
export const BUSINESS_HOURS = '9,10,11,12,13,14,15,16,17';
