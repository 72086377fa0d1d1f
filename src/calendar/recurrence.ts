/** RECURRENCE timing: RRULE body or RFC 5545 block → a nominal source in the calendar zone. */
import { DEFAULT_DST, type DstPolicy, resolveWall } from './dst.js';
import { CalendarError, fail, type ListParse } from './errors.js';
import { DAY, dayNumber, formatWall, SECOND, startOfDay } from './floating.js';
import { recurrenceSet, type SetRule } from './recurrence-set.js';
import { makeExpander, normalizeRule, staticNeverFires, type WallIterator } from './rrule-expand.js';
import { type BlockRule, type IcsBlock, isBlock, labelled, parseBlock } from './rrule-parse.js';
import { type DateValue, parseRecur, type RecurRule } from './rrule-recur.js';
import type { Nominal, NominalSource } from './source.js';
import { checkZone, type Zone, zoneFor } from './zone.js';

/**
 * Set members the compile-time probe looks at for a first occurrence (the engine's window probe
 * looks at as many): an EXRULE that removes every one of them is refused rather than searched on.
 */
const PROBE_FUEL = 20_000;

/** instant of a wall time in a zone under the default DST policy */
function instantOf(zone: Zone, wall: number): number {
  return resolveWall(zone, wall, DEFAULT_DST).resolved[0]?.instant ?? wall - zone.offsetAt(wall);
}

/** the latest wall time in `zone` that can resolve to an instant ≤ `instant`, under any DST policy */
function lastWallBy(zone: Zone, instant: number): number {
  return (
    instant + Math.max(zone.offsetAt(instant - DAY), zone.offsetAt(instant), zone.offsetAt(instant + DAY))
  );
}

/** What a block's members are compiled against: the calendar zone, DTSTART as a floating wall, the zone a TZID names. */
interface BlockContext {
  field: string;
  zone: Zone;
  dtstart: number;
  /** the zone a TZID names: the calendar's own when absent or the same */
  zoneOf(tzid: string | undefined): Zone;
  /** the block has several rules (RRULEs and EXRULEs) */
  several: boolean;
}

export function compileRecurrence(
  field: string,
  text: string,
  zone: Zone,
  defaultDtstart: number,
  dst: DstPolicy,
  lists: ListParse = {},
): NominalSource {
  const block: IcsBlock = isBlock(text)
    ? parseBlock(field, text, lists)
    : {
        rrules: [{ label: '', rule: parseRecur(field, text, lists) }],
        exrules: [],
        rdates: [],
        exdates: [],
      };
  const zoneOf = (tzid: string | undefined): Zone =>
    tzid === undefined || tzid === zone.name ? zone : zoneFor(checkZone(field, tzid));
  const dtstart = dtstartOf(field, block.dtstart, zone, defaultDtstart, zoneOf);
  const ctx: BlockContext = {
    field,
    zone,
    dtstart,
    zoneOf,
    several: block.rrules.length + block.exrules.length > 1,
  };
  const rrules = block.rrules.map((r) => compileRule(ctx, r, false));
  const exrules = block.exrules.map((r) => compileRule(ctx, r, true));
  const rdates = rdatesOf(ctx, block.rdates, dst);
  const { exDays, exInstants } = exdatesOf(ctx, block.exdates, dst);
  const src = recurrenceSet({ dtstart, rrules, exrules, rdates, exDays, exInstants });
  probeFirst(field, src, zone, dst, block, dtstart);
  return src;
}

/** DTSTART as a floating wall in the calendar zone; a TZID must name that zone. */
function dtstartOf(
  field: string,
  d: DateValue | undefined,
  zone: Zone,
  defaultDtstart: number,
  zoneOf: BlockContext['zoneOf'],
): number {
  if (d === undefined) {
    const t = Math.floor(defaultDtstart / SECOND) * SECOND;
    return t + zone.offsetAt(t);
  }
  if (d.kind === 'instant') return d.instant + zone.offsetAt(d.instant);
  if (zoneOf(d.tzid) !== zone) {
    fail(
      field,
      `DTSTART TZID=${d.tzid} differs from timing.timezone ${zone.name}; make them the same zone`,
      'INVALID_RRULE',
    );
  }
  return d.wall;
}

