/**
 * IANA zones: validation and a fast, memoised `offsetAt(instant)`.
 *
 * luxon's `IANAZone#offset` goes through `Intl.DateTimeFormat` (~1 µs a call). The calendar asks
 * for offsets many times per slot, so each zone keeps a cache of verified constant-offset
 * segments (found by probing one day apart and bisecting to the second at a change). The cache is
 * deterministic memoisation: the same inputs always give the same outputs, so it is safe inside
 * Temporal workflow code. Assumption (true of every tzdb zone since 1900): two offset changes are
 * never less than one day apart.
 */
import { IANAZone } from 'luxon';
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
export function checkZone(field: string, name: unknown): string {
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
    fail(field, `unknown time zone "${clip(name)}" (expected an IANA id such as Europe/Riga)`, 'UNKNOWN_ZONE');
  }
  return name;
}

interface Segment {
  start: number; // inclusive
  end: number; // exclusive
  offset: number; // ms
  /** the instant `start` is a real offset change (not just the edge of what was probed) */
  startIsChange: boolean;
}

const PROBE_DAYS = 16;

export class Zone {
  readonly name: string;
  private readonly luxon: IANAZone;
  private segments: Segment[] = [];
  private last: Segment | undefined;

  constructor(name: string) {
    this.name = name;
    this.luxon = IANAZone.create(name);
  }

  private raw(instant: number): number {
    // luxon truncates to the second; offsets are whole minutes (or seconds, for LMT)
    return Math.round(this.luxon.offset(instant) * MINUTE);
  }

  /** UTC offset in ms in effect at `instant`. */
  offsetAt(instant: number): number {
    return this.segmentAt(instant).offset;
  }

  /** The constant-offset segment containing `instant`. */
  segmentAt(instant: number): Segment {
    const l = this.last;
    if (l !== undefined && instant >= l.start && instant < l.end) return l;
    const segs = this.segments;
    let lo = 0;
    let hi = segs.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const s = segs[mid]!;
      if (instant < s.start) hi = mid - 1;
      else if (instant >= s.end) lo = mid + 1;
      else {
        this.last = s;
        return s;
      }
    }
    const seg = this.build(instant);
    if (segs.length > 4096) this.segments = [];
    this.insert(seg);
    this.last = seg;
    return seg;
  }

  private insert(seg: Segment): void {
    const segs = this.segments;
    // keep sorted and non-overlapping: trim the new segment against neighbours
    let i = 0;
    while (i < segs.length && segs[i]!.start < seg.start) i++;
    const prev = segs[i - 1];
    if (prev !== undefined && prev.end > seg.start) seg.start = prev.end;
    const next = segs[i];
    if (next !== undefined && next.start < seg.end) seg.end = next.start;
    if (seg.end > seg.start) segs.splice(i, 0, seg);
  }

  private build(instant: number): Segment {
    const t = Math.floor(instant / SECOND) * SECOND;
    const off = this.raw(t);
    let end = t + PROBE_DAYS * DAY;
    for (let i = 1; i <= PROBE_DAYS; i++) {
      const p = t + i * DAY;
      if (this.raw(p) !== off) {
        end = this.bisect(p - DAY, p, off);
        break;
      }
    }
    let start = t - PROBE_DAYS * DAY;
    let startIsChange = false;
    for (let i = 1; i <= PROBE_DAYS; i++) {
      const p = t - i * DAY;
      if (this.raw(p) !== off) {
        start = this.bisect(p, p + DAY, this.raw(p));
        startIsChange = true;
        break;
      }
    }
    if (instant < start || instant >= end) {
      // sub-second instant exactly at a change: fall back to a one-second segment
      return { start: t, end: t + SECOND, offset: off, startIsChange: false };
    }
    return { start, end, offset: off, startIsChange };
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

  /**
   * The offset change nearest to but not after `instant`'s segment end when `instant` lies just
   * before a change: returns `{ at, before, after }` for the change at the end of the segment
   * containing `instant`, if that end is a real change.
   */
  changeAfter(instant: number): { at: number; before: number; after: number } | undefined {
    const seg = this.segmentAt(instant);
    const next = this.segmentAt(seg.end);
    if (next.offset === seg.offset) return undefined;
    return { at: seg.end, before: seg.offset, after: next.offset };
  }
}

const zones = new Map<string, Zone>();

/** Shared, memoised zone (the caller validated the name with {@link checkZone}). */
export function zoneFor(name: string): Zone {
  let z = zones.get(name);
  if (z === undefined) {
    z = new Zone(name);
    if (zones.size > 512) zones.clear();
    zones.set(name, z);
  }
  return z;
}
