// Days of the month: "the 15th", "the last day of the month", "the first Monday of every quarter".
import type { Weekday } from '../timing.js';
import type { Features } from './features.js';
import type { Unit } from './lexicon.js';
import type { Cursor } from './lexing.js';
import { period } from './periods.js';
import { Unreadable } from './refusals.js';

/**
 * An ordinal at `i`: "the last Friday of every month", "в первый понедельник месяца", "the last day of the
 * month", "the first of every month", "the 15th and 30th".
 */
export function ordinalDayAt(c: Cursor, i: number, f: Features): number | undefined {
  const t = c.tok(i)!;
  if (t.k === 'ord' || t.k === 'ordnum') {
    const weekdays = ordinalWeekdaysAt(c, i, f);
    if (weekdays !== undefined) return weekdays;
  }
  if (t.k === 'ord') return ordinalMonthDayAt(c, i, f, t.v);
  if (t.k === 'ordnum' && !c.is(i + 1, 'month')) return monthDaysAt(c, i, f);
  return undefined;
}

/** "the first and third Monday", "the 2nd and 4th Tuesday": every ordinal of the list, none dropped. */
function ordinalWeekdaysAt(c: Cursor, i: number, f: Features): number | undefined {
  const ords: number[] = [];
  let j = i;
  while (c.is(j, 'ord') || c.is(j, 'ordnum')) {
    ords.push((c.tok(j) as { v: number }).v);
    j++;
    if ((c.kw(j, 'and') || c.is(j, 'punct', ',')) && (c.is(j + 1, 'ord') || c.is(j + 1, 'ordnum'))) j++;
    else break;
  }
  if (!c.is(j, 'weekday')) return undefined;
  const wd = (c.tok(j) as { v: Weekday }).v;
  for (const ord of ords) {
    if (!(ord === -1 || (ord >= 1 && ord <= 5)))
      throw new Unreadable(`a month has at most five of each weekday`, [c.words[i]!]);
    f.ordWeekdays.push({ ord, wd });
  }
  return ofMonth(c, j + 1, f);
}

/** "the first day of every month", "the first of every month", "monthly on the first", "the second of the month". */
function ordinalMonthDayAt(c: Cursor, i: number, f: Features, ord: number): number | undefined {
  const monthContext = () => f.every?.unit === 'month' || f.every?.unit === 'quarter';
  if (c.is(i + 1, 'unit') && (c.tok(i + 1) as { v: Unit }).v === 'day') {
    // "the first day of every month", "quarterly on the first day", "в первый день каждого квартала"
    if (
      ord !== -1 &&
      !(c.kw(i + 2, 'of', 'monthly', 'quarterly', 'every') || c.is(i + 2, 'unit') || monthContext())
    )
      return undefined;
    f.monthDays.push(ord === -1 ? -1 : ord);
    return ofMonth(c, i + 2, f);
  }
  // "the first of every month", "monthly on the first", "the second of the month"
  if (c.kw(i + 1, 'monthly', 'of') || monthContext()) {
    const next = ofMonth(c, i + 1, f);
    if (next === i + 1 && !monthContext()) return undefined;
    f.monthDays.push(ord);
    return next;
  }
  return undefined;
}

/** "the 15th", "the 1st and 15th of every month", "15-го числа". */
function monthDaysAt(c: Cursor, i: number, f: Features): number {
  let j = i;
  let said = false;
  while (c.is(j, 'ordnum')) {
    f.monthDays.push((c.tok(j) as { v: number }).v);
    j++;
    if (c.kw(j, 'day-of-month')) {
      said = true;
      j++;
    }
    if ((c.kw(j, 'and') || c.is(j, 'punct', ',')) && c.is(j + 1, 'ordnum')) j++;
  }
  const next = ofMonth(c, j, f);
  // "on the 15th" alone: once on the next 15th, or every month? the words must say (checked when read)
  if (next === j && !said) f.looseMonthDay ??= c.words[i]!.raw;
  return next;
}

/** "of the month", "of every quarter", "месяца", "каждого квартала" after a day: the period it repeats by. */
export function ofMonth(c: Cursor, j: number, f: Features): number {
  let k = j;
  if (c.kw(k, 'of')) k++;
  // "of the quarter" ("of the month" is a phrase of its own)
  if (k > j && c.is(k, 'filler') && c.raw(k) === 'the') k++;
  if (c.kw(k, 'every')) k++;
  if (c.kw(k, 'monthly') || (c.is(k, 'unit') && (c.tok(k) as { v: Unit }).v === 'month')) {
    period(f, { unit: 'month', n: 1 });
    return k + 1;
  }
  if (c.kw(k, 'quarterly') || (c.is(k, 'unit') && (c.tok(k) as { v: Unit }).v === 'quarter')) {
    // "the first day of every quarter", "первого числа каждого квартала"
    period(f, { unit: 'quarter', n: 1 });
    return k + 1;
  }
  return j;
}
