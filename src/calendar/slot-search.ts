/**
 * The search for a compiled definition's next slots: nominal occurrences resolved in the zone under the DST
 * policy, ordered by instant, filtered by the options (starts/ends, exclusions, closed days, the window,
 * max_count), and turned into slots with their adjustments. A search spends fuel (candidates examined) and,
 * when the caller bounds it, a SearchBudget; a COUNT rule or max_count resumes from the cursor.
 */
import type { CompiledDefinition } from './definition.js';
import { type Adjustment, resolveWall } from './dst.js';
import type {
  CalendarCursor,
  CursorRule,
  NextSlotsContext,
  NextSlotsResult,
  Slot,
  SlotAdjustment,
} from './engine.js';
import { CalendarError, fail } from './errors.js';
import {
  dayNumber,
  formatInstantAt,
  formatUtc,
  formatWall,
  LAST_INSTANT,
  parseDateTime,
  parseInstant,
} from './floating.js';
import { jitterMs } from './jitter.js';
import { absolute, listSource } from './simple-sources.js';
import type { Nominal, NominalSource, RulePosition, SetPosition } from './source.js';

/** candidates examined per call before giving up (window SKIP / exclusions removing everything) */
export const SEARCH_FUEL = 200_000;
/** candidates between two questions to a caller's SearchBudget */
export const SEARCH_BUDGET_STRIDE = 1024;
const DAY_MS = 86_400_000;

interface Candidate {
  instant: number;
  offset: number;
  wall: number;
  pos?: SetPosition;
  until?: number;
  label?: string;
  adjustments: Adjustment[];
}

/** Where a search starts: the source to read, from which wall, and what the cursor says was counted. */
interface Start {
  src: NominalSource;
  from: number;
  pos: SetPosition | undefined;
  emitted: number;
  countedUpTo: number;
}

/** What one search has gathered, and whether it ended. */
interface Progress {
  slots: Slot[];
  cursor: CalendarCursor;
  lastPos: SetPosition | undefined;
  emitted: number;
  lastInstant: number;
  exhausted: boolean;
  done: boolean;
}

export class SlotSearch {
  /** the last error a caller's budget ended a search with (the probe tells it from running out of fuel) */
  budgetStop: CalendarError | undefined;

  constructor(private readonly def: CompiledDefinition) {}

  /** The options a search has to spend fuel on: they name the field when it runs out. */
  private get filtersRemove(): boolean {
    const d = this.def;
    return d.window?.outside === 'SKIP' || d.exclusions.size > 0 || d.skipClosed;
  }

  nextSlots(
    afterText: string,
    count: number,
    cursorIn?: CalendarCursor,
    ctx?: NextSlotsContext,
    searchFuel = SEARCH_FUEL,
  ): NextSlotsResult {
    const after = parseInstant('after', afterText);
    const until = ctx?.until !== undefined ? parseInstant('ctx.until', ctx.until) : Number.POSITIVE_INFINITY;
    if (!Number.isInteger(count) || count < 0 || count > 100_000) {
      fail('count', 'must be an integer between 0 and 100000', 'INVALID_FIELD');
    }
    const known = this.readCursor(cursorIn);
    const start = this.startOf(after, known, ctx);
    const progress: Progress = {
      slots: [],
      cursor: cursorIn && typeof cursorIn === 'object' ? { ...cursorIn, v: 1 } : { v: 1 },
      lastPos: start.pos,
      emitted: start.emitted,
      lastInstant: Number.NaN,
      exhausted: false,
      done: false,
    };
    if (count === 0) return { slots: progress.slots, cursor: progress.cursor, exhausted: false };

    const it = start.src.iterate(start.from, start.pos);
    const buffer: Candidate[] = [];
    let removed = 0;
    let fuel = searchFuel;
    let stride = SEARCH_BUDGET_STRIDE;
    while (!progress.done) {
      const r = it.next();
      let lb = Number.POSITIVE_INFINITY;
      let cands: Candidate[] = [];
      if (!r.done) ({ cands, lb } = this.candidatesOf(r.value));
      while (buffer.length > 0 && buffer[0]!.instant < lb && !progress.done)
        this.consider(buffer.shift()!, progress, { after, until, count, countedUpTo: start.countedUpTo });
      if (progress.done) break;
      if (r.done) {
        progress.exhausted = this.def.fixedDelay === undefined;
        break;
      }
      if (r.value.removed) removed++;
      if (--fuel < 0) {
        if (progress.slots.length > 0) break;
        this.outOfFuel(searchFuel, removed);
      }
      if (ctx?.budget !== undefined && --stride <= 0) {
        stride = SEARCH_BUDGET_STRIDE;
        if (ctx.budget.exceeded()) {
          if (ctx.budget.partial && progress.slots.length > 0) break;
          // The definition itself is what costs: its window/exclusions when it has them, else its timing.
          this.budgetStop = new CalendarError(
            this.filtersRemove ? 'options' : 'timing',
            ctx.budget.reason,
            'SEARCH_LIMIT',
          );
          throw this.budgetStop;
        }
      }
      for (const c of cands) {
        let i = buffer.length;
        while (i > 0 && buffer[i - 1]!.instant > c.instant) i--;
        buffer.splice(i, 0, c);
      }
    }
    const { slots, cursor, exhausted } = progress;
    if (this.def.needCount && cursor.emitted === undefined && slots.length === 0 && known !== undefined)
      cursor.emitted = known.emitted;
    return { slots, cursor, exhausted };
  }

