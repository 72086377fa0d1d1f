/**
 * Business-day calendars (issue 43): which local dates of a region are working days, the Nth one of a month
 * or quarter, and rolling a date off a closed day with the reason why. Pure: local dates in, local dates out
 * (the engine applies the time of day and its DST policy afterwards, as for every other kind); the holiday
 * data is injected as a {@link HolidaySource} value (see holiday-data.ts for the one backed by the pinned
 * `date-holidays` package), so this module does no I/O and imports no data. The only state is a per-year
 * memo of closed dates, a pure function of the source and the spec.
 */

import { fromDay, humanDate, type LocalDate, nextOpenDay, ROLL_LIMIT_DAYS, toDay } from './business-dates.js';
import { fail } from './errors.js';
import { DAY, dayNumber, daysInMonth, isoWeekday, partsOf, wallFrom } from './floating.js';
import type { Weekday } from './timing.js';

export { humanDate, type LocalDate, ROLL_LIMIT_DAYS } from './business-dates.js';
export { type BusinessDayRule, businessDaySource, rolledSource } from './business-day-sources.js';

/** ISO 3166-1 alpha-2 country, optionally `-` and an ISO 3166-2 subdivision code: `LV`, `DE-BY`, `US-CA`. */
export const REGION_RE = /^([A-Z]{2})(?:-([A-Z0-9]{1,3}))?$/;

export interface Region {
  country: string;
  subdivision?: string;
}

/** One closed local date of a region, named (`New Year's Day`). A holiday of several days is several entries. */
export interface Holiday {
  date: LocalDate;
  name: string;
}

/**
 * Where public holidays come from. Deterministic for a given `version`: the same (region, year) always gives
 * the same holidays, which is what lets a running schedule record the version its slots were computed with
 * (as slots record the tz release) and be recomputed when it changes.
 */
export interface HolidaySource {
  /** the data release, e.g. `date-holidays@3.37.0` */
  readonly version: string;
  /** whether the source knows the region (country, and the subdivision when given) */
  hasRegion(region: Region): boolean;
  /** the region's public holidays whose first day is in `year`, one entry per closed local date */
  holidays(region: Region, year: number): readonly Holiday[];
}

export const DEFAULT_WEEKEND: readonly Weekday[] = ['SA', 'SU'];
const DAY_CODES: readonly Weekday[] = ['MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU'];

export interface BusinessCalendarSpec {
  /** `LV`, `DE-BY`: country and optional subdivision */
  region: string;
  /** extra closed dates (company shutdowns), on top of the region's public holidays */
  closed?: readonly LocalDate[];
  /** extra open dates: working Saturdays, a holiday the business works; they win over everything */
  open?: readonly LocalDate[];
  /** default Saturday and Sunday, for every region: the data has no weekend rule (IL: ['FR', 'SA']) */
  weekend?: readonly Weekday[];
}

/** Why a date is not a business day. `HOLIDAY` wins over `WEEKEND` when both hold (the name says more). */
export interface Closure {
  kind: 'HOLIDAY' | 'CLOSED' | 'WEEKEND';
  /** the holiday's name(s), for HOLIDAY */
  name?: string;
  /** e.g. `Thu 1 Jan 2026, New Year's Day, LV` */
  note: string;
}

export type RollPolicy = 'FORWARD' | 'BACKWARD' | 'SKIP';

export interface RollResult {
  /** the business day to use; null when SKIP dropped a closed date */
  date: LocalDate | null;
  /** whether `date` differs from the date asked about (or it was skipped) */
  rolled: boolean;
  /** why the asked date was closed; absent when it is a business day */
  closure?: Closure;
  /** e.g. `rolled from Mon 1 Jan 2029, New Year's Day, LV to Tue 2 Jan 2029` */
  note?: string;
}

/** A month (1–12) or a quarter (1–4) of a year. */
export type Period = { month: number } | { quarter: number };

export interface BusinessCalendar {
  readonly region: string;
  /** the holiday data release this calendar's answers depend on */
  readonly dataVersion: string;
  readonly weekend: readonly Weekday[];
  isBusinessDay(date: LocalDate): boolean;
  /** why `date` is closed; null for a business day */
  closure(date: LocalDate): Closure | null;
  /** the same, for a day number (floating wall / DAY): what the engine asks, per candidate */
  closureOfDay(day: number): Closure | null;
  /** whether a day number is closed, reading the holiday data only for a weekday (the engine's filter) */
  closedOnDay(day: number): boolean;
  /** the region's public holidays in `year` (the data's, before open/closed dates) */
  holidays(year: number): readonly Holiday[];
  /**
   * The n-th business day of the period, counted from its start (n > 0: 1 = first) or its end (n < 0: -1 =
   * last); null when the period has fewer than |n| business days.
   */
  nthBusinessDay(year: number, period: Period, n: number): LocalDate | null;
  /** `date` if it is a business day, else the next (FORWARD) or previous (BACKWARD) one, or null (SKIP) */
  roll(date: LocalDate, policy: RollPolicy): RollResult;
  /** every business day from `from` to `to`, both included */
  businessDaysBetween(from: LocalDate, to: LocalDate): LocalDate[];
}

