/**
 * An RFC 5545 recurrence set (§3.8.5; EXRULE from RFC 2445 §4.8.5.2), lazily: the union of the
 * RRULEs and RDATEs, minus the EXRULEs and the EXDATEs. Every stream is already floating wall time in
 * the calendar zone; this merges them in wall order, so the cost of a slot is one step of each
 * stream, and carries the positions of the COUNT rules so that a cursor resumes each of them.
 *
 * Exclusions that need the DST policy (timed EXDATEs: instants) are the engine's; the ones that
 * do not (EXRULE and date-only EXDATE: local times and dates) are applied here. What an EXRULE
 * removes is still yielded, marked `removed`, so the engine's search fuel counts it.
 */
import { CalendarError } from './errors.js';
import { dayNumber } from './floating.js';
import type { WallIterator } from './rrule-expand.js';
import type { Nominal, NominalSource, RulePosition, SetPosition } from './source.js';

/** One compiled RRULE or EXRULE. */
export interface SetRule {
  /** names the rule in errors: `RRULE`, `RRULE 2 of 3`, `EXRULE`…, '' for the one rule of a plain block */
  label: string;
  /** its occurrences from DTSTART on, already bounded by UNTIL */
  expander: WallIterator;
  count?: number;
  /** UNTIL as an instant (UTC, or another zone's): resolved instants after it are no occurrence */
  until?: number;
}

export interface SetParts {
  dtstart: number;
  rrules: readonly SetRule[];
  exrules: readonly SetRule[];
  /** in increasing wall order */
  rdates: readonly Nominal[];
  /** local dates (day numbers) a date-only EXDATE removes */
  exDays: ReadonlySet<number>;
  /** instants a timed EXDATE removes (under the DST policy) */
  exInstants: ReadonlySet<number>;
}

interface RuleItem {
  wall: number;
  /** 1-based position, for COUNT rules */
  n?: number;
}

/**
 * A rule's occurrences with wall ≥ `from`. A COUNT rule numbers them, counting on from `pos` (one
 * of its occurrences at or before where the caller resumes) instead of from DTSTART.
 */
function* ruleItems(
  rule: SetRule,
  dtstart: number,
  from: number,
  pos: RulePosition | undefined,
): Generator<RuleItem, void, undefined> {
  const { expander, count } = rule;
  if (count === undefined) {
    for (const w of expander.walls(from)) yield { wall: w };
    return;
  }
  if (pos !== undefined && pos.n >= 1 && pos.n <= count && pos.wall >= dtstart) {
    // count back from the known position instead of from DTSTART
    const start = Math.min(from, pos.wall);
    const it = expander.walls(start);
    const head: number[] = [];
    for (let r = it.next(); ; r = it.next()) {
      if (r.done) break;
      head.push(r.value);
      if (r.value >= pos.wall) break;
    }
    if (head[head.length - 1] !== pos.wall) {
      const which = rule.label === '' ? 'this rule' : rule.label;
      throw new CalendarError(
        'cursor',
        `the cursor does not point at an occurrence of ${which}`,
        'INVALID_CURSOR',
      );
    }
    let n = pos.n - head.length;
    for (const w of head) {
      n++;
      if (w >= from) yield { wall: w, n };
    }
    for (let r = it.next(); !r.done; r = it.next()) {
      n++;
      if (n > count) return;
      if (r.value >= from) yield { wall: r.value, n };
    }
    return;
  }
  let n = 0;
  for (const w of expander.walls(Number.NEGATIVE_INFINITY)) {
    n++;
    if (n > count) return;
    if (w >= from) yield { wall: w, n };
  }
}

/** A stream with its next item in view (the merge compares heads). */
class Peek {
  head: RuleItem | undefined;
  constructor(private readonly it: Iterator<RuleItem>) {
    this.advance();
  }
  advance(): void {
    const r = this.it.next();
    this.head = r.done ? undefined : r.value;
  }
}

/** A rule's stream in the merge; `slot` is its place among the COUNT rules (-1: no COUNT). */
interface Stream {
  rule: SetRule;
  slot: number;
  peek: Peek;
}

/** Where the merge stands in each COUNT rule: what a cursor resumes from. */
class Positions {
  readonly at: Array<RulePosition | undefined>;
  constructor(counted: number, pos: SetPosition | undefined) {
    this.at = Array.from({ length: counted }, (_, k) => pos?.[k]);
  }
  /** consumes a rule item: a COUNT rule's position moves on (never back) */
  take(s: Stream): void {
    const item = s.peek.head!;
    const p = this.at[s.slot];
    if (s.slot >= 0 && item.n !== undefined && (p === undefined || item.wall >= p.wall))
      this.at[s.slot] = { wall: item.wall, n: item.n };
    s.peek.advance();
  }
  snapshot(): SetPosition | undefined {
    return this.at.length > 0 ? [...this.at] : undefined;
  }
}

/** The earliest wall among the rules' heads and the next RDATE (Infinity: nothing left). */
function nextWall(incl: readonly Stream[], rdate: Nominal | undefined): number {
  let w = Number.POSITIVE_INFINITY;
  for (const s of incl) if (s.peek.head !== undefined && s.peek.head.wall < w) w = s.peek.head.wall;
  if (rdate !== undefined && rdate.wall < w) w = rdate.wall;
  return w;
}