  /** Where to start reading: from the cursor when it counts, from the very beginning when it must, else near `after`. */
  private startOf(
    after: number,
    known: { last: number; emitted: number; pos?: SetPosition } | undefined,
    ctx: NextSlotsContext | undefined,
  ): Start {
    const d = this.def;
    let src = d.source;
    if (d.fixedDelay !== undefined) {
      // one slot: the previous completion + every (or the first grid point), strictly after `after`
      const basis =
        ctx?.lastCompletedAt !== undefined
          ? parseInstant('ctx.lastCompletedAt', ctx.lastCompletedAt)
          : d.fixedDelay.anchor - d.fixedDelay.everyMs;
      const k = Math.max(1, Math.floor((after - basis) / d.fixedDelay.everyMs) + 1);
      src = listSource([absolute(d.zone, basis + k * d.fixedDelay.everyMs)]);
    }
    let start: Start;
    if (d.needCount && known !== undefined && known.last <= after) {
      start = {
        src,
        from: this.wallLow(known.last),
        pos: known.pos,
        emitted: known.emitted,
        countedUpTo: known.last,
      };
    } else if (d.needCount && d.fixedDelay === undefined) {
      start = { src, from: Number.NEGATIVE_INFINITY, pos: undefined, emitted: 0, countedUpTo: -Infinity };
    } else {
      const emitted = d.fixedDelay !== undefined && known !== undefined ? known.emitted : 0;
      start = { src, from: this.wallLow(after), pos: undefined, emitted, countedUpTo: -Infinity };
    }
    if (d.startsAt !== undefined) start.from = Math.max(start.from, this.wallLow(d.startsAt) - DAY_MS);
    return start;
  }