/** UNTIL as the last wall the expander yields and, when it names an instant, that instant. */
function untilOf(
  ctx: BlockContext,
  label: string,
  u: DateValue,
): { untilWall: number; untilInstant?: number } {
  const { zone, dtstart, zoneOf } = ctx;
  let untilWall: number;
  let untilInstant: number | undefined;
  let before: boolean;
  let shown: string;
  if (u.kind === 'instant' || zoneOf(u.tzid) !== zone) {
    // an instant: occurrences are compared with it once resolved
    untilInstant = u.kind === 'instant' ? u.instant : instantOf(zoneOf(u.tzid), u.wall);
    untilWall = lastWallBy(zone, untilInstant);
    before = untilInstant < instantOf(zone, dtstart);
    shown = u.kind === 'instant' ? `${formatWall(u.instant)}Z` : formatWall(u.wall);
  } else {
    untilWall = u.dateOnly ? u.wall + DAY - 1 : u.wall;
    before = untilWall < dtstart;
    shown = formatWall(u.wall);
  }
  if (before) {
    fail(
      ctx.field,
      labelled(label, `UNTIL ${shown} is before DTSTART ${formatWall(dtstart)}`),
      'UNTIL_BEFORE_DTSTART',
    );
  }
  return untilInstant === undefined ? { untilWall } : { untilWall, untilInstant };
}

/** The rule's expander; its refusals name the line, and an EXRULE that never fires is refused as one. */
function expanderOf(
  ctx: BlockContext,
  label: string,
  rule: RecurRule,
  untilWall: number | undefined,
  exclusion: boolean,
): WallIterator {
  const { field, dtstart } = ctx;
  try {
    const why = staticNeverFires(rule, dtstart);
    if (why) fail(field, `the rule can never fire: ${why}`, 'NEVER_FIRES');
    return makeExpander(field, rule, dtstart, untilWall);
  } catch (e) {
    if (!(e instanceof CalendarError)) throw e;
    // an EXRULE that can never fire removes nothing: surely not what was meant, but not a
    // schedule that never fires either
    if (exclusion && e.code === 'NEVER_FIRES') {
      fail(
        field,
        labelled(label, `never matches: ${e.reason.replace(/^the rule can never fire: /, '')}`),
        'INVALID_RRULE',
      );
    }
    throw new CalendarError(e.field, labelled(label, e.reason), e.code);
  }
}

/** An RRULE or EXRULE, checked and expanded as a lone RRULE is; errors name the line. */
function compileRule(ctx: BlockContext, { label, rule: raw }: BlockRule, exclusion: boolean): SetRule {
  const { field, zone, dtstart } = ctx;
  const rule = normalizeRule(raw, dtstart);
  const { untilWall, untilInstant } = raw.until === undefined ? {} : untilOf(ctx, label, raw.until);
  let expander = expanderOf(ctx, label, rule, untilWall, exclusion);
  if (exclusion && untilInstant !== undefined) {
    // an EXRULE names local times: one past its UNTIL (read per RFC 5545 §3.3.5) removes nothing
    const inner = expander;
    const last = untilInstant;
    expander = {
      *walls(from: number) {
        for (const w of inner.walls(from)) if (instantOf(zone, w) <= last) yield w;
      },
    };
  }
  // A rule of several (RRULEs, EXRULEs) that can never fire (or match) is a mistake the set would
  // hide, and one the expander would search a whole calendar cycle for on every call: refuse it as
  // a lone rule is. Not in a block of one RRULE: those were accepted before sets were, and running
  // schedules recompute theirs. One whose UNTIL comes before its first occurrence costs nothing.
  if (ctx.several && raw.until === undefined && expander.walls(Number.NEGATIVE_INFINITY).next().done) {
    const why = notFound([raw], dtstart);
    if (exclusion) fail(field, labelled(label, `never matches (${why})`), 'INVALID_RRULE');
    fail(field, labelled(label, `the rule can never fire (${why})`), 'NEVER_FIRES');
  }
  const out: SetRule = { label, expander };
  if (rule.count !== undefined) out.count = rule.count;
  if (!exclusion && untilInstant !== undefined) out.until = untilInstant;
  return out;
}

/**
 * RDATE: a date takes DTSTART's time of day; a wall time in the calendar zone stays nominal (the
 * engine applies the DST policy); one in another zone denotes that zone's instant(s) under the
 * same policy, as does a UTC one. In increasing wall order.
 */
