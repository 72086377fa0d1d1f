/** Nominal sources for ONE_TIME, DELAY, INTERVAL, CRON and DEADLINE timings. */
import { DateTime } from 'luxon';
import { CronMatcher, parseCron } from './cron.js';
import { parseDuration } from './duration.js';
import { fail, type ListParse } from './errors.js';
import { DAY, FIRST_INSTANT, HOUR, LAST_INSTANT, parseDateTime, SECOND } from './floating.js';
import type { Nominal, NominalSource } from './source.js';
import { luxonZoneOf, type Zone } from './zone.js';

/** a finite, instant-ordered list of nominal occurrences */
export function listSource(items: Nominal[]): NominalSource {
  const sorted = [...items].sort((a, b) => (a.instant ?? a.wall) - (b.instant ?? b.wall));
  return {
    counting: 0,
    iterate(from: number) {
      let i = 0;
      // instants can sit up to a day before their wall; the engine filters precisely
      while (i < sorted.length && sorted[i]!.wall < from - DAY) i++;
      return sorted.slice(i)[Symbol.iterator]();
    },
  };
}

export function absolute(zone: Zone, instant: number, label?: string): Nominal {
  const n: Nominal = { wall: instant + zone.offsetAt(instant), instant };
  if (label !== undefined) n.label = label;
  return n;
}

/** `at` as local wall clock in `zone` (needs `timezone`) or an absolute instant */
export function parseAt(
  field: string,
  text: string,
  zone: Zone | undefined,
): { wall: number; instant?: number } {
  const p = parseDateTime(field, text);
  if (p.offsetMs !== undefined) {
    const instant = p.wall - p.offsetMs;
    return { wall: zone ? instant + zone.offsetAt(instant) : instant, instant };
  }
  if (!zone) {
    fail(
      field.replace(/\.at$/, '.timezone'),
      `"${text}" is a local time: a timezone is required (or give "at" with Z / an offset)`,
      'TIMEZONE_REQUIRED',
    );
  }
  return { wall: p.wall };
}

export function oneTimeSource(field: string, at: string, zone: Zone | undefined): NominalSource {
  const a = parseAt(`${field}.at`, at, zone);
  return listSource([a.instant === undefined ? { wall: a.wall } : { wall: a.wall, instant: a.instant }]);
}

export function delaySource(field: string, delay: string, anchor: number, zone: Zone): NominalSource {
  const d = parseDuration(`${field}.delay`, delay, { allowZero: true });
  // calendar parts (P1M) are added in UTC; days are 24 h
  const instant = DateTime.fromMillis(anchor, { zone: 'utc' }).plus(d.duration).toMillis();
  // Past the calendar's end (or past what a Date can hold: luxon gives NaN) it never fires.
  return listSource(instant <= LAST_INSTANT ? [absolute(zone, instant)] : []);
}

/** FIXED_RATE grid anchor + k·every (k ≥ 0), in instant order */
export function intervalSource(everyMs: number, anchor: number, zone: Zone): NominalSource {
  return {
    counting: 0,
    iterate(from: number) {
      const t0 = Number.isFinite(from) ? from - 15 * HOUR : anchor;
      let k = Math.max(0, Math.ceil((t0 - anchor) / everyMs));
      return {
        next: () => {
          const instant = anchor + k * everyMs;
          k++;
          // The grid ends with the calendar (a huge `every` reaches past what a Date can hold).
          if (!(instant <= LAST_INSTANT)) return { done: true, value: undefined };
          return { done: false, value: absolute(zone, instant) };
        },
      };
    },
  };
}

export function cronSource(
  field: string,
  expression: string,
  begin: number,
  lists: ListParse = {},
): NominalSource & { matcher: CronMatcher } {
  const spec = parseCron(field, expression, lists);
  const matcher = new CronMatcher(spec);
  if (matcher.next(begin) === undefined) {
    fail(field, 'the expression never fires (no match in a full 400-year calendar cycle)', 'NEVER_FIRES');
  }
  return {
    counting: 0,
    matcher,
    iterate(from: number) {
      let cur = Number.isFinite(from) ? from : begin;
      let done = false;
      return {
        next: () => {
          if (done) return { done: true, value: undefined };
          const w = matcher.next(cur);
          if (w === undefined) {
            done = true;
            return { done: true, value: undefined };
          }
          cur = w + SECOND;
          return { done: false, value: { wall: w } };
        },
      };
    },
  };
}

export function deadlineSource(
  field: string,
  at: string,
  zone: Zone | undefined,
  calZone: Zone,
  reminders: string[],
  resolve: (wall: number) => number | undefined,
): NominalSource {
  const a = parseAt(`${field}.at`, at, zone);
  const deadlineInstant = a.instant ?? resolve(a.wall);
  const items: Nominal[] = [
    a.instant === undefined
      ? { wall: a.wall, label: 'deadline' }
      : { wall: a.wall, instant: a.instant, label: 'deadline' },
  ];
  if (deadlineInstant === undefined) {
    if (reminders.length > 0)
      fail(
        `${field}.at`,
        'the deadline is skipped by the DST policy, so reminders have no anchor',
        'INVALID_DATETIME',
      );
    return listSource([]);
  }
  const seen = new Set<number>([deadlineInstant]);
  reminders.forEach((r, i) => {
    const d = parseDuration(`${field}.reminders.${i}`, r);
    // calendar-aware in the zone: P1D before 09:00 is 09:00 the day before, even across DST
    const instant = DateTime.fromMillis(deadlineInstant, { zone: zone ? luxonZoneOf(zone) : 'utc' })
      .minus(d.duration)
      .toMillis();
    // Before the calendar's first year (or anything a Date can hold: NaN): long past, it never fires.
    if (!(instant >= FIRST_INSTANT)) return;
    if (seen.has(instant))
      fail(
        `${field}.reminders.${i}`,
        `reminder ${r} falls on the same instant as another`,
        'INVALID_DURATION',
      );
    seen.add(instant);
    items.push(absolute(calZone, instant, `reminder:${r}`));
  });
  return listSource(items);
}
