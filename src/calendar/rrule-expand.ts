/**
 * RFC 5545 RRULE expansion in floating wall-clock time, with re-anchoring so that the cost of
 * "next occurrence after X" does not depend on how long ago DTSTART was.
 *
 * - DAILY … YEARLY: expanded by `rrule` (rrule.js, a port of python-dateutil), in floating time
 *   (its Date values are read as UTC-labelled wall clock; its `tzid` is never used). Defaults that
 *   RFC 5545 derives from DTSTART (BYHOUR/BYMINUTE/BYSECOND, BYMONTHDAY, BYDAY, BYMONTH) are made
 *   explicit first, so that a rule re-anchored at the start of a later period (aligned to the
 *   INTERVAL grid and, for WEEKLY, to WKST) yields exactly the same occurrences. Whole periods are
 *   always regenerated, so BYSETPOS and BYWEEKNO years are unaffected.
 * - HOURLY / MINUTELY / SECONDLY: expanded by our own grid walker. rrule.js 2.8.1 is wrong there:
 *   with BYHOUR (MINUTELY) or BYMINUTE (SECONDLY) and an INTERVAL that does not divide 60 it
 *   leaves the INTERVAL grid (e.g. FREQ=MINUTELY;INTERVAL=90;BYHOUR=9,10,11 gives 10:00 on the
 *   second day instead of 09:00), and it loops forever when BYHOUR can never be reached
 *   (FREQ=HOURLY;INTERVAL=24;BYHOUR=5 with DTSTART at 06:00). Both cases are tests.
 * - rrule.js only stops at year 9999 when a rule stops matching; we bound every search with a
 *   deterministic fuel budget of one full Gregorian cycle (400 years) of periods: the calendar
 *   repeats after that, so a search that finds nothing within it will never find anything.
 */
import * as rruleNs from 'rrule';

// rrule 2.8 ships a UMD bundle as `main` (Node ESM sees only a default export) and an ESM build
// as `module` (bundlers, vitest): accept both shapes
const rruleMod: typeof rruleNs =
  (rruleNs as unknown as { default?: typeof rruleNs }).default?.RRule !== undefined
    ? (rruleNs as unknown as { default: typeof rruleNs }).default
    : rruleNs;
const { RRule, Weekday } = rruleMod;
type RRule = InstanceType<typeof RRule>;

import { DAY, dayNumber, daysInMonth, isoWeekday, partsOf, wallFrom } from './floating.js';
import type { Freq, RecurRule } from './rrule-recur.js';
import { gcd, SubDailyExpander } from './rrule-subdaily.js';

const RRULE_FREQ: Record<Freq, number> = {
  YEARLY: RRule.YEARLY,
  MONTHLY: RRule.MONTHLY,
  WEEKLY: RRule.WEEKLY,
  DAILY: RRule.DAILY,
  HOURLY: RRule.HOURLY,
  MINUTELY: RRule.MINUTELY,
  SECONDLY: RRule.SECONDLY,
};

/** Days/weeks/months/years in one 400-year Gregorian cycle (the calendar repeats after it). */
const CYCLE: Partial<Record<Freq, number>> = { DAILY: 146_097, WEEKLY: 20_871, MONTHLY: 4_800, YEARLY: 400 };

const FUEL_OUT = Symbol('fuel');

/** Makes the DTSTART-derived defaults of RFC 5545 / dateutil explicit. */
export function normalizeRule(rule: RecurRule, dtstart: number): RecurRule {
  const p = partsOf(dtstart);
  const r: RecurRule = { ...rule };
  const f = r.freq;
  if (!(r.byweekno || r.byyearday || r.bymonthday || r.byday)) {
    if (f === 'YEARLY') {
      if (!r.bymonth) r.bymonth = [p.month];
      r.bymonthday = [p.day];
    } else if (f === 'MONTHLY') {
      r.bymonthday = [p.day];
    } else if (f === 'WEEKLY') {
      r.byday = [{ weekday: isoWeekday(dtstart), n: 0 }];
    }
  }
  const order = ['YEARLY', 'MONTHLY', 'WEEKLY', 'DAILY', 'HOURLY', 'MINUTELY', 'SECONDLY'];
  const fi = order.indexOf(f);
  if (!r.byhour && fi < order.indexOf('HOURLY')) r.byhour = [p.hour];
  if (!r.byminute && fi < order.indexOf('MINUTELY')) r.byminute = [p.minute];
  if (!r.bysecond && fi < order.indexOf('SECONDLY')) r.bysecond = [p.second];
  // dateutil keeps BYxxx as sorted sets; rrule.js keeps the written order and then emits the
  // times of a day unsorted (BYHOUR=19,6,9 → 19:00 before 06:00) and BYSETPOS picks the wrong one
  const asc = (xs: number[] | undefined) => (xs ? [...xs].sort((a, b) => a - b) : xs);
  for (const k of [
    'bysecond',
    'byminute',
    'byhour',
    'bymonthday',
    'byyearday',
    'byweekno',
    'bymonth',
    'bysetpos',
  ] as const) {
    const v = asc(r[k]);
    if (v) r[k] = v;
  }
  return r;
}