function rdatesOf({ zone, dtstart, zoneOf }: BlockContext, values: DateValue[], dst: DstPolicy): Nominal[] {
  const timeOfDay = dtstart - startOfDay(dtstart);
  const rdates: Nominal[] = [];
  const absolute = (instant: number): Nominal => ({ wall: instant + zone.offsetAt(instant), instant });
  for (const r of values) {
    if (r.kind === 'instant') rdates.push(absolute(r.instant));
    else if (r.dateOnly) rdates.push({ wall: r.wall + timeOfDay });
    else if (zoneOf(r.tzid) === zone) rdates.push({ wall: r.wall });
    else {
      for (const x of resolveWall(zoneOf(r.tzid), r.wall, dst).resolved) {
        const item = absolute(x.instant);
        if (x.adjustment) item.adjustment = x.adjustment;
        rdates.push(item);
      }
    }
  }
  return rdates.sort((a, b) => a.wall - b.wall);
}

/**
 * EXDATE: a date removes that local date; a time removes the instant(s) it denotes in its zone under
 * the DST policy: exactly the slot that fires then, whichever zone it is written in.
 */
function exdatesOf(
  { zoneOf }: BlockContext,
  values: DateValue[],
  dst: DstPolicy,
): { exDays: Set<number>; exInstants: Set<number> } {
  const exDays = new Set<number>();
  const exInstants = new Set<number>();
  for (const v of values) {
    if (v.kind === 'instant') exInstants.add(v.instant);
    else if (v.dateOnly) exDays.add(dayNumber(v.wall));
    else for (const x of resolveWall(zoneOf(v.tzid), v.wall, dst).resolved) exInstants.add(x.instant);
  }
  return { exDays, exInstants };
}

/** Why rules found no occurrence: they end first (UNTIL/COUNT, `exclusions`), or the search found none. */
function neverFiresReason(rules: RecurRule[], dtstart: number, exclusions: string): string {
  if (rules.length === 0 || rules.some((x) => x.until !== undefined || x.count !== undefined))
    return `the rule has no occurrence between DTSTART and its end (UNTIL/COUNT${exclusions})`;
  return `the rule can never fire (${notFound(rules, dtstart)})`;
}

/** What the bounded search for a first occurrence found: nothing, within which bound. */
function notFound(rules: RecurRule[], dtstart: number): string {
  const from = `no occurrence found from DTSTART ${formatWall(dtstart)}`;
  return rules.some((x) => ['HOURLY', 'MINUTELY', 'SECONDLY'].includes(x.freq))
    ? `${from} within the search bound`
    : `${from} in a full 400-year calendar cycle`;
}

/** The set must fire at least once: a bounded search for a member that survives every exclusion. */
function probeFirst(
  field: string,
  src: NominalSource,
  zone: Zone,
  dst: DstPolicy,
  block: IcsBlock,
  dtstart: number,
): void {
  const fires = (item: Nominal) => {
    if (item.removed) return false;
    const instants =
      item.instant !== undefined
        ? [item.instant]
        : resolveWall(zone, item.wall, dst).resolved.map((x) => x.instant);
    return instants.some(
      (t) => !src.excludedInstants?.has(t) && !(item.until !== undefined && t > item.until),
    );
  };
  const it = src.iterate(Number.NEGATIVE_INFINITY);
  let seen = false;
  for (let fuel = PROBE_FUEL; fuel > 0; fuel--) {
    const r = it.next();
    if (r.done) {
      const rules = block.rrules.map((b) => b.rule);
      const ends = rules.length === 0 || rules.some((x) => x.until !== undefined || x.count !== undefined);
      // rules that run to the year 9999, every occurrence of them removed
      if (seen && !ends) fail(field, 'EXRULE/EXDATE remove every occurrence', 'NEVER_FIRES');
      const ex = block.exrules.length > 0 ? '/EXDATE/EXRULE' : '/EXDATE';
      fail(field, neverFiresReason(rules, dtstart, ex), 'NEVER_FIRES');
    }
    if (fires(r.value)) return;
    seen = true;
  }
  fail(
    field,
    `EXRULE/EXDATE remove every occurrence: none is left among the first ${PROBE_FUEL} the set examined`,
    'NEVER_FIRES',
  );
}
