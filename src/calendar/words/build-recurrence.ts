// A repeating rule (RRULE) from the days, the days of the month and the times of day.
import { compileCalendar } from '../engine.js';
import { partsOf, wallFrom } from '../floating.js';
import { type Clock, instantOfWall, localIso, pad } from './clock.js';
import { WEEKDAY_ORDER, withoutExcepted } from './days.js';
import { englishOrdinal } from './en.js';
import type { Features, Time } from './features.js';
import type { Unit } from './lexicon.js';
import type { Reading } from './reading.js';
import { Unreadable } from './refusals.js';

export function multiRule(clock: Clock, rules: string[]): string {
  const p = partsOf(Math.floor(clock.wallNow / 60_000) * 60_000);
  const dtstart = `DTSTART;TZID=${clock.zone}:${p.year}${pad(p.month)}${pad(p.day)}T${pad(p.hour)}${pad(p.minute)}00`;
  return [dtstart, ...rules.map((r) => `RRULE:${r}`)].join('\n');
}

const FREQ: Partial<Record<Unit, string>> = {
  day: 'DAILY',
  week: 'WEEKLY',
  month: 'MONTHLY',
  quarter: 'QUARTERLY',
  year: 'YEARLY',
};

export function buildRecurrence(
  f: Features,
  clock: Clock,
  options: Reading['options'],
  notes: string[],
  times: Time[],
  monthDayMode: number,
): Reading {
  const every =
    f.every ??
    (f.ordWeekdays.length > 0 || f.monthDays.length > 0
      ? { unit: 'month' as Unit, n: 1 }
      : f.yearlyDate
        ? { unit: 'year' as Unit, n: 1 }
        : { unit: 'week' as Unit, n: 1 });
  const n = every.n;
  const weekdays = (withoutExcepted([...new Set(f.weekdays)], f.exceptDays) ?? []).sort(
    (a, b) => WEEKDAY_ORDER.indexOf(a) - WEEKDAY_ORDER.indexOf(b),
  );
  const freq = FREQ[every.unit];
  // a clock step with a date or a once: "every hour on 5 September" is not a schedule we can say
  if (freq === undefined)
    throw new Unreadable(`every ${every.n} ${every.unit} cannot be combined with the days given`);
  const parts = periodParts(f, freq, n, notes);
  if (weekdays.length > 0 && f.ordWeekdays.length === 0 && freq !== 'DAILY' && freq !== 'WEEKLY')
    // "every month on Friday": which Friday? every one is "every Friday", one of them "the last Friday"
    throw new Unreadable(
      `days of the week with every ${every.unit}: say which ("the first Friday of every month") or "every Friday"`,
    );
  if (f.ordWeekdays.length > 0) {
    // a day said twice ("the first Monday and the first Monday") is one day: a rule names each value once
    parts.push(`BYDAY=${[...new Set(f.ordWeekdays.map((o) => `${o.ord}${o.wd}`))].join(',')}`);
  } else if (weekdays.length > 0) {
    parts.push(`BYDAY=${weekdays.join(',')}`);
  }
  if (f.monthDays.length > 0) parts.push(...monthDayParts(f.monthDays, monthDayMode, notes));
  const rule = timesRule(clock, parts, times, notes);
  if (f.hours)
    throw new Unreadable(
      `${f.hours.business ? 'business hours' : 'hours from … to …'} with days but no step: say what runs within them ("every hour from 9 to 17", "every 15 minutes during business hours") or the time ("at 9:00")`,
    );
  if (f.minuteOfHour !== undefined)
    throw new Unreadable(
      'a minute past the hour goes with "every hour" ("every hour at :15"); for once a day say the time ("at 09:15")',
    );
  if (
    n > 1 &&
    options.starts_at === undefined &&
    !f.fromCreation &&
    !rule.includes('\n') &&
    freq !== 'YEARLY'
  ) {
    // "every 2 weeks on Tuesday" counts from the first run, not from the week the schedule is made in
    const first = firstRunDay(clock, rule.replace(`;INTERVAL=${n}`, ''));
    if (first !== undefined) {
      options.starts_at = instantOfWall(clock.zone, first);
      notes.push(
        `every ${n} ${every.unit}s counted from ${localIso(first).slice(0, 10)}, the day of the first run`,
      );
    }
  }
  return { timing: { kind: 'RECURRENCE', rule, timezone: clock.zone }, options, notes };
}

