/**
 * HOURLY / MINUTELY / SECONDLY expansion: our own walk of the INTERVAL grid from DTSTART (rrule.js leaves
 * the grid there, and loops when BYHOUR is out of its reach: see rrule-expand.ts).
 */
import { fail } from './errors.js';
import {
  DAY,
  dayNumber,
  daysInMonth,
  HOUR,
  isLeapYear,
  isoWeekday,
  MINUTE,
  partsOf,
  SECOND,
  startOfDay,
  wallFrom,
} from './floating.js';
import type { WallIterator } from './rrule-expand.js';
import type { RecurRule } from './rrule-recur.js';

/** Greatest common divisor: after how many steps an INTERVAL grid meets a calendar cycle the same way again. */
export function gcd(a: number, b: number): number {
  let x = Math.abs(a);
  let y = Math.abs(b);
  while (y) [x, y] = [y, x % y];
  return x;
}

const SUBDAILY_FUEL = 2_000_000;

export class SubDailyExpander implements WallIterator {
  private readonly unit: number;
  private readonly step: number;
  private readonly g0: number; // first grid point: DTSTART truncated to the unit
  private readonly offsets: number[]; // ms offsets of occurrences inside one period, sorted
  private lastDay = Number.NaN;
  private lastDayOk = false;

  constructor(
    field: string,
    private readonly rule: RecurRule,
    private readonly dtstart: number,
    private readonly untilWall: number | undefined,
  ) {
    const f = rule.freq;
    this.unit = f === 'HOURLY' ? HOUR : f === 'MINUTELY' ? MINUTE : SECOND;
    this.step = this.unit * rule.interval;
    this.g0 = Math.floor(dtstart / this.unit) * this.unit;
    const p = partsOf(dtstart);
    const minutes = f === 'HOURLY' ? (rule.byminute ?? [p.minute]) : [0];
    const seconds = f === 'SECONDLY' ? [0] : (rule.bysecond ?? [p.second]);
    const offs: number[] = [];
    for (const m of minutes) for (const s of seconds) offs.push(m * MINUTE + s * SECOND);
    offs.sort((a, b) => a - b);
    let chosen = offs;
    if (rule.bysetpos) {
      const n = offs.length;
      chosen = [];
      for (const pos of rule.bysetpos) {
        const i = pos > 0 ? pos - 1 : n + pos;
        if (i >= 0 && i < n && !chosen.includes(offs[i]!)) chosen.push(offs[i]!);
      }
      chosen.sort((a, b) => a - b);
    }
    this.offsets = chosen;
    if (this.offsets.length === 0)
      fail(field, 'BYSETPOS selects nothing: the rule never fires', 'NEVER_FIRES');
    const why = this.unreachable();
    if (why) fail(field, why, 'NEVER_FIRES');
  }

  /** the grid (DTSTART + k·INTERVAL units) never reaches an allowed time of day */
  private unreachable(): string | undefined {
    const r = this.rule;
    const g = gcd(this.step, DAY);
    const phase = ((this.g0 % g) + g) % g;
    const hours = r.byhour ?? Array.from({ length: 24 }, (_, i) => i);
    const filterMinutes = this.rule.freq !== 'HOURLY';
    const minutes = filterMinutes ? (r.byminute ?? Array.from({ length: 60 }, (_, i) => i)) : [0];
    const filterSeconds = this.rule.freq === 'SECONDLY';
    const seconds = filterSeconds ? (r.bysecond ?? Array.from({ length: 60 }, (_, i) => i)) : [0];
    for (const h of hours)
      for (const m of minutes)
        for (const s of seconds) {
          if ((h * HOUR + m * MINUTE + s * SECOND) % g === phase) return undefined;
        }
    return `FREQ=${r.freq};INTERVAL=${r.interval} from DTSTART never reaches an allowed time of day (BYHOUR/BYMINUTE/BYSECOND)`;
  }

  private dayOk(dayStart: number): boolean {
    if (dayStart === this.lastDay) return this.lastDayOk;
    const r = this.rule;
    const p = partsOf(dayStart);
    let ok = true;
    if (r.bymonth && !r.bymonth.includes(p.month)) ok = false;
    if (ok && r.bymonthday) {
      const dim = daysInMonth(p.year, p.month);
      ok = r.bymonthday.includes(p.day) || r.bymonthday.includes(p.day - dim - 1);
    }
    if (ok && r.byyearday) {
      const yl = isLeapYear(p.year) ? 366 : 365;
      const yd = dayNumber(dayStart) - dayNumber(wallFrom(p.year, 1, 1)) + 1;
      ok = r.byyearday.includes(yd) || r.byyearday.includes(yd - yl - 1);
    }
    if (ok && r.byday) {
      const wd = isoWeekday(dayStart);
      ok = r.byday.some((d) => d.weekday === wd);
    }
    this.lastDay = dayStart;
    this.lastDayOk = ok;
    return ok;
  }

  /** first k with g0 + k·step ≥ t */
  private kAtOrAfter(t: number): number {
    return Math.max(0, Math.ceil((t - this.g0) / this.step));
  }

  *walls(from: number): Generator<number, void, undefined> {
    const r = this.rule;
    const lower = Math.max(from, this.dtstart);
    let k = Math.max(0, Math.floor((lower - this.g0) / this.step));
    let fuel = SUBDAILY_FUEL;
    const limit = this.untilWall ?? Number.POSITIVE_INFINITY;
    const maxWall = wallFrom(9999, 12, 31, 23, 59, 59);
    for (;;) {
      if (--fuel < 0) return; // nothing within the search bound: treat as over
      const g = this.g0 + k * this.step;
      if (g > limit || g > maxWall) return;
      const day = startOfDay(g);
      if (!this.dayOk(day)) {
        k = this.kAtOrAfter(day + DAY);
        continue;
      }
      const tod = g - day;
      if (r.byhour && !r.byhour.includes(Math.floor(tod / HOUR))) {
        k = this.unit === HOUR ? k + 1 : this.kAtOrAfter(Math.floor(g / HOUR) * HOUR + HOUR);
        continue;
      }
      if (this.unit <= MINUTE && r.byminute && !r.byminute.includes(Math.floor((tod % HOUR) / MINUTE))) {
        k = this.unit === MINUTE ? k + 1 : this.kAtOrAfter(Math.floor(g / MINUTE) * MINUTE + MINUTE);
        continue;
      }
      if (this.unit === SECOND && r.bysecond && !r.bysecond.includes(Math.floor((tod % MINUTE) / SECOND))) {
        k += 1;
        continue;
      }
      for (const off of this.offsets) {
        const w = g + off;
        if (w < lower) continue;
        if (w > limit) return;
        fuel = SUBDAILY_FUEL;
        yield w;
      }
      k += 1;
    }
  }
}
