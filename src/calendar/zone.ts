/**
 * IANA zones: validation and a fast, memoised `offsetAt(instant)`.
 *
 * Offsets come from one rules source (`ZoneRules`): by default the runtime's tz database through
 * `Intl.DateTimeFormat` (the one luxon uses, ~1 µs a call), whose release Node reports as
 * `process.versions.tz`. A process may install other rules (`useZoneRules`: an amended zone ahead of a
 * Node release, or a test's changed rules); every cache below is keyed by the rules' version, so slots
 * computed after the switch use the new rules and say so. The calendar asks for offsets many times per
 * slot, so each zone keeps a per-UTC-year table of its
 * offset changes (probed every two days, bisected to the second). The tables are deterministic
 * memoisation: the same inputs always give the same outputs, so it is safe inside Temporal
 * workflow code. Assumption (true of every tzdb zone since 1900): two offset changes are never
 * less than two days apart, so probing every two days cannot miss a change and its undo.
 */
import { IANAZone, Zone as LuxonZone } from 'luxon';
import { fail } from './errors.js';
import { clip, DAY, MINUTE, SECOND } from './floating.js';

const FIXED_OFFSET_RE = /^(?:(?:Etc\/)?(?:UTC|GMT|UT)\s*)?[+\-\u2212]\s*\d/i;
const FIXED_OFFSET_NAMES = new Set(['EST', 'MST', 'HST']);

/**
 * Validates a zone name: an IANA id such as `Europe/Riga`. `UTC` (and its IANA aliases
 * `Etc/UTC`, `GMT`, …) is accepted: it is an IANA id and the natural zone for technical jobs.
 * Fixed offsets (`+02:00`, `UTC+2`, `Etc/GMT-2`, `EST`) are rejected: they do not follow a
 * place's DST rules, which is almost always a bug in a schedule.
 */
const validZones = new Set<string>();

/** Where UTC offsets come from: a tz database release, named by its version (`2025c`). */
export interface ZoneRules {
  /** The tz database release these rules are (recorded with every slot they computed). */
  readonly version: string;
  /** The UTC offset (ms) of `zone` (a valid IANA id) at `instant` (epoch ms, whole seconds). */
  offsetAt(zone: string, instant: number): number;
}

const PARTS_RE = /(\d+)\/(\d+)\/(\d+),? (\d+):(\d+):(\d+)/;

/** The runtime's tz database, through Intl (the same data luxon reads). */
export function runtimeZoneRules(version: string): ZoneRules {
  const formats = new Map<string, Intl.DateTimeFormat>();
  const formatOf = (zone: string) => {
    let f = formats.get(zone);
    if (f === undefined) {
      f = new Intl.DateTimeFormat('en-US', {
        timeZone: zone,
        hourCycle: 'h23',
        year: 'numeric',
        month: 'numeric',
        day: 'numeric',
        hour: 'numeric',
        minute: 'numeric',
        second: 'numeric',
      });
      if (formats.size > 512) formats.clear();
      formats.set(zone, f);
    }
    return f;
  };
  return {
    version,
    offsetAt(zone, t) {
      const m = PARTS_RE.exec(formatOf(zone).format(t));
      if (!m) return Math.round(IANAZone.create(zone).offset(t) * MINUTE);
      const wall = Date.UTC(
        Number(m[3]),
        Number(m[1]) - 1,
        Number(m[2]),
        Number(m[4]) % 24,
        Number(m[5]),
        Number(m[6]),
      );
      return wall - t;
    },
  };
}

/** An amendment: from `from` (epoch ms) on, `zone` keeps the fixed offset `offsetMs` (a zone that drops DST). */
export interface ZoneAmendment {
  zone: string;
  from: number;
  offsetMs: number;
}

/**
 * `base` with some zones' rules changed from an instant on, as a tz release that follows a government's
 * decision changes them: the new rules are a new `version`.
 */
export function amendedZoneRules(base: ZoneRules, version: string, amendments: ZoneAmendment[]): ZoneRules {
  return {
    version,
    offsetAt(zone, t) {
      let offset: number | undefined;
      for (const a of amendments) if (a.zone === zone && t >= a.from) offset = a.offsetMs;
      return offset ?? base.offsetAt(zone, t);
    },
  };
}

/** The runtime's own release, as Node reports it (`process.versions.tz`); `unknown` where it says none. */
const runtimeTzVersion = (): string =>
  (globalThis as { process?: { versions?: { tz?: string } } }).process?.versions?.tz ?? 'unknown';

let rules: ZoneRules = runtimeZoneRules(runtimeTzVersion());

/** The rules every offset the calendar computes comes from. */
export const zoneRules = (): ZoneRules => rules;

/**
 * Makes `next` the rules of every calendar computed from now on in this process (a worker's slot batches, a
 * preview); returns the previous ones. Zones already compiled keep theirs: they are cached per version.
 */
export function useZoneRules(next: ZoneRules): ZoneRules {
  const previous = rules;
  rules = next;
  return previous;
}

/** Back to the runtime's tz database. */
export const useRuntimeZoneRules = (): ZoneRules => useZoneRules(runtimeZoneRules(runtimeTzVersion()));

export function checkZone(field: string, name: unknown): string {
  if (typeof name === 'string' && validZones.has(name)) return name;
  if (typeof name !== 'string' || name.trim() === '') {
    fail(field, 'a time zone (IANA id such as Europe/Riga) is required', 'TIMEZONE_REQUIRED');
  }
  if (FIXED_OFFSET_RE.test(name) || FIXED_OFFSET_NAMES.has(name.toUpperCase())) {
    fail(
      field,
      `"${clip(name)}" is a fixed UTC offset; use an IANA zone id such as Europe/Riga (or UTC)`,
      'FIXED_OFFSET_ZONE',
    );
  }
  if (!/^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(name) || !IANAZone.isValidZone(name)) {
    fail(
      field,
      `unknown time zone "${clip(name)}" (expected an IANA id such as Europe/Riga)`,
      'UNKNOWN_ZONE',
    );
  }
  if (validZones.size < 1024) validZones.add(name);
  return name;
}

