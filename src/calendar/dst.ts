/**
 * Wall-clock → instant in an IANA zone, with an explicit DST policy (SPEC "DST policy").
 *
 * - gap (a local time that does not exist, spring forward):
 *   SHIFT_FORWARD (default, RFC 5545 §3.3.5): read with the offset before the gap, 02:30 → 03:30;
 *   NEXT_VALID: the first valid instant after the gap (03:00, ICU's WALLTIME_NEXT_VALID);
 *   SKIP: no slot that day.
 * - fold (a local time that occurs twice, fall back):
 *   FIRST (default): once, at the earlier instant; LAST: the later instant; BOTH: both instants.
 */
import { formatDate, formatInstantAt, formatWall } from './floating.js';
import type { Zone } from './zone.js';

const DAY_MS = 86_400_000;

export type GapPolicy = 'SHIFT_FORWARD' | 'NEXT_VALID' | 'SKIP';
export type FoldPolicy = 'FIRST' | 'LAST' | 'BOTH';
export interface DstPolicy {
  gap: GapPolicy;
  fold: FoldPolicy;
}
export const DEFAULT_DST: DstPolicy = { gap: 'SHIFT_FORWARD', fold: 'FIRST' };

export type AdjustmentKind = 'DST_GAP' | 'DST_FOLD' | 'WINDOW_DEFER' | 'JITTER' | 'BUSINESS_DAY_ROLL';
export interface Adjustment {
  kind: AdjustmentKind;
  note: string;
}

export interface Resolved {
  instant: number;
  offset: number; // ms, the zone's offset at `instant`
  adjustment?: Adjustment;
}

export interface Resolution {
  resolved: Resolved[];
  /** no instant resolved from this wall time or any later one is earlier than this */
  lowerBound: number;
  /** no instant resolved from this wall time is later than this */
  upperBound: number;
}

/** `HH:mm` or `HH:mm:ss` of a floating value */
function hm(wall: number): string {
  const s = formatWall(wall).slice(11);
  return s.endsWith(':00') && s.length === 8 ? s.slice(0, 5) : s;
}

export function resolveWall(zone: Zone, wall: number, policy: DstPolicy): Resolution {
  const o0 = zone.offsetAt(wall);
  const o1 = zone.offsetAt(wall - DAY_MS);
  const o2 = zone.offsetAt(wall + DAY_MS);
  const maxO = Math.max(o0, o1, o2);
  const minO = Math.min(o0, o1, o2);
  const lowerBound = wall - maxO;
  const upperBound = wall - minO;
  if (o0 === o1 && o0 === o2) {
    // the common case: no offset change within a day either side
    return { resolved: [{ instant: wall - o0, offset: o0 }], lowerBound, upperBound };
  }
  const valid: number[] = [];
  for (const o of o0 === o1 ? (o0 === o2 ? [o0] : [o0, o2]) : o1 === o2 ? [o0, o1] : [o0, o1, o2]) {
    const t = wall - o;
    if (zone.offsetAt(t) === o && !valid.includes(t)) valid.push(t);
  }
  valid.sort((a, b) => a - b);
  const where = `on ${formatDate(wall)} in ${zone.name}`;
  if (valid.length === 1) {
    const t = valid[0]!;
    return { resolved: [{ instant: t, offset: zone.offsetAt(t) }], lowerBound, upperBound };
  }
  if (valid.length >= 2) {
    const first = valid[0]!;
    const second = valid[valid.length - 1]!;
    const fo = zone.offsetAt(first);
    const so = zone.offsetAt(second);
    const both = `${formatInstantAt(first, fo)} and ${formatInstantAt(second, so)}`;
    const base = `${hm(wall)} occurs twice ${where} (${both})`;
    const at = (instant: number, offset: number, note: string): Resolved => ({
      instant,
      offset,
      adjustment: { kind: 'DST_FOLD', note: `${base}; ${note}` },
    });
    const resolved =
      policy.fold === 'FIRST'
        ? [at(first, fo, 'fired once, at the first')]
        : policy.fold === 'LAST'
          ? [at(second, so, 'fired once, at the second')]
          : [
              at(first, fo, 'fired at both, this is the first'),
              at(second, so, 'fired at both, this is the second'),
            ];
    return { resolved, lowerBound, upperBound };
  }
  // gap: the wall time lies in [change + before, change + after)
  const change = zone.changeAfter(wall - maxO);
  const before = change?.before ?? minO;
  const at = change?.at ?? wall - minO;
  const missing = `${hm(wall)} does not exist ${where}`;
  if (policy.gap === 'SKIP') {
    return { resolved: [], lowerBound, upperBound };
  }
  const instant = policy.gap === 'SHIFT_FORWARD' ? wall - before : at;
  const offset = zone.offsetAt(instant);
  const rule =
    policy.gap === 'SHIFT_FORWARD' ? 'read with the offset before the gap' : 'first valid time after the gap';
  return {
    resolved: [
      {
        instant,
        offset,
        adjustment: { kind: 'DST_GAP', note: `${missing}; fired at ${hm(instant + offset)} (${rule})` },
      },
    ],
    lowerBound,
    upperBound,
  };
}

/** A human note for a slot skipped by the gap policy (used by previews). */
export function gapSkipNote(zone: Zone, wall: number): string {
  return `${hm(wall)} does not exist on ${formatDate(wall)} in ${zone.name}; skipped (dst.gap = SKIP)`;
}
