/** Internal: the nominal occurrence streams every timing kind compiles to. */
import type { Adjustment } from './dst.js';

export interface Nominal {
  /** floating wall clock in the calendar zone: the ordering key, and what DST policy resolves */
  wall: number;
  /** set for absolute occurrences: the exact instant (no DST resolution) */
  instant?: number;
  /** with `instant`: the DST adjustment that gave it (a wall time in another zone's gap or fold) */
  adjustment?: Adjustment;
  /** the positions of the source's COUNT rules once this occurrence is consumed (counting sources) */
  pos?: SetPosition;
  /** the UNTIL (as an instant) of the rule that gave it: a resolved instant after it is no occurrence */
  until?: number;
  /**
   * Not an occurrence: one an EXRULE removed, or an EXRULE occurrence stepped over. Yielded so that
   * the engine's search fuel counts the work: an EXRULE that removes everything ends in
   * SEARCH_LIMIT, not a loop.
   */
  removed?: true;
  label?: string;
  /** moved off a closed day (business_days.roll): the note says from where and why */
  roll?: Adjustment;
}

/** A position inside a counting rule: the rule's `n`-th occurrence is at floating `wall`. */
export interface RulePosition {
  wall: number;
  n: number;
}

/** One position (or none yet) per COUNT rule of a source, in the source's order. */
export type SetPosition = ReadonlyArray<RulePosition | undefined>;

export interface NominalSource {
  /** how many COUNT rules the source has (the engine keeps their positions in the cursor) */
  readonly counting: number;
  /** resolved instants that must be dropped (timed EXDATEs, read under the DST policy) */
  readonly excludedInstants?: ReadonlySet<number>;
  /**
   * Nominal occurrences in increasing wall order, starting at the first with wall ≥ `from`
   * (-Infinity: from the very beginning). With `pos` (counting sources), the positions of the
   * COUNT rules continue from there instead of being recounted from the start.
   */
  iterate(from: number, pos?: SetPosition): Iterator<Nominal>;
}
