// The wall clock of a reading: now in the zone, wall values ↔ instants, and the wall day a date names
// (today or tomorrow decided by the time).
import { DEFAULT_DST, resolveWall } from '../dst.js';
import { DAY, daysInMonth, formatInstantAt, isoWeekday, partsOf, wallFrom } from '../floating.js';
import { zoneFor, zoneRules } from '../zone.js';
import { WEEKDAY_ORDER } from './days.js';
import { MONTH_NAMES } from './en.js';
import type { DateFeature, Time } from './features.js';
import { Unreadable } from './refusals.js';

export const pad = (n: number) => String(n).padStart(2, '0');

export interface Clock {
  zone: string;
  nowMs: number;
  /** Today in the zone, as a floating wall value at 00:00. */
  today: number;
  /** The wall clock in the zone now. */
  wallNow: number;
}

export function clockOf(zone: string, now: string): Clock {
  const nowMs = Date.parse(now);
  const wallNow = nowMs + zoneRules().offsetAt(zone, Math.floor(nowMs / 1000) * 1000);
  return { zone, nowMs, wallNow, today: Math.floor(wallNow / DAY) * DAY };
}

export const localIso = (wall: number) => {
  const p = partsOf(wall);
  return `${p.year}-${pad(p.month)}-${pad(p.day)}T${pad(p.hour)}:${pad(p.minute)}:${pad(p.second)}`;
};

export function instantOfWall(zone: string, wall: number): string {
  const z = zoneFor(zone);
  const r = resolveWall(z, wall, DEFAULT_DST).resolved[0];
  const at = r?.instant ?? wall - z.offsetAt(wall);
  return formatInstantAt(at, z.offsetAt(at));
}

export const dayName = (wall: number) =>
  new Date(wall).toLocaleDateString('en-GB', {
    weekday: 'long',
    day: 'numeric',
    month: 'long',
    year: 'numeric',
    timeZone: 'UTC',
  });

/** The wall date (00:00) a date feature names, at `clock`; `time` decides "today or tomorrow". */
export function resolveDate(
  d: DateFeature,
  clock: Clock,
  time: Time | undefined,
  notes: string[],
  choice: number,
): number {
  const tod = time ? time.h * 3600_000 + time.m * 60_000 + time.s * 1000 : 0;
  switch (d.kind) {
    case 'relative':
      return clock.today + d.days * DAY;
    case 'dst-change': {
      const change = zoneFor(clock.zone).changeAfter(clock.nowMs);
      if (!change) throw new Unreadable(`${clock.zone} does not change its clocks`);
      const day = Math.floor((change.at + change.before) / DAY) * DAY;
      notes.push(
        `the clocks change in ${clock.zone} on ${dayName(day)} (at ${localIso(change.at + change.before).slice(11, 16)} local time)`,
      );
      return day;
    }
    case 'weekday': {
      const today = isoWeekday(clock.today);
      const target = WEEKDAY_ORDER.indexOf(d.wd) + 1;
      let ahead = (target - today + 7) % 7;
      if (ahead === 0 && !(d.allowToday && clock.today + tod > clock.wallNow)) ahead = 7;
      const wall = clock.today + ahead * DAY;
      const utcDay = Math.floor(clock.nowMs / DAY) * DAY;
      const differs = utcDay !== clock.today;
      notes.push(
        `"${d.wd}" read as ${dayName(wall)} (the first after today, ${dayName(clock.today)}, in ${clock.zone}${differs ? `; in UTC it is still ${dayName(utcDay)}` : ''})`.replace(
          `"${d.wd}"`,
          'the weekday',
        ),
      );
      return wall;
    }
    case 'numdate': {
      const [day, mo] = choice === 0 ? [d.a, d.b] : [d.b, d.a];
      return ymd({ ...(d.y ? { y: d.y } : {}), mo, d: day }, clock, tod);
    }
    case 'ymd':
      return ymd(d, clock, tod);
  }
}

export function ymd(d: { y?: number; mo: number; d: number }, clock: Clock, tod: number): number {
  const check = (y: number) => {
    if (d.mo < 1 || d.mo > 12 || d.d < 1 || d.d > daysInMonth(y, d.mo))
      throw new Unreadable(`${d.d}.${d.mo}${d.y ? `.${d.y}` : ''} is not a date`);
  };
  if (d.y !== undefined) {
    check(d.y);
    return wallFrom(d.y, d.mo, d.d);
  }
  const y0 = partsOf(clock.today).year;
  for (let y = y0; y < y0 + 9; y++) {
    if (d.mo === 2 && d.d === 29 && daysInMonth(y, 2) < 29) continue;
    check(y);
    const wall = wallFrom(y, d.mo, d.d);
    if (wall + tod > clock.wallNow) return wall;
  }
  throw new Unreadable(`${d.d}.${d.mo} is not a date`);
}

export const hm = (minutes: number) => `${pad(Math.floor(minutes / 60))}:${pad(minutes % 60)}`;

export const monthName = (mo: number) => MONTH_NAMES[mo - 1] ?? `month ${mo}`;