  /** One candidate, in instant order: filtered by the options, counted, and emitted as a slot when it is one. */
  private consider(
    c: Candidate,
    p: Progress,
    bounds: { after: number; until: number; count: number; countedUpTo: number },
  ): void {
    const d = this.def;
    // past its rule's UNTIL: not an occurrence (another rule or an RDATE may still have that instant)
    if (c.until !== undefined && c.instant > c.until) return;
    if (c.instant === p.lastInstant) return; // the same instant twice (DST shift, RDATE = rule)
    p.lastInstant = c.instant;
    if (d.startsAt !== undefined && c.instant < d.startsAt) return;
    if (d.endsAt !== undefined && c.instant > d.endsAt) {
      p.exhausted = p.done = true;
      return;
    }
    if (d.source.excludedInstants?.has(c.instant)) return;
    const localDay = dayNumber(c.instant + c.offset);
    if (d.exclusions.size > 0 && d.exclusions.has(localDay)) return;
    if (d.skipClosed && d.business!.calendar.closedOnDay(localDay)) return;
    let deferTo: number | undefined;
    if (d.window !== undefined && !d.window.contains(c.instant)) {
      if (d.window.outside === 'SKIP') return;
      deferTo = d.window.nextOpening(c.instant);
    }
    if (c.instant <= bounds.countedUpTo) return;
    p.emitted++;
    if (d.maxCount !== undefined && p.emitted > d.maxCount) {
      p.exhausted = p.done = true;
      return;
    }
    if (c.pos !== undefined) p.lastPos = c.pos;
    if (c.instant <= bounds.after) return;
    if (c.instant > bounds.until) {
      p.done = true;
      return;
    }
    // The calendar ends with the year 9999 (ISO 8601's four-digit years): a slot past it, or deferred or
    // jittered past it, is no slot, and the calendar is exhausted.
    const slot = this.toSlot(c, deferTo);
    if (!(Date.parse(slot.fireAt) <= LAST_INSTANT) || !(Date.parse(slot.scheduledFor) <= LAST_INSTANT)) {
      p.exhausted = p.done = true;
      return;
    }
    p.slots.push(slot);
    p.cursor.last = slot.scheduledFor;
    if (d.needCount) p.cursor.emitted = p.emitted;
    if (p.lastPos !== undefined) this.writePositions(p.cursor, p.lastPos);
    if (p.slots.length >= bounds.count) {
      p.done = true;
      if (d.maxCount !== undefined && p.emitted >= d.maxCount) p.exhausted = true;
    }
  }

  /** The search found nothing within its fuel: the error names what removes the occurrences. */
  private outOfFuel(searchFuel: number, removed: number): never {
    // most of what was searched was removed by the timing's own EXRULEs: they are what removes it all
    if (removed > searchFuel / 2) {
      throw new CalendarError(
        'timing.rule',
        `no slot found within ${searchFuel} candidate occurrences: the EXRULEs remove every occurrence`,
        'SEARCH_LIMIT',
      );
    }
    // As with the budget: the window/exclusions when the definition has them, else its timing.
    if (this.filtersRemove)
      throw new CalendarError(
        'options',
        `no slot found within ${searchFuel} candidate occurrences: the window/exclusions remove every occurrence`,
        'SEARCH_LIMIT',
      );
    throw new CalendarError(
      'timing',
      `no slot found within ${searchFuel} candidate occurrences: a rule that matches rarely, or a COUNT counted from a start far in the past`,
      'SEARCH_LIMIT',
    );
  }

  /** floating wall below which no nominal occurrence can resolve to an instant > t */
  private wallLow(t: number): number {
    const { zone } = this.def;
    return t + Math.min(zone.offsetAt(t - DAY_MS), zone.offsetAt(t), zone.offsetAt(t + DAY_MS));
  }

  private candidatesOf(item: Nominal): { cands: Candidate[]; lb: number } {
    const { zone, dst } = this.def;
    const w = item.wall;
    if (item.instant !== undefined) {
      const lb = Math.min(item.instant, w - Math.max(zone.offsetAt(w - DAY_MS), zone.offsetAt(w + DAY_MS)));
      return { cands: [candidate(item, item.instant, zone.offsetAt(item.instant), item.adjustment)], lb };
    }
    if (item.removed) {
      // nothing to fire; its wall still bounds what can follow
      const maxOffset = Math.max(zone.offsetAt(w - DAY_MS), zone.offsetAt(w), zone.offsetAt(w + DAY_MS));
      return { cands: [], lb: w - maxOffset };
    }
    const r = resolveWall(zone, w, dst);
    return {
      cands: r.resolved.map((x) => candidate(item, x.instant, x.offset, x.adjustment)),
      lb: r.lowerBound,
    };
  }