export function parseRegion(field: string, text: string): Region {
  const m = REGION_RE.exec(text);
  if (!m)
    fail(
      field,
      `"${text}" is not a region: expected a country code, optionally with a subdivision (LV, DE-BY)`,
      'INVALID_OPTION',
    );
  return m[2] !== undefined ? { country: m[1]!, subdivision: m[2] } : { country: m[1]! };
}

/** The weekend's days in week order, and whether each ISO weekday (1 = Monday) is one of them. */
function weekendOf(
  spec: BusinessCalendarSpec,
  field: string,
): { weekend: Weekday[]; isWeekend: readonly boolean[] } {
  const weekend = [...new Set(spec.weekend ?? DEFAULT_WEEKEND)].sort(
    (a, b) => DAY_CODES.indexOf(a) - DAY_CODES.indexOf(b),
  );
  for (const [i, d] of weekend.entries())
    if (!DAY_CODES.includes(d))
      fail(`${field}.weekend.${i}`, `"${d}" is not a weekday (MO…SU)`, 'INVALID_OPTION');
  if (weekend.length === 7)
    fail(`${field}.weekend`, 'a weekend of every day leaves no business day', 'INVALID_OPTION');
  const isWeekend = new Array<boolean>(8).fill(false);
  for (const d of weekend) isWeekend[DAY_CODES.indexOf(d) + 1] = true;
  return { weekend, isWeekend };
}

/** The spec's own closed and open dates as day numbers; a date both closed and open is refused. */
function ownDates(spec: BusinessCalendarSpec, field: string): { closed: Set<number>; open: Set<number> } {
  const closed = new Set((spec.closed ?? []).map((d, i) => toDay(`${field}.closed.${i}`, d)));
  const open = new Set((spec.open ?? []).map((d, i) => toDay(`${field}.open.${i}`, d)));
  (spec.open ?? []).forEach((d, i) => {
    if (closed.has(toDay(`${field}.open.${i}`, d)))
      fail(`${field}.open.${i}`, `${d} is both closed and open`, 'INVALID_OPTION');
  });
  return { closed, open };
}

/**
 * The closed-day lookup: a region's holidays per year, read from the source once a year, and the names of
 * the holidays on a day (a holiday spanning New Year is listed under its first year).
 */
function holidayLookup(
  source: HolidaySource,
  region: Region,
): { holidaysOf(year: number): readonly Holiday[]; holidayNames(day: number): string[] } {
  const yearHolidays = new Map<number, readonly Holiday[]>();
  const byYear = new Map<number, Map<number, string[]>>();
  const holidaysOf = (year: number): readonly Holiday[] => {
    let hs = yearHolidays.get(year);
    if (hs === undefined) {
      hs = Object.freeze(
        source.holidays(region, year).map((h) => Object.freeze({ date: h.date, name: h.name })),
      );
      yearHolidays.set(year, hs);
    }
    return hs;
  };
  const closedOf = (year: number): Map<number, string[]> => {
    let m = byYear.get(year);
    if (m === undefined) {
      m = new Map();
      for (const h of holidaysOf(year)) {
        const day = toDay('holiday.date', h.date);
        const names = m.get(day);
        if (names === undefined) m.set(day, [h.name]);
        else if (!names.includes(h.name)) names.push(h.name);
      }
      byYear.set(year, m);
    }
    return m;
  };
  const holidayNames = (day: number): string[] => {
    const year = partsOf(day * DAY).year;
    return [...(closedOf(year).get(day) ?? []), ...(closedOf(year - 1).get(day) ?? [])];
  };
  return { holidaysOf, holidayNames };
}

/** The first and last day number of a month or quarter; one out of range is refused. */
function periodDays(year: number, period: Period): [number, number] {
  let m0: number;
  let m1: number;
  if ('month' in period) {
    if (!Number.isInteger(period.month) || period.month < 1 || period.month > 12)
      fail('month', `${period.month} is not a month (1…12)`, 'INVALID_OPTION');
    m0 = m1 = period.month;
  } else {
    if (!Number.isInteger(period.quarter) || period.quarter < 1 || period.quarter > 4)
      fail('quarter', `${period.quarter} is not a quarter (1…4)`, 'INVALID_OPTION');
    m0 = 3 * period.quarter - 2;
    m1 = m0 + 2;
  }
  return [dayNumber(wallFrom(year, m0, 1)), dayNumber(wallFrom(year, m1, daysInMonth(year, m1)))];
}

