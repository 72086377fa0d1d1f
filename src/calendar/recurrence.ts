/** RECURRENCE timing: RRULE body or RFC 5545 block → a nominal source in the calendar zone. */
import { DEFAULT_DST, resolveWall } from './dst.js';
import { CalendarError, fail } from './errors.js';
import { DAY, dayNumber, formatWall, HOUR, SECOND, startOfDay } from './floating.js';
import { makeExpander, normalizeRule, staticNeverFires, type WallIterator } from './rrule-expand.js';
import { type DateValue, isBlock, parseBlock, parseRecur, type RecurRule } from './rrule-parse.js';
import type { Nominal, NominalSource, RulePosition } from './source.js';
import { checkZone, type Zone, zoneFor } from './zone.js';

export interface CompiledRecurrence extends NominalSource {
  readonly dtstart: number; // floating wall
  readonly rule: RecurRule | undefined; // normalised
}

/** instant of a wall time in a zone under the default DST policy */
function instantOf(zone: Zone, wall: number): number {
  return resolveWall(zone, wall, DEFAULT_DST).resolved[0]?.instant ?? wall - zone.offsetAt(wall);
}

export function compileRecurrence(
  field: string,
  text: string,
  zone: Zone,
  defaultDtstart: number,
): CompiledRecurrence {
  const block = isBlock(text)
    ? parseBlock(field, text)
    : { rrule: parseRecur(field, text), rdates: [], exdates: [] };
  const toWall = (v: DateValue, what: string): { wall: number; instant?: number; dateOnly: boolean } => {
    if (v.kind === 'instant')
      return { wall: v.instant + zone.offsetAt(v.instant), instant: v.instant, dateOnly: false };
    if (v.tzid !== undefined && v.tzid !== zone.name) {
      checkZone(field, v.tzid);
      const instant = instantOf(zoneFor(v.tzid), v.wall);
      if (what === 'DTSTART') {
        fail(
          field,
          `DTSTART TZID=${v.tzid} differs from timing.timezone ${zone.name}; make them the same zone`,
          'INVALID_RRULE',
        );
      }
      return { wall: instant + zone.offsetAt(instant), instant, dateOnly: v.dateOnly };
    }
    return { wall: v.wall, dateOnly: v.dateOnly };
  };

  let dtstart: number;
  if (block.dtstart) {
    dtstart = toWall(block.dtstart, 'DTSTART').wall;
  } else {
    const t = Math.floor(defaultDtstart / SECOND) * SECOND;
    dtstart = t + zone.offsetAt(t);
  }

  let rule: RecurRule | undefined;
  let expander: WallIterator | undefined;
  let untilInstant: number | undefined;
  if (block.rrule) {
    rule = normalizeRule(block.rrule, dtstart);
    let untilWall: number | undefined;
    const u = block.rrule.until;
    if (u) {
      if (u.kind === 'instant') {
        untilInstant = u.instant;
        untilWall = u.instant + 15 * HOUR; // generous: exact check on the resolved instant
        if (u.instant < instantOf(zone, dtstart)) {
          fail(
            field,
            `UNTIL ${formatWall(u.instant)}Z is before DTSTART ${formatWall(dtstart)}`,
            'UNTIL_BEFORE_DTSTART',
          );
        }
      } else {
        const w = toWall(u, 'UNTIL');
        if (w.instant !== undefined) {
          untilInstant = w.instant;
          untilWall = w.wall + 15 * HOUR;
        } else {
          untilWall = w.dateOnly ? w.wall + DAY - 1 : w.wall;
        }
        if ((w.instant ?? untilWall) < (w.instant !== undefined ? instantOf(zone, dtstart) : dtstart)) {
          fail(
            field,
            `UNTIL ${formatWall(w.wall)} is before DTSTART ${formatWall(dtstart)}`,
            'UNTIL_BEFORE_DTSTART',
          );
        }
      }
    }
    const why = staticNeverFires(rule, dtstart);
    if (why) fail(field, `the rule can never fire: ${why}`, 'NEVER_FIRES');
    expander = makeExpander(field, rule, dtstart, untilWall);
  }

  const exWalls = new Set<number>();
  const exDays = new Set<number>();
  const exInstants = new Set<number>();
  for (const ex of block.exdates) {
    const w = toWall(ex, 'EXDATE');
    if (w.instant !== undefined) exInstants.add(w.instant);
    else if (w.dateOnly) exDays.add(dayNumber(w.wall));
    else exWalls.add(w.wall);
  }
  const timeOfDay = dtstart - startOfDay(dtstart);
  const rdates: Nominal[] = block.rdates
    .map((r) => {
      const w = toWall(r, 'RDATE');
      const item: Nominal = { wall: w.dateOnly ? w.wall + timeOfDay : w.wall };
      if (w.instant !== undefined) item.instant = w.instant;
      return item;
    })
    .sort((a, b) => a.wall - b.wall);

  const count = rule?.count;
  const excludedWall = (w: number) => exWalls.has(w) || (exDays.size > 0 && exDays.has(dayNumber(w)));

  function* ruleItems(from: number, pos?: RulePosition): Generator<Nominal, void, undefined> {
    if (!expander) return;
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
        throw new CalendarError(
          'cursor',
          'the cursor does not point at an occurrence of this rule',
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

  function* iterate(from: number, pos?: RulePosition): Generator<Nominal, void, undefined> {
    const rules = ruleItems(from, pos);
    let i = 0;
    while (i < rdates.length && rdates[i]!.wall < from) i++;
    let next = rules.next();
    for (;;) {
      const rd = rdates[i];
      let item: Nominal;
      if (!next.done && (rd === undefined || next.value.wall <= rd.wall)) {
        item = next.value;
        next = rules.next();
      } else if (rd !== undefined) {
        item = rd;
        i++;
      } else return;
      if (item.instant === undefined && excludedWall(item.wall)) continue;
      yield item;
    }
  }

  const src: CompiledRecurrence = {
    counting: count !== undefined,
    dtstart,
    rule,
    iterate,
    ...(exInstants.size > 0 ? { excludedInstants: exInstants } : {}),
    ...(untilInstant !== undefined ? { untilInstant } : {}),
  };
  // bounded search: the rule must be able to fire at least once
  const first = iterate(Number.NEGATIVE_INFINITY).next();
  if (first.done) {
    const reason =
      block.rrule?.until || count
        ? 'the rule has no occurrence between DTSTART and its end (UNTIL/COUNT/EXDATE)'
        : rule && ['HOURLY', 'MINUTELY', 'SECONDLY'].includes(rule.freq)
          ? `the rule can never fire (no occurrence found from DTSTART ${formatWall(dtstart)} within the search bound)`
          : `the rule can never fire (no occurrence found from DTSTART ${formatWall(dtstart)} in a full 400-year calendar cycle)`;
    fail(field, reason, 'NEVER_FIRES');
  }
  return src;
}
