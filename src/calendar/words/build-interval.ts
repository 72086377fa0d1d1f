// An interval: a plain step from the creation or the start, or a step on the clock within hours and days
// (an RRULE of those minutes, or a window when the hours pass midnight).
import type { Timing, Weekday } from '../timing.js';
import { fixedSeconds, isoDuration } from './amounts.js';
import { multiRule } from './build-recurrence.js';
import { type Clock, hm, pad } from './clock.js';
import { WORK, withoutExcepted } from './days.js';
import type { Features, Time } from './features.js';
import type { Reading } from './reading.js';
import { Unreadable } from './refusals.js';

export function buildInterval(
  f: Features,
  zone: string | undefined,
  clock: Clock | undefined,
  options: Reading['options'],
  notes: string[],
  times: Time[],
): Reading {
  const step = f.every!;
  const seconds = fixedSeconds({ [step.unit]: step.n });
  const days = intervalDays(f);
  const moh = f.minuteOfHour;
  refuseClockTimes(f, seconds, times);
  if (moh !== undefined && seconds === 3600 && f.hours === undefined && days === undefined && clock) {
    notes.push(`every hour at ${pad(moh)} minutes past the hour`);
    return {
      timing: { kind: 'RECURRENCE', rule: `FREQ=HOURLY;BYMINUTE=${moh};BYSECOND=0`, timezone: clock.zone },
      options,
      notes,
    };
  }
  const restricted = f.hours !== undefined || days !== undefined || times.length > 0 || moh !== undefined;
  if (!restricted) {
    const timing: Timing = { kind: 'INTERVAL', every: isoDuration({ second: seconds }) };
    if (options.starts_at) timing.anchor = options.starts_at;
    notes.push(
      options.starts_at
        ? 'every step counted from the start'
        : "every step counted from the schedule's creation",
    );
    return { timing, options, notes };
  }
  const hours = f.hours ?? {
    from: { h: 0, m: 0, s: 0 },
    to: { h: 24, m: 0, s: 0 },
    business: false,
    inclusive: false,
  };
  const fromMin = hours.from.h * 60 + hours.from.m;
  const toMin = hours.to.h * 60 + hours.to.m;
  const start =
    moh !== undefined
      ? hours.from.h * 60 + moh + (moh < hours.from.m ? 60 : 0)
      : times[0]
        ? times[0].h * 60 + times[0].m
        : fromMin;
  const aligned =
    seconds % 60 === 0 &&
    ((seconds < 3600 && 3600 % seconds === 0) || (seconds % 3600 === 0 && 86400 % seconds === 0));
  if (aligned && toMin > fromMin && clock) {
    const slots: number[] = [];
    for (let m = start; hours.inclusive ? m <= toMin : m < toMin; m += seconds / 60)
      if (m < 24 * 60) slots.push(m);
    const rule = clockStepRule(clock, slots, days);
    notes.push(
      `every ${describeStep(seconds)} on the clock from ${hm(slots[0]!)} to ${hm(slots[slots.length - 1]!)}${days ? ` on ${days.join(',')}` : ''}`,
    );
    return { timing: { kind: 'RECURRENCE', rule, timezone: clock.zone }, options, notes };
  }
  if (!zone) throw new Unreadable('hours of the day need a zone');
  if (moh !== undefined)
    throw new Unreadable('a minute past the hour within hours that pass midnight is not read: say the times');
  options.window = {
    ...(days ? { days } : {}),
    from: hm(fromMin),
    to: toMin >= 24 * 60 ? '24:00' : hm(toMin),
    outside: 'SKIP',
  };
  options.timezone = zone;
  notes.push(`every ${describeStep(seconds)} from the schedule's creation, only inside the window`);
  return { timing: { kind: 'INTERVAL', every: isoDuration({ second: seconds }) }, options, notes };
}

function describeStep(seconds: number): string {
  if (seconds % 3600 === 0) return seconds === 3600 ? 'hour' : `${seconds / 3600} hours`;
  if (seconds % 60 === 0) return seconds === 60 ? 'minute' : `${seconds / 60} minutes`;
  return `${seconds} seconds`;
}

/** Slots (minutes of the day) grouped so that each group is a product of hours × minutes. */
function byMinuteGroups(slots: number[]): Array<{ hours: number[]; minutes: number[] }> {
  const byMinuteSet = new Map<string, number[]>();
  const hoursOf = new Map<number, number[]>();
  for (const m of slots) {
    const h = Math.floor(m / 60);
    hoursOf.set(h, [...(hoursOf.get(h) ?? []), m % 60]);
  }
  for (const [h, minutes] of hoursOf) {
    const key = minutes.join(',');
    byMinuteSet.set(key, [...(byMinuteSet.get(key) ?? []), h]);
  }
  return [...byMinuteSet].map(([key, hours]) => ({ hours, minutes: key.split(',').map(Number) }));
}

/**
 * Several RRULEs share one DTSTART: an RFC 5545 block. DTSTART is the minute of `now`, where a bare RRULE
 * body starts (the schedule's creation), so that counts and intervals run from the same point.
 */

/** The RRULE of slots (minutes of the day) on `days`: one rule when hours × minutes are the slots, else a block. */
function clockStepRule(clock: Clock, slots: number[], days: Weekday[] | undefined): string {
  const byHour = [...new Set(slots.map((m) => Math.floor(m / 60)))];
  const byMinute = [...new Set(slots.map((m) => m % 60))];
  const rules = byMinuteGroups(slots).map(
    (g) =>
      `FREQ=DAILY${days ? `;BYDAY=${days.join(',')}` : ''};BYHOUR=${g.hours.join(',')};BYMINUTE=${g.minutes.join(',')};BYSECOND=0`,
  );
  return rules.length === 1 && byHour.length * byMinute.length === slots.length
    ? rules[0]!
    : multiRule(clock, rules);
}

/** The days an interval runs on: the days named (Monday to Friday for business hours), less those excepted. */
function intervalDays(f: Features): Weekday[] | undefined {
  const named =
    f.hours?.business && f.weekdays.length === 0
      ? WORK
      : f.weekdays.length > 0
        ? [...new Set(f.weekdays)]
        : undefined;
  return withoutExcepted(named, f.exceptDays);
}

/** A step and a time of day, or a minute past the hour with a step that is not whole hours: never guessed. */
function refuseClockTimes(f: Features, seconds: number, times: Time[]): void {
  if (f.minuteOfHour !== undefined && (seconds % 3600 !== 0 || 86400 % seconds !== 0))
    throw new Unreadable(
      `a minute past the hour goes with every hour (or every 2, 3, 4, 6, 8 or 12 hours), not every ${describeStep(seconds)}`,
    );
  if (times.length > 0 && f.hours === undefined)
    // "every hour at 15:00", "every hour at 15": a minute past each hour, or hours from 15:00 on? never guessed
    throw new Unreadable(
      `every ${describeStep(seconds)} and a time of day: say the minute past the hour ("every hour at :15", "at 15 minutes past every hour") or the hours ("every hour from 15:00 to 24:00")`,
    );
}
