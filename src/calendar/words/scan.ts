// The scan: each word not yet used is offered to every part in turn (scanAt); a part that reads it fills
// slots of the features and says where it stopped.
import type { Weekday } from '../timing.js';
import { duration } from './amounts.js';
import { businessDayWordAt, businessOrdinalAt, exceptHolidays } from './business.js';
import { date, setDate } from './dates.js';
import { dayRange, WEEKEND, WORK } from './days.js';
import { emptyFeatures, type Features } from './features.js';
import { keywordAt } from './keywords.js';
import { Cursor } from './lexing.js';
import { ofMonth, ordinalDayAt } from './month-days.js';
import { afterDuration, perPeriod } from './periods.js';
import type { RegionLookup, WordsLanguage } from './reading.js';
import { Unreadable } from './refusals.js';
import { regionAt, setRegion } from './regions.js';
import { minuteOfHour, setMinuteOfHour, timeList } from './times.js';
import type { Token, Word } from './tokens.js';

export function scan(words: Word[], language: WordsLanguage, regions?: RegionLookup): Features {
  const f = emptyFeatures();
  const c = new Cursor(words, language, regions);
  let reminding = false;
  for (let i = 0; i < words.length; i++) {
    if (words[i]!.used) continue;
    const t = words[i]!.tok;
    const next = scanAt(c, i, f, reminding);
    if (next !== undefined) {
      c.use(i, next);
      i = next - 1;
      continue;
    }
    if (t.k === 'kw' && t.v === 'remind') {
      reminding = true;
      words[i]!.used = true;
    }
  }
  return f;
}

/**
 * Tries every part at `i`; returns the index after what it used, or undefined. The order is the meaning:
 * a zone or a country before anything else reads "in", a keyword is read by its own part only, and an
 * amount before a date ("15 числа" is a day of the month, "15 minutes" an amount).
 */
function scanAt(c: Cursor, i: number, f: Features, reminding: boolean): number | undefined {
  const t = c.tok(i)!;
  const zone = zoneAt(c, i, f);
  if (zone !== undefined) return zone;
  // a country whose public holidays close a business day: "in Latvia", "(LV)", "Latvian holidays", "в Латвии"
  const region = regionAt(c, i);
  if (region) {
    setRegion(f, region);
    return region.next;
  }
  refuseCountedDays(c, i);
  const ordinal = businessOrdinalAt(c, i, f);
  if (ordinal !== undefined) return ordinal;
  const moh = minuteOfHour(c, i, false);
  if (moh) {
    setMinuteOfHour(f, moh.m, c.words[i]!);
    return moh.next;
  }
  if (t.k === 'kw') return keywordAt(c, i, f, t.v);
  const amount = amountAt(c, i, f, reminding);
  if (amount !== undefined) return amount;
  const when = dateAndTimeAt(c, i, f);
  if (when !== undefined) return when;
  if (t.k === 'iso' && t.offset) {
    f.instant = t.text;
    return i + 1;
  }
  if (t.k === 'weekday' || t.k === 'weekdays') return weekdaysAt(c, i, f);
  if (t.k === 'bday') return businessDayWordAt(c, i, f);
  if (t.k === 'part') {
    // "Sunday night at 11", "every evening at 6": the part of the day the hour is in
    if (f.dayPart !== undefined && f.dayPart !== t.v) return undefined;
    f.dayPart = t.v;
    return i + 1;
  }
  return ordinalDayAt(c, i, f);
}

/** A zone: "in Riga", "по Риге", "по московскому времени", "по времени Риги", "Riga time", "(Europe/Riga)". */
function zoneAt(c: Cursor, i: number, f: Features): number | undefined {
  let j = i;
  if (c.kw(j, 'in', 'at', 'by')) j++;
  if (c.kw(j, 'time-word') && j > i) j++;
  if (!c.is(j, 'zone')) return undefined;
  const zone = (c.tok(j) as { v: string }).v;
  if (f.zone !== undefined && f.zone !== zone) throw new Unreadable(`two zones named: ${f.zone} and ${zone}`);
  f.zone = zone;
  j++;
  if (c.kw(j, 'time-word')) j++;
  return j;
}

/** Days counted, which no timing says: "the first weekday of the month", "in 3 business days". */
function refuseCountedDays(c: Cursor, i: number): void {
  const t = c.tok(i)!;
  // "the first weekday of the month": a weekday is any Monday to Friday, so it numbers none
  if ((t.k === 'num' || t.k === 'ord' || t.k === 'ordnum') && c.is(i + 1, 'weekdays', 'work')) {
    throw new Unreadable(
      `"${c.words[i]!.raw} ${c.words[i + 1]!.raw}": weekdays are not counted or numbered; say "the first business day of the month" (its region's public holidays closed) or the days ("every weekday", "on the 1st of every month")`,
      [c.words[i]!, c.words[i + 1]!],
    );
  }
  // "in 3 business days", "через 3 рабочих дня": counting business days from now (or from an event) is not read
  if (t.k === 'num' && c.is(i + 1, 'bday')) {
    throw new Unreadable(
      `"${c.words[i]!.raw} ${c.words[i + 1]!.raw}": counting business days is not read; say the day ("the third business day of the month") or create the timing`,
      [c.words[i]!, c.words[i + 1]!],
    );
  }
}