/** FREQ and INTERVAL, and the month and day of a yearly date; a quarter is every third month from January. */
function periodParts(f: Features, freq: string, n: number, notes: string[]): string[] {
  const parts: string[] = [];
  if (freq === 'QUARTERLY') {
    // the last day of a quarter is in its last month, not in the month it opens with
    if (f.monthDays.some((d) => d < 0) || f.ordWeekdays.some((o) => o.ord < 0))
      throw new Unreadable(
        'the last day of a quarter is not read: say the rule (FREQ=YEARLY;BYMONTH=3,6,9,12;BYMONTHDAY=-1)',
      );
    parts.push('FREQ=YEARLY', `BYMONTH=${[1, 4, 7, 10].join(',')}`);
    if (f.monthDays.length === 0 && f.ordWeekdays.length === 0) {
      f.monthDays.push(1);
      notes.push('every quarter: on the 1st of January, April, July and October');
    }
  } else {
    parts.push(`FREQ=${freq}`);
    if (n > 1) parts.push(`INTERVAL=${n}`);
  }
  if (f.yearlyDate) {
    parts.push(`BYMONTH=${f.yearlyDate.mo}`, `BYMONTHDAY=${f.yearlyDate.d}`);
  } else if (freq === 'YEARLY' && f.date?.kind === 'ymd') {
    parts.push(`BYMONTH=${f.date.mo}`, `BYMONTHDAY=${f.date.d}`);
  }
  return parts;
}

/** BYMONTHDAY; a day some months lack is skipped in them (mode 0) or their last day (mode 1). */
function monthDayParts(monthDays: number[], monthDayMode: number, notes: string[]): string[] {
  const big = monthDays.filter((d) => d >= 29);
  if (monthDays.some((d) => d > 31 || d === 0)) throw new Unreadable('a day of the month is from 1 to 31');
  if (monthDayMode === 1 && big.length > 0) {
    // the last day of a month shorter than the day asked for
    const d = Math.max(...big);
    notes.push(`the ${englishOrdinal(d)}, or the last day of a month without one`);
    return d === 31 ? ['BYMONTHDAY=-1'] : [`BYMONTHDAY=${range(28, d).join(',')}`, 'BYSETPOS=-1'];
  }
  if (big.length > 0) notes.push(`the ${englishOrdinal(Math.max(...big))}: months without one are skipped`);
  return [`BYMONTHDAY=${[...new Set(monthDays)].join(',')}`];
}

/**
 * The rule at the times of day: one rule when they share a minute or an hour (BYHOUR × BYMINUTE names only
 * them), else one rule per time in an RFC 5545 block.
 */
function timesRule(clock: Clock, parts: string[], times: Time[], notes: string[]): string {
  const ts =
    times.length > 0
      ? [...new Map(times.map((t) => [`${t.h}:${t.m}:${t.s}`, t])).values()]
      : [{ h: 0, m: 0, s: 0 }];
  if (times.length === 0) notes.push('no time of day given: at 00:00');
  const sameMinute = new Set(ts.map((t) => `${t.m}:${t.s}`)).size === 1;
  const sameHour = new Set(ts.map((t) => t.h)).size === 1;
  if (sameMinute || sameHour) {
    const hours = [...new Set(ts.map((t) => t.h))].sort((a, b) => a - b);
    const minutes = [...new Set(ts.map((t) => t.m))].sort((a, b) => a - b);
    return [
      ...parts,
      `BYHOUR=${hours.join(',')}`,
      `BYMINUTE=${minutes.join(',')}`,
      `BYSECOND=${ts[0]!.s}`,
    ].join(';');
  }
  return multiRule(
    clock,
    ts.map((t) => [...parts, `BYHOUR=${t.h}`, `BYMINUTE=${t.m}`, `BYSECOND=${t.s}`].join(';')),
  );
}

/** 00:00 (wall) of the day the rule first fires after now, every period counted. */
function firstRunDay(clock: Clock, rule: string): number | undefined {
  const minute = new Date(Math.floor(clock.nowMs / 60_000) * 60_000).toISOString();
  const calendar = compileCalendar({
    scheduleId: 'words',
    timing: { kind: 'RECURRENCE', rule, timezone: clock.zone },
    createdAt: minute,
    defaultDtstart: minute,
  });
  const slot = calendar.nextSlots(new Date(clock.nowMs).toISOString(), 1).slots[0];
  if (!slot) return undefined;
  const [y, mo, d] = slot.scheduledFor.slice(0, 10).split('-').map(Number) as [number, number, number];
  return wallFrom(y, mo, d);
}

const range = (a: number, b: number) => Array.from({ length: b - a + 1 }, (_, i) => a + i);