/** Quick static proofs that a rule can never fire (the bounded search catches the rest). */
export function staticNeverFires(rule: RecurRule, dtstart: number): string | undefined {
  if (rule.bymonthday && (rule.bymonth || rule.freq === 'YEARLY')) {
    const months = rule.bymonth ?? [partsOf(dtstart).month];
    const maxDays = (m: number) => (m === 2 ? 29 : daysInMonth(2001, m));
    const ok = months.some((m) => rule.bymonthday!.some((d) => Math.abs(d) <= maxDays(m)));
    if (!ok) return `no month in BYMONTH=${months.join(',')} has day ${rule.bymonthday.join(',')}`;
  }
  if (rule.bymonthday?.every((d) => Math.abs(d) > 31)) return 'BYMONTHDAY out of range';
  return undefined;
}

export interface WallIterator {
  /** occurrences (floating walls) ≥ from, increasing; stops when the rule is exhausted */
  walls(from: number): Generator<number, void, undefined>;
}

/** Builds the expander for a normalised rule. `untilWall` bounds the expansion (inclusive). */
export function makeExpander(
  field: string,
  rule: RecurRule,
  dtstart: number,
  untilWall: number | undefined,
): WallIterator {
  if (rule.freq === 'HOURLY' || rule.freq === 'MINUTELY' || rule.freq === 'SECONDLY') {
    return new SubDailyExpander(field, rule, dtstart, untilWall);
  }
  return new RRuleExpander(rule, dtstart, untilWall);
}

// ---------------------------------------------------------------------------------------------
// DAILY … YEARLY through rrule.js

class RRuleExpander implements WallIterator {
  private readonly base: Record<string, unknown>;
  private readonly fuelPerSearch: number;
  /** period indices after which the INTERVAL grid meets the calendar the same way again */
  private readonly cycleSpan: number;
  private cached: { anchor: number; rrule: RRule } | undefined;
  private fuel = 0;
  private readonly p0: number;
  private chunks: Chunk[] = [];
  private lastTarget = 4;

  constructor(
    private readonly rule: RecurRule,
    private readonly dtstart: number,
    private readonly untilWall: number | undefined,
  ) {
    const cycle = CYCLE[rule.freq]!;
    // periods in one full cycle for this INTERVAL, + slack; rrule.js reads `options.interval`
    // twice per period
    this.fuelPerSearch = 2 * (cycle / gcd(cycle, rule.interval) + 4);
    this.cycleSpan = (cycle / gcd(cycle, rule.interval)) * rule.interval;
    this.p0 = this.period(dtstart);
    // BYSETPOS and UNTIL are applied by us, per whole period: rrule.js 2.8.1 gets BYSETPOS wrong
    // when |pos| exceeds the period's set (BYSETPOS=-2 of a 1-element set returns that element,
    // twice: `tmp.slice(-2)[0]`, and Dates are deduplicated by reference), and a mid-period
    // UNTIL must not change which element is "last".
    this.base = {
      freq: RRULE_FREQ[rule.freq],
      interval: rule.interval,
      wkst: rule.wkst - 1,
      bymonth: rule.bymonth ?? null,
      bymonthday: rule.bymonthday ?? null,
      byyearday: rule.byyearday ?? null,
      byweekno: rule.byweekno ?? null,
      byweekday: rule.byday
        ? rule.byday.map((d) => (d.n ? new Weekday(d.weekday - 1, d.n) : d.weekday - 1))
        : null,
      byhour: rule.byhour ?? null,
      byminute: rule.byminute ?? null,
      bysecond: rule.bysecond ?? null,
    };
  }

  /** period index of a floating value */
  private period(wall: number): number {
    switch (this.rule.freq) {
      case 'YEARLY':
        return new Date(wall).getUTCFullYear();
      case 'MONTHLY': {
        const d = new Date(wall);
        return d.getUTCFullYear() * 12 + d.getUTCMonth();
      }
      case 'WEEKLY': {
        // day 0 (1970-01-01) is a Thursday (ISO 4)
        const first = (((this.rule.wkst - 4) % 7) + 7) % 7;
        return Math.floor((dayNumber(wall) - first) / 7);
      }
      default:
        return dayNumber(wall);
    }
  }

  private periodStart(index: number): number {
    switch (this.rule.freq) {
      case 'YEARLY':
        return wallFrom(index, 1, 1);
      case 'MONTHLY':
        return wallFrom(Math.floor(index / 12), (index % 12) + 1, 1);
      case 'WEEKLY': {
        const first = (((this.rule.wkst - 4) % 7) + 7) % 7;
        return (index * 7 + first) * DAY;
      }
      default:
        return index * DAY;
    }
  }

