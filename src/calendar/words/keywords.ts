// Keywords: each is read by one part ("at" a time, "every" a period, "until" an end, "except" days taken
// out), and a keyword its part does not read here is left for the words around it.
import type { Weekday } from '../timing.js';
import { duration } from './amounts.js';
import { exceptHolidays, setRoll } from './business.js';
import { date, dateOrInstant, setDate, yearAt } from './dates.js';
import { BUSINESS_HOURS, type Features } from './features.js';
import type { Keyword, Unit } from './lexicon.js';
import type { Cursor } from './lexing.js';
import { afterDuration, period, perPeriod, scanEvery, setEvery } from './periods.js';
import { regionAt, setRegion } from './regions.js';
import { hoursRange, minuteOfHour, setMinuteOfHour, timeList } from './times.js';

type KeywordPart = (c: Cursor, i: number, f: Features, v: Keyword) => number | undefined;

/** A keyword is read by its own part only: a keyword no part reads here is left for the words around it. */
export function keywordAt(c: Cursor, i: number, f: Features, v: Keyword): number | undefined {
  return KEYWORD_PARTS.get(v)?.(c, i, f, v);
}

/** "on the hour", "at 9:00", "noon", "в половине десятого", "at :15". */
function timeKeyword(c: Cursor, i: number, f: Features, v: Keyword): number | undefined {
  if (v === 'on') {
    // "on the hour", "on the half hour"
    let j = i + 1;
    if (c.is(j, 'filler') && c.raw(j) === 'the') j++;
    const u = c.tok(j);
    if (u?.k === 'unit' && u.v === 'hour' && !u.plural) {
      setMinuteOfHour(f, 0, c.words[i]!);
      return j + 1;
    }
    if (u?.k === 'half-hour') {
      setMinuteOfHour(f, 30, c.words[i]!);
      return j + 1;
    }
    return undefined;
  }
  const afterAt = v === 'at';
  const tl = timeList(c, afterAt ? i + 1 : i, v !== 'noon' && v !== 'midnight');
  if (tl) {
    f.times.push(...tl.choices);
    return tl.next;
  }
  // "at :15", "at 15 minutes past the hour", "в 15 минут каждого часа"
  const moh = afterAt ? minuteOfHour(c, i + 1, true) : undefined;
  if (moh) {
    setMinuteOfHour(f, moh.m, c.words[i + 1]!);
    return moh.next;
  }
  return undefined;
}

