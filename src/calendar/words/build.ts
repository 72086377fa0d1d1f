// One reading from the filled slots: the bounds and window options, then the timing of its kind.
import { DAY, isoWeekday } from '../floating.js';
import type { Timing } from '../timing.js';
import { isoDuration } from './amounts.js';
import { buildInterval } from './build-interval.js';
import { buildRecurrence } from './build-recurrence.js';
import { buildBusinessDay } from './business.js';
import {
  type Clock,
  clockOf,
  dayName,
  instantOfWall,
  localIso,
  monthName,
  pad,
  resolveDate,
  ymd,
} from './clock.js';
import { WEEKDAY_ORDER } from './days.js';
import type { Features, Time, TimingKind } from './features.js';
import type { Reading } from './reading.js';
import { Unreadable } from './refusals.js';

export function build(
  f: Features,
  kind: TimingKind,
  zone: string | undefined,
  now: string,
  combo: { times: Time[]; numdate: number; monthDayMode: number },
): Reading {
  const notes = [...f.notes];
  const options: Reading['options'] = {};
  const clock = zone ? clockOf(zone, now) : undefined;
  const times = combo.times;
  if (f.maxCount !== undefined) options.max_count = f.maxCount;
  if (f.dst !== undefined) options.dst = f.dst;
  if (f.starts || f.ends) setBounds(f, zone, clock ?? clockOf('UTC', now), options, notes, combo.numdate);
  if (f.window) {
    options.window = windowOf(f.window);
    if (zone !== undefined && (kind === 'INTERVAL' || kind === 'DELAY' || kind === 'FIXED_DELAY'))
      options.timezone = zone;
  }
  const durationDelay = f.delay ? isoDuration(f.delay) : undefined;
  switch (kind) {
    case 'DELAY': {
      // "через день в 9:00": a delay and a time of day are two schedules (every other day? tomorrow?)
      if (times.length > 0 || f.date || f.weekdays.length > 0 || f.minuteOfHour !== undefined)
        throw new Unreadable(
          'a delay from now and a day or a time of day: say one ("tomorrow at 9:00", "every other day at 9:00", "in 1 day")',
        );
      const timing: Timing = {
        kind: 'DELAY',
        delay: durationDelay!,
        ...(f.anchor ? { anchor: f.anchor } : {}),
      };
      if (!f.anchor) notes.push("counts from the schedule's creation");
      return { timing, options, notes };
    }
    case 'FIXED_DELAY': {
      const every = isoDuration({ second: f.every!.n });
      notes.push('each run starts this long after the previous one finished');
      return { timing: { kind: 'INTERVAL', every, mode: 'FIXED_DELAY' }, options, notes };
    }
    case 'INTERVAL':
      return buildInterval(f, zone, clock, options, notes, times);
    case 'DEADLINE': {
      if (!clock) throw new Unreadable('a deadline needs a zone');
      const at = wallAt(f, clock, times, notes, combo.numdate);
      if (at === undefined)
        throw new Unreadable(
          'the deadline\'s date and time are not in the words: say them ("deadline 31 December at 17:00"), or create a DEADLINE timing with `at`',
        );
      const reminders = f.reminders.map(isoDuration);
      const timing: Timing = {
        kind: 'DEADLINE',
        at: localIso(at),
        timezone: clock.zone,
        ...(reminders.length > 0 ? { reminders } : {}),
      };
      return { timing, options, notes };
    }
    case 'ONE_TIME': {
      if (f.instant) return { timing: { kind: 'ONE_TIME', at: f.instant }, options, notes };
      if (!clock) throw new Unreadable('a time of day needs a zone');
      const at = wallAt(f, clock, times, notes, combo.numdate);
      if (at === undefined)
        throw new Unreadable('no date or time of day to run once at (say which day, or "every …")');
      if (times.length > 1)
        throw new Unreadable('one time, several times of day: say "every day at …" to repeat');
      return { timing: { kind: 'ONE_TIME', at: localIso(at), timezone: clock.zone }, options, notes };
    }
    case 'RECURRENCE':
      return buildRecurrence(f, clock!, options, notes, times, combo.monthDayMode);
    case 'BUSINESS_DAY':
      return buildBusinessDay(f, clock!, options, notes, times);
    default:
      throw new Unreadable(`no reading builds a ${kind} timing from words`);
  }
}

