// The slots the scan fills as it consumes words, and the assembly reads: one record per sentence.
import type { Timing, Weekday } from '../timing.js';
import type { PartOfDay, Unit } from './lexicon.js';
import type { BusinessDays, Reading } from './reading.js';

/** "during business hours": 09:00 to 18:00. */
export const BUSINESS_HOURS = { from: { h: 9, m: 0, s: 0 }, to: { h: 18, m: 0, s: 0 } };

export interface Time {
  h: number;
  m: number;
  s: number;
}
/** A time of day, or the times a bare hour may mean (the reader asks which). */
export type TimeChoice = { times: Time[]; question?: string; note?: string };
export type DateFeature =
  | { kind: 'ymd'; y?: number; mo: number; d: number }
  | { kind: 'relative'; days: number; word: string }
  | { kind: 'weekday'; wd: Weekday; allowToday: boolean }
  | { kind: 'numdate'; a: number; b: number; y?: number }
  | { kind: 'dst-change' };
export type Amounts = Partial<Record<Unit, number>>;

export interface Features {
  zone?: string;
  times: TimeChoice[];
  date?: DateFeature;
  /** An ISO date-time with an offset: an instant. */
  instant?: string;
  every?: { unit: Unit; n: number };
  weekdays: Weekday[];
  weekdaysRepeat: boolean;
  ordWeekdays: Array<{ ord: number; wd: Weekday }>;
  monthDays: number[];
  yearlyDate?: { mo: number; d: number };
  once: boolean;
  delay?: Amounts;
  anchor?: string;
  fixedDelay: boolean;
  /** A part of the day said apart from the hour ("every morning at 8", "Sunday night at 11"). */
  dayPart?: PartOfDay;
  /** Days taken out ("every day except weekends"); `excepting` while the words after "except" are read. */
  exceptDays: Weekday[];
  excepting: boolean;
  /** An explicit calendar window ("only from 09:00 to 18:00 on weekdays, skipped outside"). */
  window?: { from?: Time; to?: Time; days: Weekday[]; outside: 'SKIP' | 'DEFER' };
  /** "counted from the schedule's creation": an interval of periods keeps the creation's parity. */
  fromCreation: boolean;
  deadline: boolean;
  reminders: Amounts[];
  hours?: { from: Time; to: Time; business: boolean; inclusive: boolean };
  starts?: DateFeature | { kind: 'instant'; iso: string };
  ends?: DateFeature | { kind: 'instant'; iso: string } | { kind: 'month'; mo: number; y?: number };
  maxCount?: number;
  /** A DST policy an explanation states ("; a time that does not exist is skipped"). */
  dst?: Reading['options']['dst'];
  /** "every hour at :15", "on the half hour", "в 15 минут каждого часа": the minute past each hour. */
  minuteOfHour?: number;
  /** "on the 15th" with no "of every month": a day of the month that does not say it repeats. */
  looseMonthDay?: string;
  /** "twice a day", "3 times a day": how many times of day the words must name. */
  perCount?: { n: number; unit: Unit; raw: string };
  /**
   * Business days (issue 43): the days the region's calendar closes are skipped, or rolled. `word`: a
   * business-day word was said ("every business day"), not only "except public holidays".
   */
  business?: { roll?: 'FORWARD' | 'BACKWARD'; word: boolean; clause?: Partial<BusinessDays> };
  /** "the first business day of the month", "the second to last working day of the quarter" */
  businessOrdinal?: { n: number; months?: number[]; raw: string };
  /** "except public holidays", "кроме праздников" */
  exceptHolidays: boolean;
  /** the country whose holidays close a day: a name ("in Latvia": a place too) or a code ("(LV)") */
  region?: { code: string; place: boolean; name: string };
  notes: string[];
}

export type TimingKind = Timing['kind'] | 'FIXED_DELAY';

export function emptyFeatures(): Features {
  return {
    times: [],
    weekdays: [],
    weekdaysRepeat: false,
    ordWeekdays: [],
    monthDays: [],
    once: false,
    fixedDelay: false,
    fromCreation: false,
    exceptDays: [],
    excepting: false,
    deadline: false,
    reminders: [],
    exceptHolidays: false,
    notes: [],
  };
}
