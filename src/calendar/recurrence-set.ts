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

export function recurrenceSet(parts: SetParts): NominalSource {
  const { dtstart, rrules, exrules, rdates, exDays, exInstants } = parts;
  // the cursor keeps one position per COUNT rule: the RRULEs' first, then the EXRULEs', in block order
  const counted = [...rrules, ...exrules].filter((r) => r.count !== undefined);
  const slotOf = (r: SetRule) => counted.indexOf(r);

  function* iterate(from: number, pos?: SetPosition): Generator<Nominal, void, undefined> {
    const at: Array<RulePosition | undefined> = counted.map((_, k) => pos?.[k]);
    const stream = (r: SetRule): { rule: SetRule; slot: number; peek: Peek } => ({
      rule: r,
      slot: slotOf(r),
      peek: new Peek(ruleItems(r, dtstart, from, at[slotOf(r)])),
    });
    const incl = rrules.map(stream);
    const excl = exrules.map(stream);
    /** consumes a rule item: a COUNT rule's position moves on (never back) */
    const take = (s: ReturnType<typeof stream>) => {
      const item = s.peek.head!;
      const p = at[s.slot];
      if (s.slot >= 0 && item.n !== undefined && (p === undefined || item.wall >= p.wall))
        at[s.slot] = { wall: item.wall, n: item.n };
      s.peek.advance();
    };
    let d = 0;
    while (d < rdates.length && rdates[d]!.wall < from) d++;
    for (;;) {
      let w = Number.POSITIVE_INFINITY;
      for (const s of incl) if (s.peek.head !== undefined && s.peek.head.wall < w) w = s.peek.head.wall;
      if (d < rdates.length && rdates[d]!.wall < w) w = rdates[d]!.wall;
      if (w === Number.POSITIVE_INFINITY) return;

      // everything at wall w is one nominal occurrence (the engine resolves it once), except RDATEs
      // given as instants, which stay themselves
      let nominal = false;
      let bounded = true;
      let until = Number.NEGATIVE_INFINITY;
      for (const s of incl) {
        if (s.peek.head?.wall !== w) continue;
        nominal = true;
        if (s.rule.until === undefined) bounded = false;
        else until = Math.max(until, s.rule.until);
        take(s);
      }
      const instants: Nominal[] = [];
      for (; d < rdates.length && rdates[d]!.wall === w; d++) {
        const r = rdates[d]!;
        if (r.instant !== undefined) instants.push(r);
        else {
          nominal = true;
          bounded = false;
        }
      }
      let removed = false;
      for (const s of excl) {
        if (s.peek.head !== undefined && s.peek.head.wall < w) {
          if (s.slot < 0)
            s.peek = new Peek(ruleItems(s.rule, dtstart, w, undefined)); // no COUNT: jump
          else {
            // a COUNT EXRULE is counted through: each occurrence stepped over is work the fuel counts
            // (a SECONDLY one between two yearly occurrences is millions of steps)
            while (s.peek.head !== undefined && s.peek.head.wall < w) {
              const x = s.peek.head.wall;
              take(s);
              yield { wall: x, removed: true };
            }
          }
        }
        if (s.peek.head?.wall === w) {
          removed = true;
          take(s);
        }
      }
      // date-only EXDATEs are finitely many days: skipped here; an EXRULE may remove forever, so
      // what it removes goes to the engine, whose fuel bounds the search
      if (!removed && exDays.size > 0 && exDays.has(dayNumber(w))) continue;
      const snapshot: SetPosition | undefined = counted.length > 0 ? [...at] : undefined;
      if (removed) {
        yield snapshot ? { wall: w, removed: true, pos: snapshot } : { wall: w, removed: true };
        continue;
      }
      if (nominal) {
        const item: Nominal = { wall: w };
        if (bounded) item.until = until;
        if (snapshot) item.pos = snapshot;
        yield item;
      }
      for (const r of instants) yield snapshot ? { ...r, pos: snapshot } : r;
    }
  }

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
    iterate: alone ? single : iterate,
    ...(exInstants.size > 0 ? { excludedInstants: exInstants } : {}),
  };
}