/**
 * starts_at and ends_at from "starting …" / "until …": a date is its wall day in the zone (UTC when the
 * timing has none); "until" a day includes it, "until" a month ends before it.
 */
function setBounds(
  f: Features,
  zone: string | undefined,
  clock: Clock,
  options: Reading['options'],
  notes: string[],
  numdate: number,
): void {
  if (f.starts) {
    options.starts_at =
      f.starts.kind === 'instant'
        ? f.starts.iso
        : instantOfWall(zone ?? 'UTC', resolveDate(f.starts, clock, undefined, notes, numdate));
  }
  if (f.ends) {
    if (f.ends.kind === 'instant') options.ends_at = f.ends.iso;
    else {
      const z = zone ?? 'UTC';
      if (f.ends.kind === 'month') {
        const first = ymd({ ...(f.ends.y ? { y: f.ends.y } : {}), mo: f.ends.mo, d: 1 }, clock, 0);
        options.ends_at = instantOfWall(z, first - 1000);
        notes.push(`until ${monthName(f.ends.mo)}: the last run is before ${localIso(first).slice(0, 10)}`);
      } else {
        const day = resolveDate(f.ends, clock, undefined, notes, numdate);
        options.ends_at = instantOfWall(z, day + DAY - 1000);
        notes.push(`until ${localIso(day).slice(0, 10)}: that day included`);
      }
    }
  }
}

/** The calendar window of "only from 09:00 to 18:00 on weekdays, skipped outside". */
function windowOf(w: NonNullable<Features['window']>): NonNullable<Reading['options']['window']> {
  if (w.from === undefined || w.to === undefined)
    throw new Unreadable('"only" wants the hours of a window: "only from 09:00 to 18:00"');
  const hhmm = (t: Time) => `${pad(t.h)}:${pad(t.m)}`;
  return {
    ...(w.days.length > 0 ? { days: [...new Set(w.days)] } : {}),
    from: hhmm(w.from),
    to: w.to.h === 24 || (w.to.h === 0 && w.to.m === 0 && w.from.h > 0) ? '24:00' : hhmm(w.to),
    outside: w.outside,
  };
}

/** The one wall instant of a one-time or deadline: date (or today/tomorrow) + time (or 00:00). */
function wallAt(
  f: Features,
  clock: Clock,
  times: Time[],
  notes: string[],
  numdate: number,
): number | undefined {
  const time = times[0];
  const tod = time ? time.h * 3600_000 + time.m * 60_000 + time.s * 1000 : 0;
  let day: number;
  let date = f.date;
  if (f.weekdays.length > 1)
    throw new Unreadable(
      `one time, several days (${[...new Set(f.weekdays)].join(', ')}): say "every" to repeat on each ("every Monday and Friday"), or one day`,
    );
  if (!date && f.weekdays.length === 1) date = { kind: 'weekday', wd: f.weekdays[0]!, allowToday: false };
  if (date) {
    day = resolveDate(date, clock, time, notes, numdate);
    // "on Friday 5 December": the day named must be the date's day, else one of them is wrong
    if (
      f.date !== undefined &&
      f.weekdays.length === 1 &&
      WEEKDAY_ORDER[isoWeekday(day) - 1] !== f.weekdays[0]
    )
      throw new Unreadable(
        `${localIso(day).slice(0, 10)} is a ${dayName(day).split(/,? /)[0]}, not the day named`,
      );
  } else if (time) {
    day = clock.today + tod > clock.wallNow ? clock.today : clock.today + DAY;
    notes.push(
      `${pad(time.h)}:${pad(time.m)} ${day === clock.today ? 'today' : 'tomorrow'} (${localIso(day).slice(0, 10)} in ${clock.zone})`,
    );
  } else return undefined;
  if (!time) notes.push('no time of day given: at 00:00');
  return day + tod;
}