interface YearTable {
  start: number; // instant of Jan 1 00:00 UTC
  end: number; // instant of next Jan 1 00:00 UTC
  offset0: number; // offset (ms) at `start`
  changes: Array<{ at: number; offset: number }>; // offset changes within [start, end), ascending
}

const STEP = 2 * DAY;

export class Zone {
  readonly name: string;
  private readonly years = new Map<number, YearTable>();
  private last: YearTable | undefined;

  constructor(
    name: string,
    /** The rules this zone's offsets come from (its tables are theirs). */
    readonly rules: ZoneRules = zoneRules(),
  ) {
    this.name = name;
  }

  /** offset in ms at an instant, straight from the rules (~1 µs) */
  private raw(instant: number): number {
    return this.rules.offsetAt(this.name, Math.floor(instant / SECOND) * SECOND);
  }

  /** first whole second in (lo, hi] whose offset differs from `offLo` (offset at lo). */
  private bisect(lo: number, hi: number, offLo: number): number {
    let a = lo;
    let b = hi;
    while (b - a > SECOND) {
      const mid = a + Math.floor((b - a) / 2 / SECOND) * SECOND;
      if (this.raw(mid) === offLo) a = mid;
      else b = mid;
    }
    return b;
  }

  /** all offset changes of a UTC year, probed every two days and bisected to the second */
  private table(year: number): YearTable {
    let t = this.years.get(year);
    if (t !== undefined) return t;
    const start = Date.UTC(year, 0, 1);
    const end = Date.UTC(year + 1, 0, 1);
    const offset0 = this.raw(start);
    const changes: YearTable['changes'] = [];
    let prevT = start;
    let prevO = offset0;
    for (let p = start + STEP; ; p += STEP) {
      const at = Math.min(p, end);
      const o = this.raw(at);
      if (o !== prevO) {
        const c = this.bisect(prevT, at, prevO);
        if (c < end) changes.push({ at: c, offset: this.raw(c) });
        prevO = o;
      }
      prevT = at;
      if (at >= end) break;
    }
    t = { start, end, offset0, changes };
    if (this.years.size > 400) this.years.clear();
    this.years.set(year, t);
    return t;
  }

  private tableAt(instant: number): YearTable {
    const l = this.last;
    if (l !== undefined && instant >= l.start && instant < l.end) return l;
    let year = 1970 + Math.floor(instant / 31_556_952_000);
    if (instant < Date.UTC(year, 0, 1)) year--;
    else if (instant >= Date.UTC(year + 1, 0, 1)) year++;
    const t = this.table(year);
    this.last = t;
    return t;
  }

  /** UTC offset in ms in effect at `instant`. */
  offsetAt(instant: number): number {
    const t = this.tableAt(instant);
    let o = t.offset0;
    for (const c of t.changes) {
      if (c.at > instant) break;
      o = c.offset;
    }
    return o;
  }

  /** the first offset change after `instant` (looks at most two years ahead) */
  changeAfter(instant: number): { at: number; before: number; after: number } | undefined {
    let t = this.tableAt(instant);
    const before = this.offsetAt(instant);
    for (let i = 0; i < 3; i++) {
      for (const c of t.changes) if (c.at > instant) return { at: c.at, before, after: c.offset };
      const next = this.table(new Date(t.end).getUTCFullYear());
      if (next.offset0 !== before) return { at: next.start, before, after: next.offset0 };
      t = next;
    }
    return undefined;
  }
}

const zones = new Map<string, Zone>();
let zonesOfRules: ZoneRules | undefined;

/** Shared, memoised zone under the rules in force (the caller validated the name with {@link checkZone}). */
export function zoneFor(name: string): Zone {
  if (zonesOfRules !== rules) {
    zones.clear();
    zonesOfRules = rules;
  }
  let z = zones.get(name);
  if (z === undefined) {
    z = new Zone(name, rules);
    if (zones.size > 512) zones.clear();
    zones.set(name, z);
  }
  return z;
}

/**
 * `zone` as a luxon zone, for the calendar arithmetic luxon does (a DEADLINE's "P1D before"): its offsets
 * come from the same rules as every other offset of the calendar.
 */
export function luxonZoneOf(zone: Zone): LuxonZone {
  return new RulesZone(zone);
}

class RulesZone extends LuxonZone {
  constructor(private readonly zone: Zone) {
    super();
  }
  override get type(): string {
    return 'scheduler-rules';
  }
  override get name(): string {
    return this.zone.name;
  }
  override get isUniversal(): boolean {
    return false;
  }
  override offsetName(): string {
    return this.zone.name;
  }
  override formatOffset(ts: number, format: 'narrow' | 'short' | 'techie'): string {
    const offset = this.offset(ts);
    const sign = offset >= 0 ? '+' : '-';
    const hh = String(Math.trunc(Math.abs(offset) / 60)).padStart(2, '0');
    const mm = String(Math.abs(offset) % 60).padStart(2, '0');
    return format === 'techie' ? `${sign}${hh}${mm}` : `${sign}${hh}:${mm}`;
  }
  override offset(ts: number): number {
    return Math.round(this.zone.offsetAt(ts) / MINUTE);
  }
  override equals(other: LuxonZone): boolean {
    return other instanceof RulesZone && other.zone === this.zone;
  }
  override get isValid(): boolean {
    return true;
  }
}