/** Words that set one slot: "only", "except …", "deadline", "during business hours", "or the next business day". */
function flagKeyword(c: Cursor, i: number, f: Features, v: Keyword): number | undefined {
  switch (v) {
    case 'from-creation':
      f.fromCreation = true;
      return i + 1;
    case 'only':
      f.window = { days: [], outside: 'DEFER' };
      return i + 1;
    case 'except':
      return exceptAt(c, i, f);
    case 'dst-day':
      setDate(f, { kind: 'dst-change' });
      return i + 1;
    case 'window-skip':
    case 'window-defer':
      if (!f.window) return undefined;
      f.window.outside = v === 'window-skip' ? 'SKIP' : 'DEFER';
      return i + 1;
    case 'deadline':
      f.deadline = true;
      // "the contract's deadline": the deadline's name, not a part of the schedule
      for (let k = i - 1; k >= 0 && c.tok(k)?.k === 'unknown' && /'s$|’s$/i.test(c.words[k]!.raw); k--)
        c.words[k]!.used = true;
      return i + 1;
    case 'business-hours':
      f.hours = { ...BUSINESS_HOURS, business: true, inclusive: false };
      return i + 1;
    default:
      // "on the 1st of every month, or the next business day": a closed day's run moves
      setRoll(f, v === 'roll-forward' ? 'FORWARD' : 'BACKWARD', c.words[i]!);
      return i + 1;
  }
}

/** "except weekends", "кроме среды", "except public holidays": days must follow, else "except" says nothing read. */
function exceptAt(c: Cursor, i: number, f: Features): number | undefined {
  let j = i + 1;
  if (c.kw(j, 'on')) j++;
  if (c.is(j, 'filler') && c.raw(j) === 'the') j++;
  // "except public holidays", "кроме праздников", "except Latvian holidays": the region's holidays
  if (c.is(j, 'holidays')) {
    exceptHolidays(f);
    return j + 1;
  }
  const region = regionAt(c, j);
  if (region?.holidays) {
    setRegion(f, region);
    exceptHolidays(f);
    return region.next;
  }
  if (!(c.is(j, 'weekday') || c.is(j, 'weekdays'))) return undefined;
  f.excepting = true;
  return j;
}

const EVERY_KEYWORD: Partial<Record<Keyword, { unit: Unit; n: number }>> = {
  daily: { unit: 'day', n: 1 },
  weekly: { unit: 'week', n: 1 },
  monthly: { unit: 'month', n: 1 },
  yearly: { unit: 'year', n: 1 },
  hourly: { unit: 'hour', n: 1 },
  quarterly: { unit: 'quarter', n: 1 },
  fortnightly: { unit: 'week', n: 2 },
};

/** How often: "every …", "per hour", "daily", "once", "twice a day". */
function frequencyKeyword(c: Cursor, i: number, f: Features, v: Keyword): number | undefined {
  switch (v) {
    case 'every':
      return scanEvery(c, i + 1, f);
    case 'per': {
      const d = duration(c, i + 1, true);
      if (!d) return undefined;
      setEvery(f, d.amounts);
      return d.next;
    }
    case 'once': {
      f.once = true;
      const per = perPeriod(c, i + 1, f);
      if (per !== undefined) {
        f.perCount = { n: 1, unit: f.every!.unit, raw: c.words[i]!.raw };
        return per;
      }
      return i + 1;
    }
    case 'twice': {
      // "twice" says how often only with its period ("twice a day"); alone it is not placed
      const per = perPeriod(c, i + 1, f);
      if (per === undefined) return undefined;
      f.perCount = { n: 2, unit: f.every!.unit, raw: c.words[i]!.raw };
      return per;
    }
    default:
      period(f, EVERY_KEYWORD[v]!);
      return i + 1;
  }
}

/** A delay from now ("in 20 minutes", "через час") or a reminder before the deadline ("за день"). */
function delayKeyword(c: Cursor, i: number, f: Features, v: Keyword): number | undefined {
  if (v === 'before-prefix') {
    // за день, за час: a reminder before the deadline
    const d = duration(c, i + 1, true);
    if (!d) return undefined;
    f.reminders.push(d.amounts);
    let j = d.next;
    if (c.kw(j, 'until')) j++; // за день до дедлайна
    if (c.kw(j, 'deadline')) {
      j++;
    }
    return j;
  }
  const d = duration(c, i + 1, v === 'delay');
  if (!d) return undefined;
  // "in 20 minutes after …" is read by the duration's own `after`
  const after = afterDuration(c, d.next, f, d.amounts);
  if (after !== undefined) return after;
  f.delay = d.amounts;
  return d.next;
}

/** "from 9 to 17" (hours), "from 2026-09-01", "starting Friday", "between 08:00 and 20:00". */
function startKeyword(c: Cursor, i: number, f: Features, v: Keyword): number | undefined {
  // "from Monday to Friday", "с понедельника по пятницу": the weekday part reads the range
  if (v === 'from' && c.is(i + 1, 'weekday') && c.kw(i + 2, 'to', 'until', 'by') && c.is(i + 3, 'weekday'))
    return i + 1;
  const range = v === 'starting' ? undefined : hoursRange(c, i + 1);
  if (range) {
    if (f.window) {
      f.window.from = range.hours.from;
      f.window.to = range.hours.to;
    } else f.hours = { ...range.hours, business: false, inclusive: false };
    return range.next;
  }
  const when = dateOrInstant(c, i + 1);
  if (when) {
    f.starts = when.value;
    return when.next;
  }
  // "from Monday", "starting Friday": the first such day after today, as "on Monday" is
  if (v !== 'between' && c.is(i + 1, 'weekday') && !c.kw(i + 2, 'to', 'until', 'by')) {
    f.starts = { kind: 'weekday', wd: (c.tok(i + 1) as { v: Weekday }).v, allowToday: false };
    return i + 2;
  }
  return undefined;
}

/** "until 2026-12-31", "until December [2027]". */
function endKeyword(c: Cursor, i: number, f: Features): number | undefined {
  const when = dateOrInstant(c, i + 1);
  if (when) {
    f.ends = when.value;
    return when.next;
  }
  if (c.is(i + 1, 'month')) {
    let j = i + 2;
    const mo = (c.tok(i + 1) as { v: number }).v;
    const y = yearAt(c, j);
    if (y) j = y.next;
    f.ends = { kind: 'month', mo, ...(y ? { y: y.year } : {}) };
    return j;
  }
  return undefined;
}

/** A day said by name: "today", "tomorrow", "next Friday", "this Monday". */
function dayKeyword(c: Cursor, i: number, f: Features): number | undefined {
  const d = date(c, i);
  if (!d) return undefined;
  setDate(f, d.value);
  return d.next;
}

const KEYWORD_PARTS = new Map<Keyword, KeywordPart>([
  ...(['on', 'half', 'quarter-hour', 'less', 'noon', 'midnight', 'at'] as const).map(
    (v) => [v, timeKeyword] as const,
  ),
  ...(
    [
      'from-creation',
      'only',
      'except',
      'dst-day',
      'window-skip',
      'window-defer',
      'deadline',
      'business-hours',
      'roll-forward',
      'roll-backward',
    ] as const
  ).map((v) => [v, flagKeyword] as const),
  ...(
    [
      'every',
      'per',
      'once',
      'twice',
      'daily',
      'weekly',
      'monthly',
      'yearly',
      'hourly',
      'quarterly',
      'fortnightly',
    ] as const
  ).map((v) => [v, frequencyKeyword] as const),
  ...(['in', 'delay', 'before-prefix'] as const).map((v) => [v, delayKeyword] as const),
  ...(['from', 'between', 'starting'] as const).map((v) => [v, startKeyword] as const),
  ['until', endKeyword] as const,
  ...(['today', 'tomorrow', 'day-after-tomorrow', 'next', 'this'] as const).map(
    (v) => [v, dayKeyword] as const,
  ),
]);
