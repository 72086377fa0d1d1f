// Business days (issue 43): "except public holidays", rolls to the next or previous business day, the
// n-th business day of a month or quarter, and the business_days option and BUSINESS_DAY timing they make.
import { type Clock, pad } from './clock.js';
import { WEEKEND, WORK, withoutExcepted } from './days.js';
import { englishOrdinal } from './en.js';
import type { Features, Time } from './features.js';
import type { Cursor } from './lexing.js';
import { ofMonth } from './month-days.js';
import { period } from './periods.js';
import type { BusinessDays, Reading } from './reading.js';
import { Unreadable } from './refusals.js';
import type { Word } from './tokens.js';

export function exceptHolidays(f: Features): void {
  f.exceptHolidays = true;
  f.business = { ...f.business, word: f.business?.word ?? false };
}

export function setRoll(f: Features, roll: 'FORWARD' | 'BACKWARD', word: Word): void {
  if (f.business?.roll !== undefined && f.business.roll !== roll)
    throw new Unreadable('a closed day rolled both forward and back', [word]);
  f.business = { ...f.business, word: f.business?.word ?? false, roll };
}

/**
 * "the first business day of the month", "the second to last working day of the quarter", "the last
 * working day before the 25th", "в предпоследний рабочий день месяца"
 */
export function businessOrdinalAt(c: Cursor, i: number, f: Features): number | undefined {
  const t = c.tok(i)!;
  if (t.k !== 'ord' && t.k !== 'ordnum') return undefined;
  let j = i;
  let n = t.v;
  if (n >= 2 && c.kw(j + 1, 'to') && c.is(j + 2, 'ord', -1)) {
    n = -n;
    j += 2;
  }
  return c.is(j + 1, 'bday') ? businessOrdinal(c, i, j + 2, n, f) : undefined;
}

/**
 * "every business day", "on business days", "по рабочим дням", "в рабочие дни": Monday to Friday, less the
 * region's public holidays
 */
export function businessDayWordAt(c: Cursor, i: number, f: Features): number {
  const t = c.tok(i) as { k: 'bday'; plural?: true };
  if (f.excepting || f.window !== undefined)
    throw new Unreadable(
      `"${c.words[i]!.raw}" ${f.excepting ? 'excepted' : 'in a window'} is not read: say the days`,
      [c.words[i]!],
    );
  f.weekdays.push(...WORK);
  if (t.plural || c.kw(i - 1, 'every', 'by')) f.weekdaysRepeat = true;
  f.business = { ...f.business, word: true };
  return i + 1;
}

/**
 * After "<ordinal> business day" (`j` the word after it): "of the month", "of every quarter", "of January
 * and July", "месяца", "каждого квартала", or "before the 25th" / "after the 15th" (a day of the month
 * rolled back or forward to a business day).
 */
function businessOrdinal(c: Cursor, i: number, j: number, n: number, f: Features): number {
  const said = c.words
    .slice(i, j)
    .map((w) => w.raw)
    .join(' ');
  if (n === 0)
    throw new Unreadable(`"${said}": business days count from the first or from the last`, [c.words[i]!]);
  if (c.kw(j, 'before', 'after')) {
    const before = c.kw(j, 'before');
    let k = j + 1;
    if (c.is(k, 'filler') && c.raw(k) === 'the') k++;
    const d = c.tok(k);
    const dom =
      d?.k === 'ordnum' ||
      (d?.k === 'ord' && d.v >= 1) ||
      (d?.k === 'num' && !d.article && c.kw(k + 1, 'day-of-month'))
        ? d.v
        : undefined;
    if (dom === undefined)
      throw new Unreadable(
        `"${said} ${c.words[j]!.raw}" is read before or after a day of the month only ("the last business day before the 25th")`,
        c.words.slice(i, k + 1),
      );
    if ((before && n !== -1) || (!before && n !== 1))
      throw new Unreadable(
        `"${said}": only "the last business day before the Nth" and "the first business day after the Nth" are read`,
        c.words.slice(i, j),
      );
    const day = before ? dom - 1 : dom + 1;
    if (dom < 1 || dom > 31 || (day > 28 && !(before && dom === 1)))
      throw new Unreadable(
        `"${said} ${c.words[j]!.raw} the ${englishOrdinal(dom)}": not every month has the ${englishOrdinal(day)}; say "the last business day of the month"`,
        c.words.slice(i, k + 1),
      );
    k++;
    if (c.kw(k, 'day-of-month')) k++;
    const next = ofMonth(c, k, f);
    if (f.every === undefined) period(f, { unit: 'month', n: 1 });
    f.monthDays.push(before && dom === 1 ? -1 : day);
    setRoll(f, before ? 'BACKWARD' : 'FORWARD', c.words[i]!);
    f.notes.push(
      before
        ? `the ${dom === 1 ? 'last day of the month' : englishOrdinal(day)}, or the business day before it when it is closed`
        : `the ${englishOrdinal(day)}, or the business day after it when it is closed`,
    );
    return next;
  }
  if (f.businessOrdinal !== undefined)
    throw new Unreadable(`two business days named: "${f.businessOrdinal.raw}" and "${said}"`, [c.words[i]!]);
  let k = j;
  if (c.kw(k, 'of')) k++;
  if (c.is(k, 'month')) {
    // "of January and July", "января и июля"
    const months: number[] = [];
    while (c.is(k, 'month')) {
      months.push((c.tok(k) as { v: number }).v);
      k++;
      if ((c.kw(k, 'and') || c.is(k, 'punct', ',')) && c.is(k + 1, 'month')) k++;
      else if (c.is(k, 'punct', ',') && c.kw(k + 1, 'and') && c.is(k + 2, 'month')) k += 2;
      else break;
    }
    f.businessOrdinal = { n, months: [...new Set(months)].sort((a, b) => a - b), raw: said };
    return k;
  }
  f.businessOrdinal = { n, raw: said };
  return ofMonth(c, j, f);
}