  private toSlot(c: Candidate, deferTo: number | undefined): Slot {
    const d = this.def;
    const scheduledFor = formatInstantAt(c.instant, c.offset);
    const adjustments: SlotAdjustment[] = c.adjustments.map((a) => ({ kind: a.kind, note: a.note }));
    let fire = c.instant;
    if (deferTo !== undefined) {
      fire = deferTo;
      adjustments.push({
        kind: 'WINDOW_DEFER',
        note: `${scheduledFor} is outside the allowed window; deferred to its opening at ${formatInstantAt(deferTo, d.window!.zone.offsetAt(deferTo))}`,
      });
    }
    if (d.jitterMax > 0) {
      const j = jitterMs(d.scheduleId, scheduledFor, d.jitterMax);
      fire += j;
      adjustments.push({
        kind: 'JITTER',
        note: `+${j / 1000}s deterministic jitter (max ${d.jitter})`,
      });
    }
    const slot: Slot = {
      scheduledFor,
      fireAt: formatUtc(fire),
      local: formatInstantAt(fire, d.zone.offsetAt(fire)),
      adjustments,
      tz: d.zone.rules.version,
    };
    if (d.business !== undefined) slot.holidays = d.business.calendar.dataVersion;
    if (c.label !== undefined) slot.label = c.label;
    return slot;
  }

  private readCursor(
    cursor: CalendarCursor | undefined,
  ): { last: number; emitted: number; pos?: SetPosition } | undefined {
    if (cursor === undefined || cursor === null) return undefined;
    if (typeof cursor !== 'object' || cursor.v !== 1) {
      throw new CalendarError(
        'cursor',
        'not a cursor returned by this calendar (v must be 1)',
        'INVALID_CURSOR',
      );
    }
    if (cursor.last === undefined) return undefined;
    const last = parseInstant('cursor.last', cursor.last);
    const emitted = cursor.emitted;
    if (emitted === undefined || !Number.isInteger(emitted) || emitted < 0) return undefined;
    const out: { last: number; emitted: number; pos?: SetPosition } = { last, emitted };
    const counting = this.def.source.counting;
    // one COUNT rule: `rule`, as cursors have always been; several: `rules`, one entry each
    if (counting <= 1 && cursor.rule !== undefined) {
      out.pos = [positionOf('cursor.rule', cursor.rule)];
    } else if (counting > 1 && cursor.rules !== undefined) {
      if (!Array.isArray(cursor.rules) || cursor.rules.length !== counting) {
        throw new CalendarError(
          'cursor.rules',
          `must hold one position per COUNT rule (${counting})`,
          'INVALID_CURSOR',
        );
      }
      out.pos = cursor.rules.map((p, i) => (p === null ? undefined : positionOf(`cursor.rules.${i}`, p)));
    } else if (counting > 0) return undefined;
    return out;
  }

  /** COUNT rule positions into the cursor: `rule` for one (the format cursors have always had), `rules` for several */
  private writePositions(cursor: CalendarCursor, p: SetPosition): void {
    const asCursor = (x: RulePosition | undefined): CursorRule | null =>
      x === undefined ? null : { wall: formatWall(x.wall), n: x.n };
    const counting = this.def.source.counting;
    if (counting === 1) {
      const one = asCursor(p[0]);
      if (one !== null) cursor.rule = one;
    } else if (counting > 1) cursor.rules = p.map(asCursor);
  }
}

/** a candidate slot of `item` at `instant` */
function candidate(
  item: Nominal,
  instant: number,
  offset: number,
  adjustment: Adjustment | undefined,
): Candidate {
  const c: Candidate = {
    instant,
    offset,
    wall: item.wall,
    adjustments: [...(item.roll ? [item.roll] : []), ...(adjustment ? [adjustment] : [])],
  };
  if (item.pos !== undefined) c.pos = item.pos;
  if (item.until !== undefined) c.until = item.until;
  if (item.label !== undefined) c.label = item.label;
  return c;
}

function positionOf(field: string, p: CursorRule): RulePosition {
  const w = parseDateTime(`${field}.wall`, p.wall);
  if (!Number.isInteger(p.n) || p.n < 1) {
    throw new CalendarError(`${field}.n`, 'must be a positive integer', 'INVALID_CURSOR');
  }
  return { wall: w.wall, n: p.n };
}