  /** the latest INTERVAL-aligned period index whose period starts ≤ wall (at least DTSTART's) */
  private alignedPeriod(wall: number): number {
    const k = Math.max(0, Math.floor((this.period(wall) - this.p0) / this.rule.interval));
    return this.p0 + k * this.rule.interval;
  }

  private rruleAt(anchor: number): RRule {
    const c = this.cached;
    if (c !== undefined && c.anchor === anchor) return c.rrule;
    const r = new RRule({ ...this.base, dtstart: new Date(anchor) } as never, true);
    const interval = this.rule.interval;
    Object.defineProperty(r.options, 'interval', {
      get: () => {
        if (--this.fuel < 0) throw FUEL_OUT;
        return interval;
      },
      configurable: true,
    });
    this.cached = { anchor, rrule: r };
    return r;
  }

  private setpos(period: number[]): number[] {
    const pos = this.rule.bysetpos;
    if (!pos) return period;
    const n = period.length;
    const out: number[] = [];
    for (const p of pos) {
      const i = p > 0 ? p - 1 : n + p;
      if (i >= 0 && i < n && !out.includes(period[i]!)) out.push(period[i]!);
    }
    return out.sort((a, b) => a - b);
  }

  /**
   * Expands whole periods starting at aligned period `p` until at least CHUNK occurrences (or
   * the rule ends). Chunks are memoised, so a schedule walking forward one slot at a time costs
   * a binary search per call; the memo is a pure function of the rule, safe for replay.
   */
  private chunkAt(p: number): Chunk {
    for (const c of this.chunks) if (c.p0 <= p && p < c.p1) return c;
    // small first chunk (a compile check or a one-off preview), bigger ones when walking on
    const sequential = this.chunks[0]?.p1 === p;
    const target = sequential ? Math.min(this.lastTarget * 4, CHUNK) : 4;
    this.lastTarget = target;
    let periods = 0;
    const until = this.untilWall ?? Number.POSITIVE_INFINITY;
    const got: number[] = [];
    const gotP: number[] = [];
    let lastP = Number.NaN;
    let stopped = false;
    let pastUntil = false;
    this.fuel = this.fuelPerSearch;
    try {
      this.rruleAt(this.periodStart(p)).all((d) => {
        const w = d.getTime();
        const wp = this.period(w);
        if (wp !== lastP && (periods >= target || got.length >= 16 * target || w > until)) {
          // stop at a period boundary so that every collected period is complete
          stopped = true;
          pastUntil = w > until;
          return false;
        }
        if (wp !== lastP) periods++;
        got.push(w);
        gotP.push(wp);
        lastP = wp;
        return true;
      });
    } catch (e) {
      if (e !== FUEL_OUT) throw e;
      // nothing within a whole calendar cycle: the rule is over for good
      stopped = got.length > 0;
    }
    const walls: number[] = [];
    let start = 0;
    if (!this.rule.bysetpos) {
      for (const w of got) if (w >= this.dtstart && w <= until) walls.push(w);
    } else {
      for (let i = 1; i <= got.length; i++) {
        if (i < got.length && gotP[i] === gotP[start]) continue;
        for (const w of this.setpos(got.slice(start, i))) {
          if (w >= this.dtstart && w <= until) walls.push(w);
        }
        start = i;
      }
    }
    const end = !stopped || pastUntil;
    const chunk: Chunk = {
      p0: p,
      p1: end ? Number.POSITIVE_INFINITY : lastP + this.rule.interval,
      walls,
      end,
    };
    this.chunks.unshift(chunk);
    if (this.chunks.length > 4) this.chunks.pop();
    return chunk;
  }

  *walls(from: number): Generator<number, void, undefined> {
    const lower = Math.max(from, this.dtstart);
    let p = this.alignedPeriod(lower);
    // first period of a run of chunks without an occurrence: rrule.js finds candidates in every
    // period of FREQ=DAILY;BYSETPOS=3 (one time a day), so its fuel never runs out, but BYSETPOS
    // keeps none of them; a whole cycle of such periods means it never will
    let emptySince: number | undefined;
    for (;;) {
      const c = this.chunkAt(p);
      if (c.walls.length > 0) emptySince = undefined;
      else emptySince ??= c.p0;
      const ws = c.walls;
      let lo = 0;
      let hi = ws.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (ws[mid]! < lower) lo = mid + 1;
        else hi = mid;
      }
      for (let i = lo; i < ws.length; i++) yield ws[i]!;
      if (c.end) return;
      if (emptySince !== undefined && c.p1 - emptySince > this.cycleSpan) return;
      p = c.p1;
    }
  }
}

interface Chunk {
  p0: number; // first (aligned) period
  p1: number; // next aligned period after the chunk
  walls: number[]; // occurrences in [p0, p1), ≥ DTSTART, ≤ UNTIL, sorted
  end: boolean; // the rule has no occurrence after this chunk
}

/** periods per memoised expansion chunk, at most */
const CHUNK = 64;
