// What a language brings to the reader: its words, as data. The grammar (read.ts) works on the canonical
// tokens below, so adding a language is a lexicon and its tests, not a change to the grammar.
import type { Weekday } from '../timing.js';

export type Unit = 'second' | 'minute' | 'hour' | 'day' | 'week' | 'month' | 'quarter' | 'year';
export type PartOfDay = 'am' | 'pm' | 'morning' | 'afternoon' | 'evening' | 'night';

/** A keyword of the grammar, whatever the language spells it. */
export type Keyword =
  | 'every' // every, each, каждый
  | 'other' // every other
  | 'at' // at, в
  | 'on' // on
  | 'in' // in (a zone, or a delay from now)
  | 'delay' // через: a delay from now (never a zone)
  | 'after'
  | 'before' // before, за (a reminder before the deadline)
  | 'before-prefix' // за: the duration follows
  | 'until'
  | 'from'
  | 'starting'
  | 'to'
  | 'between'
  | 'and'
  | 'times' // 10 times, 10 раз
  | 'per' // раз в …: once per (a frequency)
  | 'once'
  | 'twice'
  | 'today'
  | 'tomorrow'
  | 'day-after-tomorrow'
  | 'next'
  | 'this'
  | 'noon'
  | 'midnight'
  | 'oclock'
  | 'daily'
  | 'weekly'
  | 'monthly'
  | 'yearly'
  | 'hourly'
  | 'quarterly'
  | 'fortnightly'
  | 'business-hours'
  | 'deadline'
  | 'remind'
  | 'run-done' // … after each run finishes
  | 'of'
  | 'by' // по (Russian): по понедельникам, по Риге
  | 'day-of-month' // числа
  | 'time-word' // time (Riga time), времени
  | 'except' // except weekends, кроме выходных
  | 'dst-day' // the night the clocks change
  | 'only' // "; only from 09:00 to 18:00 on weekdays": an explicit calendar window follows
  | 'window-skip' // skipped outside
  | 'window-defer' // deferred to the next opening
  | 'from-creation' // counted from the schedule's creation: a period's parity stays with the creation
  | 'past' // quarter past 10, 15 minutes past the hour
  | 'half' // half past 9, в половине десятого
  | 'quarter-hour' // четверть десятого, без четверти десять (English "quarter" is the unit)
  | 'less' // без четверти десять
  | 'roll-forward' // or the next business day, или в следующий рабочий день
  | 'roll-backward'; // or the previous business day, или в предыдущий рабочий день

export type LexToken =
  | { k: 'kw'; v: Keyword }
  | { k: 'num'; v: number; article?: true }
  | { k: 'unit'; v: Unit; plural?: true }
  | { k: 'half-hour' } // half an hour, полчаса
  | { k: 'and-a-half' } // полтора
  | { k: 'weekday'; v: Weekday; plural?: true }
  | { k: 'weekdays'; v: 'work' | 'weekend' }
  /** business day(s), working day(s), рабочий день: a day the region's calendar is open (issue 43) */
  | { k: 'bday'; plural?: true }
  /** public holidays, праздники: the region's public holidays */
  | { k: 'holidays' }
  /** a country the words name ("Latvia", "в Латвии", "Latvian"); `adjective`: it names no place */
  | { k: 'region'; v: string; adjective?: true }
  | { k: 'month'; v: number }
  | { k: 'ord'; v: number; unit?: Unit }
  | { k: 'part'; v: PartOfDay }
  | { k: 'zone'; v: string }
  | { k: 'filler' };

export interface Lexicon {
  language: string;
  /** Exact words (lower case). */
  words: Record<string, LexToken>;
  /** Several words read as one token (lower case, space separated), longest first wins. */
  phrases: Record<string, LexToken>;
  /** Word beginnings for inflected forms: [stem, token, most extra letters]. */
  stems: Array<[string, LexToken, number]>;
  /** Plural forms of the weekdays ("on Mondays", "по понедельникам") make a rule repeat. */
  recurringWeekdayForm: (word: string) => boolean;
}

export const kw = (v: Keyword): LexToken => ({ k: 'kw', v });
export const num = (v: number): LexToken => ({ k: 'num', v });
export const unit = (v: Unit, plural?: boolean): LexToken =>
  plural ? { k: 'unit', v, plural } : { k: 'unit', v };
export const FILLER: LexToken = { k: 'filler' };