/** The n-th open day from `first` on (n > 0) or from `last` back (n < 0); null when there are fewer. */
function nthOpenDay(first: number, last: number, n: number, isOpen: (day: number) => boolean): number | null {
  if (n > 0) {
    for (let day = first, k = 0; day <= last; day++) if (isOpen(day) && ++k === n) return day;
  } else {
    for (let day = last, k = 0; day >= first; day--) if (isOpen(day) && --k === n) return day;
  }
  return null;
}

/**
 * Compiles a business-day calendar. Throws CalendarError (field under `field`) on a malformed region or
 * date, an unknown region, a weekend of all seven days, or a date both closed and open.
 */
export function businessCalendar(
  spec: BusinessCalendarSpec,
  source: HolidaySource,
  field = 'options.business_days',
): BusinessCalendar {
  const region = parseRegion(`${field}.region`, spec.region);
  if (!source.hasRegion(region)) {
    fail(
      `${field}.region`,
      `${spec.region} is not a region of the holiday data (${source.version})`,
      'INVALID_OPTION',
    );
  }
  const { weekend, isWeekend } = weekendOf(spec, field);
  const { closed, open } = ownDates(spec, field);
  const { holidaysOf, holidayNames } = holidayLookup(source, region);

  const closureOf = (day: number): Closure | null => {
    if (open.has(day)) return null;
    const when = humanDate(fromDay(day));
    const names = holidayNames(day);
    if (names.length > 0) {
      const name = names.join(' / ');
      return { kind: 'HOLIDAY', name, note: `${when}, ${name}, ${spec.region}` };
    }
    if (closed.has(day)) return { kind: 'CLOSED', note: `${when}, closed (options)` };
    if (isWeekend[isoWeekday(day * DAY)]) return { kind: 'WEEKEND', note: `${when}, weekend` };
    return null;
  };
  const closedOnDay = (day: number): boolean =>
    !open.has(day) &&
    (isWeekend[isoWeekday(day * DAY)] === true || closed.has(day) || holidayNames(day).length > 0);
  const isOpen = (day: number): boolean => !closedOnDay(day);

  const calendar: BusinessCalendar = {
    region: spec.region,
    dataVersion: source.version,
    weekend: Object.freeze(weekend),
    isBusinessDay: (date) => isOpen(toDay('date', date)),
    closure: (date) => closureOf(toDay('date', date)),
    closureOfDay: closureOf,
    closedOnDay,
    holidays: (year) => holidaysOf(year),
    nthBusinessDay(year, period, n) {
      if (!Number.isInteger(n) || n === 0 || Math.abs(n) > 92)
        fail('n', `${n} is not a business-day index (±1…±92, not 0)`, 'INVALID_OPTION');
      const [first, last] = periodDays(year, period);
      const day = nthOpenDay(first, last, n, isOpen);
      return day === null ? null : fromDay(day);
    },
    roll(date, policy) {
      const day = toDay('date', date);
      const closure = closureOf(day);
      if (closure === null) return { date, rolled: false };
      if (policy === 'SKIP') return { date: null, rolled: true, closure, note: `skipped ${closure.note}` };
      const to = nextOpenDay(day, policy === 'FORWARD' ? 1 : -1, isOpen);
      if (to === null) {
        return fail(
          'roll',
          `no business day within ${ROLL_LIMIT_DAYS} days ${policy === 'FORWARD' ? 'after' : 'before'} ${date}`,
          'NEVER_FIRES',
        );
      }
      const target = fromDay(to);
      return {
        date: target,
        rolled: true,
        closure,
        note: `rolled from ${closure.note} to ${humanDate(target)}`,
      };
    },
    businessDaysBetween(from, to) {
      const out: LocalDate[] = [];
      for (let day = toDay('from', from), end = toDay('to', to); day <= end; day++)
        if (isOpen(day)) out.push(fromDay(day));
      return out;
    },
  };
  return Object.freeze(calendar);
}

/**
 * `base` with holidays added under a new data `version`: what a government declaring a holiday looks like
 * once the data package's next release carries it. The tests install one under running schedules
 * (src/model/slots.ts `useHolidaySource`), as they install amended zone rules for a tz release.
 */
export function amendedHolidaySource(
  base: HolidaySource,
  version: string,
  added: ReadonlyArray<Holiday & { region: string }>,
): HolidaySource {
  const key = (r: Region) => (r.subdivision ? `${r.country}-${r.subdivision}` : r.country);
  return Object.freeze({
    version,
    hasRegion: (region: Region) => base.hasRegion(region),
    holidays(region: Region, year: number): readonly Holiday[] {
      const extra = added
        .filter((h) => h.region === key(region) && h.date.startsWith(`${year}-`))
        .map(({ date, name }) => ({ date, name }));
      return [...base.holidays(region, year), ...extra];
    },
  });
}
