/** Internal: the nominal occurrence streams every timing kind compiles to. */

export interface Nominal {
  /** floating wall clock in the calendar zone: the ordering key, and what DST policy resolves */
  wall: number;
  /** set for absolute occurrences: the exact instant (no DST resolution) */
  instant?: number;
  /** 1-based position within a COUNT-limited rule, when the source counts */
  n?: number;
  label?: string;
}

/** A position inside a counting rule: the rule's `n`-th occurrence is at floating `wall`. */
export interface RulePosition {
  wall: number;
  n: number;
}

export interface NominalSource {
  /** true when the source has its own COUNT (the engine then keeps positions in the cursor) */
  readonly counting: boolean;
  /** resolved instants that must be dropped (EXDATE given in UTC or in another zone) */
  readonly excludedInstants?: ReadonlySet<number>;
  /** upper bound on instants (UTC UNTIL); instants after it are dropped and end the stream */
  readonly untilInstant?: number;
  /**
   * Nominal occurrences in increasing wall order, starting at the first with wall ≥ `from`
   * (-Infinity: from the very beginning). With `pos` (counting sources), the `n` of the
   * occurrences continue from that position instead of being recounted from the start.
   */
  iterate(from: number, pos?: RulePosition): Iterator<Nominal>;
}