/** The business_days option of a reading: the region, the weekend, and how a closed day's run rolls. */
export function businessDaysOf(f: Features, kind: string, region: string): BusinessDays {
  const clause = f.business?.clause ?? {};
  const roll = f.business?.roll ?? clause.roll;
  if (kind === 'BUSINESS_DAY' && roll !== undefined)
    throw new Unreadable(
      'the Nth business day is open already: "or the next business day" says nothing of it (it is for a day of the month, a weekday, a date)',
    );
  if (kind === 'DELAY' || kind === 'FIXED_DELAY' || kind === 'DEADLINE')
    throw new Unreadable('business days are not read with a delay or a deadline: say the days it runs on');
  const days = withoutExcepted([...new Set(f.weekdays)], f.exceptDays) ?? [];
  let weekend = clause.weekend;
  if (weekend === undefined && f.exceptHolidays && !f.business?.word && kind !== 'BUSINESS_DAY') {
    // "every day except public holidays": a Saturday is not a holiday; only the holidays close a day
    if (days.length === 0 || days.some((d) => WEEKEND.includes(d))) weekend = [];
  }
  if (f.business?.word && days.some((d) => WEEKEND.includes(d)) && weekend === undefined)
    throw new Unreadable(
      'business days are Monday to Friday: a Saturday or a Sunday named with them would never run',
    );
  return {
    region,
    ...(weekend !== undefined ? { weekend } : {}),
    ...(clause.closed ? { closed: clause.closed } : {}),
    ...(clause.open ? { open: clause.open } : {}),
    ...(roll !== undefined ? { roll } : {}),
  };
}

/** "the first business day of every month at 09:00": a BUSINESS_DAY timing in the zone. */
export function buildBusinessDay(
  f: Features,
  clock: Clock,
  options: Reading['options'],
  notes: string[],
  times: Time[],
): Reading {
  const { n, months, raw } = f.businessOrdinal!;
  const every = f.every;
  if (every !== undefined && (every.n !== 1 || (every.unit !== 'month' && every.unit !== 'quarter')))
    throw new Unreadable(
      `"${raw}" of every ${every.n === 1 ? every.unit : `${every.n} ${every.unit}s`}: the Nth business day is of every month, of every quarter, or of the months named`,
    );
  if (every === undefined && months === undefined)
    throw new Unreadable(
      `"${raw}" of what: say "of the month", "of the quarter" or the months ("of January and July")`,
    );
  if (months !== undefined && every?.unit === 'quarter')
    throw new Unreadable(`"${raw}": of the quarter, or of the months named? say one`);
  if (times.length > 1)
    throw new Unreadable(
      `"${raw}" at ${times.length} times of day: a business day rule has one time ("at 09:00"); make one schedule for each`,
    );
  const t = times[0] ?? { h: 0, m: 0, s: 0 };
  if (times.length === 0) notes.push('no time of day given: at 00:00');
  return {
    timing: {
      kind: 'BUSINESS_DAY',
      period: every?.unit === 'quarter' ? 'QUARTER' : 'MONTH',
      n,
      ...(months !== undefined ? { months } : {}),
      time: `${pad(t.h)}:${pad(t.m)}${t.s ? `:${pad(t.s)}` : ''}`,
      timezone: clock.zone,
    },
    options,
    notes,
  };
}