/** What the RRULEs at wall `w` make of it: whether they hold it, and the latest UNTIL instant bounding it. */
interface AtWall {
  nominal: boolean;
  bounded: boolean;
  until: number;
}

function takeRules(incl: readonly Stream[], w: number, at: Positions): AtWall {
  const here: AtWall = { nominal: false, bounded: true, until: Number.NEGATIVE_INFINITY };
  for (const s of incl) {
    if (s.peek.head?.wall !== w) continue;
    here.nominal = true;
    if (s.rule.until === undefined) here.bounded = false;
    else here.until = Math.max(here.until, s.rule.until);
    at.take(s);
  }
  return here;
}

/**
 * Moves the EXRULEs up to wall `w`; returns whether one removes it. A COUNT EXRULE is counted through,
 * each occurrence stepped over yielded as removed: work the fuel counts (a SECONDLY one between two
 * yearly occurrences is millions of steps); one without COUNT jumps.
 */
function* takeExclusions(
  excl: readonly Stream[],
  w: number,
  at: Positions,
  dtstart: number,
): Generator<Nominal, boolean, undefined> {
  let removed = false;
  for (const s of excl) {
    if (s.peek.head !== undefined && s.peek.head.wall < w) {
      if (s.slot < 0) s.peek = new Peek(ruleItems(s.rule, dtstart, w, undefined));
      else {
        while (s.peek.head !== undefined && s.peek.head.wall < w) {
          const x = s.peek.head.wall;
          at.take(s);
          yield { wall: x, removed: true };
        }
      }
    }
    if (s.peek.head?.wall === w) {
      removed = true;
      at.take(s);
    }
  }
  return removed;
}

/**
 * The set's members with wall ≥ `from`, merged in wall order; `pos` resumes the COUNT rules (`counted`, in
 * the cursor's order) where a cursor left them.
 */
function* merged(
  parts: SetParts,
  counted: readonly SetRule[],
  from: number,
  pos: SetPosition | undefined,
): Generator<Nominal, void, undefined> {
  const { dtstart, rrules, exrules, rdates, exDays } = parts;
  const at = new Positions(counted.length, pos);
  const stream = (rule: SetRule): Stream => {
    const slot = counted.indexOf(rule);
    return { rule, slot, peek: new Peek(ruleItems(rule, dtstart, from, at.at[slot])) };
  };
  const incl = rrules.map(stream);
  const excl = exrules.map(stream);
  let d = 0;
  while (d < rdates.length && rdates[d]!.wall < from) d++;
  for (;;) {
    const w = nextWall(incl, rdates[d]);
    if (w === Number.POSITIVE_INFINITY) return;

    // everything at wall w is one nominal occurrence (the engine resolves it once), except RDATEs
    // given as instants, which stay themselves
    const here = takeRules(incl, w, at);
    const instants: Nominal[] = [];
    for (; d < rdates.length && rdates[d]!.wall === w; d++) {
      const r = rdates[d]!;
      if (r.instant !== undefined) instants.push(r);
      else {
        here.nominal = true;
        here.bounded = false;
      }
    }
    const removed = yield* takeExclusions(excl, w, at, dtstart);
    // date-only EXDATEs are finitely many days: skipped here; an EXRULE may remove forever, so
    // what it removes goes to the engine, whose fuel bounds the search
    if (!removed && exDays.size > 0 && exDays.has(dayNumber(w))) continue;
    const snapshot = at.snapshot();
    if (removed) {
      yield snapshot ? { wall: w, removed: true, pos: snapshot } : { wall: w, removed: true };
      continue;
    }
    if (here.nominal) {
      const item: Nominal = { wall: w };
      if (here.bounded) item.until = here.until;
      if (snapshot) item.pos = snapshot;
      yield item;
    }
    for (const r of instants) yield snapshot ? { ...r, pos: snapshot } : r;
  }
}

export function recurrenceSet(parts: SetParts): NominalSource {
  const { dtstart, rrules, exrules, rdates, exDays, exInstants } = parts;
  // the cursor keeps one position per COUNT rule: the RRULEs' first, then the EXRULEs', in block order
  const counted = [...rrules, ...exrules].filter((r) => r.count !== undefined);

  /** One RRULE and nothing to merge (a bare body, most blocks): its own stream, at no merging cost. */
  function* single(from: number, pos?: SetPosition): Generator<Nominal, void, undefined> {
    const rule = rrules[0]!;
    const until = rule.until;
    for (const x of ruleItems(rule, dtstart, from, pos?.[0])) {
      const item: Nominal = { wall: x.wall };
      if (until !== undefined) item.until = until;
      if (x.n !== undefined) item.pos = [{ wall: x.wall, n: x.n }];
      if (exDays.size === 0 || !exDays.has(dayNumber(x.wall))) yield item;
    }
  }
  const alone = rrules.length === 1 && exrules.length === 0 && rdates.length === 0;

  return {
    counting: counted.length,
    iterate: alone ? single : (from: number, pos?: SetPosition) => merged(parts, counted, from, pos),
    ...(exInstants.size > 0 ? { excludedInstants: exInstants } : {}),
  };
}
