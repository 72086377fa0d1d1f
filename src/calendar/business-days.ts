/**
 * Business-day calendars (issue 43): which local dates of a region are working days, the Nth one of a month
 * or quarter, and rolling a date off a closed day with the reason why. Pure: local dates in, local dates out
 * (the engine applies the time of day and its DST policy afterwards, as for every other kind); the holiday
 * data is injected as a {@link HolidaySource} value (see holiday-data.ts for the one backed by the pinned
 * `date-holidays` package), so this module does no I/O and imports no data. The only state is a per-year
 * memo of closed dates, a pure function of the source and the spec.
 */

import type { Adjustment } from './dst.js';
import { fail } from './errors.js';
import { DAY, dayNumber, daysInMonth, formatDate, isoWeekday, partsOf, wallFrom } from './floating.js';
import type { Nominal, NominalSource } from './source.js';
import type { Weekday } from './timing.js';

/** A local date, `YYYY-MM-DD`, in the schedule's zone. */
export type LocalDate = string;

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
const DAY_NAMES = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];
const MONTH_NAMES = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;
/** the longest run of closed days a roll looks through before saying the calendar has no business day */
export const ROLL_LIMIT_DAYS = 366;

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

/** `Thu 1 Jan 2026` */
export function humanDate(date: LocalDate): string {
  const day = toDay('date', date);
  const p = partsOf(day * DAY);
  return `${DAY_NAMES[isoWeekday(day * DAY) - 1]} ${p.day} ${MONTH_NAMES[p.month - 1]} ${p.year}`;
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

function toDay(field: string, text: string): number {
  const m = DATE_RE.exec(text);
  if (m) {
    const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
    if (y >= 1000 && mo >= 1 && mo <= 12 && d >= 1 && d <= daysInMonth(y, mo))
      return dayNumber(wallFrom(y, mo, d));
  }
  return fail(field, `"${text}" is not a date (YYYY-MM-DD)`, 'INVALID_DATETIME');
}

const fromDay = (day: number): LocalDate => formatDate(day * DAY);

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
  const weekend = [...new Set(spec.weekend ?? DEFAULT_WEEKEND)].sort(
    (a, b) => DAY_CODES.indexOf(a) - DAY_CODES.indexOf(b),
  );
  for (const [i, d] of weekend.entries())
    if (!DAY_CODES.includes(d))
      fail(`${field}.weekend.${i}`, `"${d}" is not a weekday (MO…SU)`, 'INVALID_OPTION');
  if (weekend.length === 7)
    fail(`${field}.weekend`, 'a weekend of every day leaves no business day', 'INVALID_OPTION');
  const weekendIso = new Array<boolean>(8).fill(false);
  for (const d of weekend) weekendIso[DAY_CODES.indexOf(d) + 1] = true;

  const closed = new Set((spec.closed ?? []).map((d, i) => toDay(`${field}.closed.${i}`, d)));
  const open = new Set((spec.open ?? []).map((d, i) => toDay(`${field}.open.${i}`, d)));
  (spec.open ?? []).forEach((d, i) => {
    if (closed.has(toDay(`${field}.open.${i}`, d)))
      fail(`${field}.open.${i}`, `${d} is both closed and open`, 'INVALID_OPTION');
  });

  // closed day → holiday names, per year of the data (a holiday spanning New Year is listed under its first year)
  const byYear = new Map<number, Map<number, string[]>>();
  const yearHolidays = new Map<number, readonly Holiday[]>();
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

  const closureOf = (day: number): Closure | null => {
    if (open.has(day)) return null;
    const when = humanDate(fromDay(day));
    const names = holidayNames(day);
    if (names.length > 0) {
      const name = names.join(' / ');
      return { kind: 'HOLIDAY', name, note: `${when}, ${name}, ${spec.region}` };
    }
    if (closed.has(day)) return { kind: 'CLOSED', note: `${when}, closed (options)` };
    if (weekendIso[isoWeekday(day * DAY)]) return { kind: 'WEEKEND', note: `${when}, weekend` };
    return null;
  };
  const closedOnDay = (day: number): boolean =>
    !open.has(day) &&
    (weekendIso[isoWeekday(day * DAY)] === true || closed.has(day) || holidayNames(day).length > 0);
  const isOpen = (day: number): boolean => !closedOnDay(day);

  const nth = (first: number, last: number, n: number): number | null => {
    if (n > 0) {
      for (let day = first, k = 0; day <= last; day++) if (isOpen(day) && ++k === n) return day;
    } else {
      for (let day = last, k = 0; day >= first; day--) if (isOpen(day) && --k === n) return day;
    }
    return null;
  };

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
      const first = dayNumber(wallFrom(year, m0, 1));
      const last = dayNumber(wallFrom(year, m1, daysInMonth(year, m1)));
      const day = nth(first, last, n);
      return day === null ? null : fromDay(day);
    },
    roll(date, policy) {
      const day = toDay('date', date);
      const closure = closureOf(day);
      if (closure === null) return { date, rolled: false };
      if (policy === 'SKIP') return { date: null, rolled: true, closure, note: `skipped ${closure.note}` };
      const step = policy === 'FORWARD' ? 1 : -1;
      for (let i = 1; i <= ROLL_LIMIT_DAYS; i++) {
        const to = day + i * step;
        if (isOpen(to)) {
          const target = fromDay(to);
          return {
            date: target,
            rolled: true,
            closure,
            note: `rolled from ${closure.note} to ${humanDate(target)}`,
          };
        }
      }
      return fail(
        'roll',
        `no business day within ${ROLL_LIMIT_DAYS} days ${policy === 'FORWARD' ? 'after' : 'before'} ${date}`,
        'NEVER_FIRES',
      );
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

/** What a BUSINESS_DAY timing asks for (the contract's `period`, `n`, `months`, `time`). */
export interface BusinessDayRule {
  period: 'MONTH' | 'QUARTER';
  n: number;
  /** MONTH only: these months (1–12); default every month */
  months?: readonly number[];
  /** time of day, ms after local midnight */
  timeOfDay: number;
}

/**
 * The nominal occurrences of a BUSINESS_DAY timing for the engine: the n-th business day of each period at
 * the time of day, as floating wall clock (the engine applies the zone and its DST policy, as for CRON). A
 * period without an n-th business day yields a `removed` item at its end, so the engine's search fuel
 * counts it (a calendar that never opens ends in SEARCH_LIMIT / NEVER_FIRES, not a loop). Periods start at
 * the one holding max(from, begin); `begin` is a floating wall (the creation or starts_at, in the zone).
 */
export function businessDaySource(
  calendar: BusinessCalendar,
  rule: BusinessDayRule,
  begin: number,
): NominalSource {
  const months = new Set(rule.months ?? [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
  const step = rule.period === 'MONTH' ? 1 : 3;
  return {
    counting: 0,
    iterate(from: number): Iterator<Nominal> {
      const start = partsOf(Number.isFinite(from) ? Math.max(from, begin) : begin);
      let year = start.year;
      let month = rule.period === 'MONTH' ? start.month : 3 * Math.floor((start.month - 1) / 3) + 1;
      const advance = () => {
        month += step;
        if (month > 12) {
          month -= 12;
          year++;
        }
      };
      return {
        next: (): IteratorResult<Nominal> => {
          for (;;) {
            if (year > 9999) return { done: true, value: undefined };
            const y = year;
            const m = month;
            advance();
            if (rule.period === 'MONTH' && !months.has(m)) continue;
            const period: Period = rule.period === 'MONTH' ? { month: m } : { quarter: (m + 2) / 3 };
            const date = calendar.nthBusinessDay(y, period, rule.n);
            if (date === null) {
              const lastMonth = m + step - 1;
              return {
                done: false,
                value: { wall: wallFrom(y, lastMonth, daysInMonth(y, lastMonth)), removed: true },
              };
            }
            const wall = toDay('date', date) * DAY + rule.timeOfDay;
            if (wall < from) continue;
            return { done: false, value: { wall } };
          }
        },
      };
    },
  };
}

/**
 * `roll: FORWARD | BACKWARD` for a timing of another kind: each nominal occurrence on a closed local date
 * moves to the next (previous) business day at the same wall time, with a BUSINESS_DAY_ROLL note saying
 * from where and why. Moving reorders (a Saturday 17:00 rolled forward lands after Monday 09:00), so rolled
 * items wait in order until no later occurrence can land before them: FORWARD, until the source reaches
 * their day; BACKWARD, until it reaches a day whose own roll lands later. An occurrence rolled onto a wall
 * the timing already has is that occurrence (one slot, not two). Not for COUNT rules (the engine refuses
 * the combination): their cursor positions are walls of the rule, which a roll no longer keeps. An
 * occurrence before `begin` (the floating wall of the creation or starts_at) is not the schedule's: it is
 * dropped, never rolled into its life (Saturday's run of a schedule made on Sunday is not Monday's).
 */
export function rolledSource(
  inner: NominalSource,
  calendar: BusinessCalendar,
  policy: 'FORWARD' | 'BACKWARD',
  begin: number,
): NominalSource {
  const closed = (day: number) => calendar.closedOnDay(day);
  const step = policy === 'FORWARD' ? 1 : -1;
  const rollDay = (day: number): number => {
    for (let i = 1; i <= ROLL_LIMIT_DAYS; i++) if (!closed(day + i * step)) return day + i * step;
    return fail(
      'options.business_days',
      `no business day within ${ROLL_LIMIT_DAYS} days ${policy === 'FORWARD' ? 'after' : 'before'} ${fromDay(day)}`,
      'NEVER_FIRES',
    );
  };
  return {
    counting: inner.counting,
    ...(inner.excludedInstants ? { excludedInstants: inner.excludedInstants } : {}),
    iterate(from: number, pos): Iterator<Nominal> {
      // FORWARD: an occurrence on the closed days just before `from` rolls to after it: start there.
      let start = from;
      if (policy === 'FORWARD' && Number.isFinite(from)) {
        let day = Math.floor(from / DAY);
        for (let i = 0; i < ROLL_LIMIT_DAYS && closed(day - 1); i++) day--;
        start = Math.min(from, Math.max(day * DAY, begin));
      }
      const it = inner.iterate(start, pos);
      const waiting: Nominal[] = []; // by wall
      const ready: Nominal[] = [];
      let lastWall = Number.NEGATIVE_INFINITY;
      let innerDone = false;
      const wait = (item: Nominal) => {
        let i = waiting.length;
        while (i > 0 && waiting[i - 1]!.wall > item.wall) i--;
        const same = waiting[i - 1];
        if (same !== undefined && same.wall === item.wall && !item.removed && !same.removed) {
          if (same.roll !== undefined && item.roll === undefined) waiting[i - 1] = item;
          return;
        }
        waiting.splice(i, 0, item);
      };
      const release = (below: number) => {
        while (waiting.length > 0 && waiting[0]!.wall < below) {
          const item = waiting.shift()!;
          if (!item.removed && item.wall === lastWall) continue;
          if (!item.removed) lastWall = item.wall;
          ready.push(item);
        }
      };
      return {
        next: (): IteratorResult<Nominal> => {
          while (ready.length === 0 && !innerDone) {
            const r = it.next();
            if (r.done) {
              innerDone = true;
              release(Number.POSITIVE_INFINITY);
              break;
            }
            const item = r.value;
            if (item.wall <= begin && !item.removed) continue;
            const day = Math.floor(item.wall / DAY);
            const closure = item.removed || !closed(day) ? null : calendar.closureOfDay(day);
            if (closure === null) {
              wait(item);
              release(day * DAY);
              continue;
            }
            const to = rollDay(day);
            const { instant: _instant, adjustment: _adjustment, ...rest } = item;
            const roll: Adjustment = {
              kind: 'BUSINESS_DAY_ROLL',
              note: `rolled from ${closure.note} to ${humanDate(fromDay(to))}`,
            };
            wait({ ...rest, wall: to * DAY + (item.wall - day * DAY), roll });
            release((policy === 'FORWARD' ? day : to) * DAY);
          }
          const item = ready.shift();
          return item === undefined ? { done: true, value: undefined } : { done: false, value: item };
        },
      };
    },
  };
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