/** A number or an amount: "10 times", "3 times a day", "15 числа", "48 hours after …", "a day and an hour before". */
function amountAt(c: Cursor, i: number, f: Features, reminding: boolean): number | undefined {
  const t = c.tok(i)!;
  if (t.k === 'num' && !t.article && (c.kw(i + 1, 'times') || (t.v === 1 && c.raw(i + 1) === 'time'))) {
    // "3 times a day" is a frequency, told by its times; "10 times" a count
    const per = perPeriod(c, i + 2, f);
    if (per !== undefined) {
      f.perCount = { n: t.v, unit: f.every!.unit, raw: `${c.words[i]!.raw} ${c.words[i + 1]!.raw}` };
      return per;
    }
    f.maxCount = t.v;
    return i + 2;
  }
  if ((t.k === 'num' || t.k === 'ordnum' || (t.k === 'ord' && t.v >= 1)) && c.kw(i + 1, 'day-of-month')) {
    // "15 числа", "первого числа": a day of every month (of every quarter when it says so)
    f.monthDays.push(t.v);
    return ofMonth(c, i + 2, f);
  }
  if (t.k === 'num' || t.k === 'decimal' || t.k === 'half-hour' || t.k === 'and-a-half' || t.k === 'unit') {
    const d = duration(c, i, reminding || t.k === 'unit', undefined, reminding);
    if (d) {
      const after = afterDuration(c, d.next, f, d.amounts);
      if (after !== undefined) return after;
      if (c.kw(d.next, 'before') || (reminding && f.deadline)) {
        f.reminders.push(d.amounts);
        return c.kw(d.next, 'before') ? d.next + 1 : d.next;
      }
      if (c.kw(d.next, 'and') && reminding) {
        f.reminders.push(d.amounts);
        return d.next + 1;
      }
    }
  }
  return undefined;
}

/** A date, with the times said after it ("5 September at 9:00"), or times alone. */
function dateAndTimeAt(c: Cursor, i: number, f: Features): number | undefined {
  const d = date(c, i);
  if (d) {
    const tAfter = timeList(c, d.next, false);
    setDate(f, d.value);
    if (tAfter) {
      f.times.push(...tAfter.choices);
      return tAfter.next;
    }
    return d.next;
  }
  const tl = timeList(c, i, false);
  if (tl) {
    f.times.push(...tl.choices);
    return tl.next;
  }
  return undefined;
}

/** Days: "Monday and Thursday", "on Mondays", "по понедельникам", "on weekdays", "Monday to Friday". */
function weekdaysAt(c: Cursor, i: number, f: Features): number {
  let j = i;
  // "по пн, ср, пт": days after по repeat, as "по понедельникам" does
  if (c.kw(i - 1, 'by') && !f.excepting && f.window?.from === undefined) f.weekdaysRepeat = true;
  while (c.is(j, 'weekday') || c.is(j, 'weekdays')) {
    j = daysAt(c, j, f);
    if ((c.kw(j, 'and') || c.is(j, 'punct', ',')) && (c.is(j + 1, 'weekday') || c.is(j + 1, 'weekdays'))) j++;
  }
  // "except weekends and public holidays"
  if (f.excepting && (c.kw(j, 'and') || c.is(j, 'punct', ',')) && c.is(j + 1, 'holidays')) {
    exceptHolidays(f);
    j += 2;
  }
  f.excepting = false;
  return j;
}

/** One day, one set of days, or one range of days at `j`; returns the index after it. */
function daysAt(c: Cursor, j: number, f: Features): number {
  const w = c.tok(j) as Token & { k: 'weekday' | 'weekdays' };
  if (w.k === 'weekday' && c.kw(j + 1, 'to', 'until', 'by') && c.is(j + 2, 'weekday')) {
    // "Monday to Friday", "Monday through Friday", "с понедельника по пятницу": a range of days repeats
    if (takeDays(f, dayRange(w.v, (c.tok(j + 2) as { v: Weekday }).v))) f.weekdaysRepeat = true;
    return j + 3;
  }
  if (w.k === 'weekday') {
    if (takeDays(f, [w.v]) && w.plural) f.weekdaysRepeat = true;
  } else if (
    takeDays(f, w.v === 'work' ? WORK : WEEKEND) &&
    !/^(weekday|workday|weekend|будний|выходной|рабочий день|business day|working day)$/.test(c.raw(j))
  )
    f.weekdaysRepeat = true;
  return j + 1;
}

/** Days go where the words before them send them: excepted, a window's, or the schedule's (then true). */
function takeDays(f: Features, days: Weekday[]): boolean {
  if (f.excepting) f.exceptDays.push(...days);
  else if (f.window?.from !== undefined) f.window.days.push(...days);
  else {
    f.weekdays.push(...days);
    return true;
  }
  return false;
}
