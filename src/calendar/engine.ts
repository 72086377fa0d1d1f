/**
 * The calendar engine: compile a timing + options once, then ask for the next slots after an
 * instant. Pure and deterministic (no clock, no randomness, no I/O): safe in a Temporal local
 * activity and in workflow code.
 */
import {
  type BusinessCalendar,
  businessCalendar,
  businessDaySource,
  type HolidaySource,
  rolledSource,
} from './business-days.js';
import { type Adjustment, DEFAULT_DST, type DstPolicy, resolveWall } from './dst.js';
import { parseDuration } from './duration.js';
import { CalendarError, fail } from './errors.js';
import {
  DAY,
  dayNumber,
  formatInstantAt,
  formatUtc,
  formatWall,
  LAST_INSTANT,
  parseDateTime,
  parseInstant,
} from './floating.js';
import { jitterMs } from './jitter.js';
import { compileRecurrence } from './recurrence.js';
import {
  absolute,
  cronSource,
  deadlineSource,
  delaySource,
  intervalSource,
  listSource,
  oneTimeSource,
} from './simple-sources.js';
import type { Nominal, NominalSource, RulePosition, SetPosition } from './source.js';
import { type CalendarOptions, parseCalendarOptions, parseTiming, type Timing } from './timing.js';
import { Window } from './window.js';
import { checkZone, zoneFor } from './zone.js';

export interface CalendarInput {
  scheduleId: string;
  timing: Timing;
  options?: CalendarOptions;
  /** ISO instant the schedule was created: default DELAY/INTERVAL anchor, bare-RRULE DTSTART fallback */
  createdAt: string;
  /**
   * DTSTART for a bare RRULE body when `starts_at` is unset, instead of `createdAt`. The runtime passes
   * the creation instant floored to the minute: an unspecified BYSECOND takes DTSTART's seconds (RFC
   * 5545), and "BYHOUR=9;BYMINUTE=0" must fire at 09:00:00, not at the second the schedule was made.
   */
  defaultDtstart?: string;
  /** A caller's bound on the compile-time probe's search besides its candidate budget (see SearchBudget). */
  budget?: SearchBudget;
  /**
   * A definition entering (created, its timing edited, previewed, read from words): a value a BY-list or a
   * cron field repeats is refused, naming the part (ListParse). Absent for a stored definition, which is
   * computed as it always was.
   */
  refuseRepeats?: boolean;
  /**
   * Where public holidays come from, for `business_days` and BUSINESS_DAY timings: the activities, the API
   * and the CLI pass the pinned data package's (holiday-data.ts); the calendar imports no data itself.
   */
  holidays?: HolidaySource;
}

/**
 * A caller's bound on a search, besides the calendar's own candidate budget: `exceeded()` is asked every
 * SEARCH_BUDGET_STRIDE candidates, and true ends the search with a SEARCH_LIMIT CalendarError saying
 * `reason`. The calendar reads no clock itself: a caller that bounds time (the HTTP API) passes a budget
 * that reads one. A search that ends within it returns exactly what it returns without one.
 */
export interface SearchBudget {
  exceeded(): boolean;
  /** why the search was stopped, for the error: e.g. "took longer than 1000 ms …" */
  reason: string;
  /**
   * When the budget runs out after the search found a slot: end the batch there (fewer than `count` slots,
   * not exhausted, the cursor after the last one), as the candidate budget does, instead of failing. A
   * caller asking again from there continues the same sequence. A search that found nothing yet fails with
   * SEARCH_LIMIT either way. Never set it for a search bounded by `until` whose every slot is wanted.
   */
  partial?: boolean;
}

/**
 * Opaque, JSON-serialisable position after the last returned slot. Only needed for COUNT rules
 * and `max_count` (so they are not recounted from the start); harmless to pass always.
 */
export interface CalendarCursor {
  v: 1;
  /** scheduledFor of the last slot this cursor has seen */
  last?: string;
  /** number of slots emitted up to and including `last` */
  emitted?: number;
  /** the one COUNT-limited rule: its `n`-th occurrence is at floating wall time `wall` */
  rule?: CursorRule;
  /** several COUNT-limited rules (RRULEs, then EXRULEs, in block order): each one's, or null before its first */
  rules?: Array<CursorRule | null>;
}

/** A position in a COUNT-limited rule: its `n`-th occurrence is at floating wall time `wall`. */
export interface CursorRule {
  wall: string;
  n: number;
}

export interface SlotAdjustment {
  kind: Adjustment['kind'];
  note: string;
}

export interface Slot {
  /** ISO 8601 with the zone's offset: the slot's identity; after DST policy, before jitter/window */
  scheduledFor: string;
  /** ISO 8601 UTC (`Z`): when to fire (scheduledFor + jitter, or deferred to the window's opening) */
  fireAt: string;
  /** fireAt in the calendar's zone, ISO 8601 with offset */
  local: string;
  /** DEADLINE: `deadline` or `reminder:<duration>` */
  label?: string;
  adjustments: SlotAdjustment[];
  /** The tz database release whose rules computed the slot (zone.ts `ZoneRules.version`); absent in slots recorded before 0.6. */
  tz?: string;
  /** The holiday data release that decided its business days (`date-holidays@3.37.0`); only with business_days. */
  holidays?: string;
}

export interface NextSlotsContext {
  /** INTERVAL FIXED_DELAY: when the previous occurrence completed */
  lastCompletedAt?: string;
  /**
   * Only slots with scheduledFor ≤ until (backfill windows, "what is due now"). The returned
   * cursor then belongs to the last returned slot; `exhausted` still means "never any more".
   */
  until?: string;
  /** stop the search with SEARCH_LIMIT once this budget is exceeded */
  budget?: SearchBudget;
}

export interface NextSlotsResult {
  slots: Slot[];
  cursor: CalendarCursor;
  /** true when no slot after the returned ones will ever exist */
  exhausted: boolean;
}

export interface Calendar {
  readonly scheduleId: string;
  readonly kind: Timing['kind'];
  /** the zone slots are expressed in (the timing's zone, else options.timezone, else UTC) */
  readonly timezone: string;
  /** the holiday data release its business days come from; absent without business_days */
  readonly holidays?: string;
  /** slots strictly after `after` (by scheduledFor), in order, at most `count` */
  nextSlots(after: string, count: number, cursor?: CalendarCursor, ctx?: NextSlotsContext): NextSlotsResult;
}

interface Candidate {
  instant: number;
  offset: number;
  wall: number;
  pos?: SetPosition;
  until?: number;
  label?: string;
  adjustments: Adjustment[];
}

const DAY_MS = 86_400_000;

/** candidates examined per call before giving up (window SKIP / exclusions removing everything) */
const SEARCH_FUEL = 200_000;
/** the same, for the compile-time probe */
const PROBE_FUEL = 20_000;
/** candidates between two questions to a caller's SearchBudget */
export const SEARCH_BUDGET_STRIDE = 1024;

export function compileCalendar(input: CalendarInput): Calendar {
  if (typeof input !== 'object' || input === null) fail('input', 'must be an object', 'INVALID_FIELD');
  if (typeof input.scheduleId !== 'string' || input.scheduleId === '') {
    fail('scheduleId', 'must be a non-empty string', 'INVALID_FIELD');
  }
  const createdAt = parseInstant('createdAt', String(input.createdAt));
  const defaultDtstart =
    input.defaultDtstart !== undefined
      ? parseInstant('defaultDtstart', String(input.defaultDtstart))
      : createdAt;
  const timing = parseTiming(input.timing);
  const options = parseCalendarOptions(input.options);
  const lists = { refuseRepeats: input.refuseRepeats === true };

  // zones
  const timingZoneName =
    'timezone' in timing && timing.timezone !== undefined
      ? checkZone('timing.timezone', timing.timezone)
      : undefined;
  const optionsZoneName =
    options.timezone !== undefined ? checkZone('options.timezone', options.timezone) : undefined;
  const zoneName = timingZoneName ?? optionsZoneName ?? 'UTC';
  const zone = zoneFor(zoneName);
  const timingZone = timingZoneName !== undefined ? zone : undefined;
  const dst: DstPolicy = {
    gap: options.dst?.gap ?? DEFAULT_DST.gap,
    fold: options.dst?.fold ?? DEFAULT_DST.fold,
  };

  // options
  const startsAt =
    options.starts_at !== undefined ? parseInstant('options.starts_at', options.starts_at) : undefined;
  const endsAt = options.ends_at !== undefined ? parseInstant('options.ends_at', options.ends_at) : undefined;
  if (startsAt !== undefined && endsAt !== undefined && endsAt < startsAt) {
    fail('options.ends_at', 'is before options.starts_at', 'INVALID_OPTION');
  }
  const exclusions = new Set<number>();
  (options.exclusions ?? []).forEach((d, i) => {
    exclusions.add(dayNumber(parseDateTime(`options.exclusions.${i}`, d).wall));
  });
  let jitterMax = 0;
  if (options.jitter !== undefined) {
    if (timing.kind === 'ONE_TIME' || timing.kind === 'DEADLINE') {
      fail(
        'options.jitter',
        `jitter is for technical jobs; a ${timing.kind} is a human-time commitment`,
        'INVALID_OPTION',
      );
    }
    const j = parseDuration('options.jitter', options.jitter, { fixedOnly: true });
    jitterMax = j.fixedMs!;
    if (jitterMax > DAY) fail('options.jitter', 'must not exceed P1D', 'INVALID_OPTION');
  }
  const window =
    options.window !== undefined
      ? new Window(
          'options.window',
          options.window,
          options.window.timezone !== undefined
            ? zoneFor(checkZone('options.window.timezone', options.window.timezone))
            : zone,
          dst,
        )
      : undefined;
  const maxCount = options.max_count;
  const business = compileBusinessDays(timing, options, input.holidays);
  const skipClosed = business !== undefined && timing.kind !== 'BUSINESS_DAY' && business.roll === 'SKIP';

  const resolveDefault = (wall: number) => resolveWall(zone, wall, dst).resolved[0]?.instant;

  // timing → nominal source
  let source: NominalSource;
  let fixedDelay: { everyMs: number; anchor: number } | undefined;
  switch (timing.kind) {
    case 'ONE_TIME':
      source = oneTimeSource('timing', timing.at, timingZone);
      break;
    case 'DELAY': {
      const anchor = timing.anchor !== undefined ? parseInstant('timing.anchor', timing.anchor) : createdAt;
      source = delaySource('timing', timing.delay, anchor, zone);
      break;
    }
    case 'INTERVAL': {
      const every = parseDuration('timing.every', timing.every, { fixedOnly: true }).fixedMs!;
      if (every < 1000) fail('timing.every', 'must be at least PT1S', 'INVALID_DURATION');
      const anchor = timing.anchor !== undefined ? parseInstant('timing.anchor', timing.anchor) : createdAt;
      if (timing.mode === 'FIXED_DELAY') {
        fixedDelay = { everyMs: every, anchor };
        source = listSource([]);
      } else {
        // The creation instant is not a slot (a schedule fires strictly after it), so the default grid starts
        // one step later: otherwise max_count would count a run that never fires.
        source = intervalSource(every, timing.anchor !== undefined ? anchor : anchor + every, zone);
      }
      break;
    }
    case 'RECURRENCE':
      source = compileRecurrence('timing.rule', timing.rule, zone, startsAt ?? defaultDtstart, dst, lists);
      break;
    case 'CRON': {
      const begin = (startsAt ?? createdAt) + zone.offsetAt(startsAt ?? createdAt);
      source = cronSource('timing.expression', timing.expression, begin, lists);
      break;
    }
    case 'DEADLINE':
      source = deadlineSource('timing', timing.at, timingZone, zone, timing.reminders ?? [], resolveDefault);
      break;
    case 'BUSINESS_DAY': {
      const begin = (startsAt ?? createdAt) + zone.offsetAt(startsAt ?? createdAt);
      const rule = { period: timing.period, n: timing.n, timeOfDay: timeOfDay(timing.time) };
      if (timing.months !== undefined) {
        if (timing.period === 'QUARTER')
          fail('timing.months', 'is for period MONTH: a QUARTER counts in its three months', 'INVALID_FIELD');
        Object.assign(rule, { months: timing.months });
      }
      // Checked before the probe below: a search for an n no period reaches would look through every month
      // to the year 9999. Open dates give weekend days back, so with them only the probe decides.
      const weekendDays = business!.calendar.weekend.length;
      const most = timing.period === 'MONTH' ? 31 - 4 * weekendDays : 92 - 13 * weekendDays;
      if (Math.abs(timing.n) > most && !options.business_days?.open?.length)
        fail(
          'timing.n',
          `a ${timing.period === 'MONTH' ? 'month' : 'quarter'} has at most ${most} business days with a ${weekendDays}-day weekend`,
          'NEVER_FIRES',
        );
      source = businessDaySource(business!.calendar, rule, begin);
      break;
    }
  }
  if (business !== undefined && timing.kind !== 'BUSINESS_DAY' && business.roll !== 'SKIP') {
    if (source.counting > 0)
      fail(
        'options.business_days.roll',
        `${business.roll} moves occurrences a COUNT rule counts by their dates: use max_count to bound the runs, or roll SKIP`,
        'INVALID_OPTION',
      );
    const begin = (startsAt ?? createdAt) + zone.offsetAt(startsAt ?? createdAt);
    source = rolledSource(source, business.calendar, business.roll, begin);
  }

  const needCount = maxCount !== undefined || source.counting > 0;

  /** floating wall below which no nominal occurrence can resolve to an instant > t */
  function wallLow(t: number): number {
    return t + Math.min(zone.offsetAt(t - DAY_MS), zone.offsetAt(t), zone.offsetAt(t + DAY_MS));
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

  function candidatesOf(item: Nominal): { cands: Candidate[]; lb: number } {
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

  function toSlot(c: Candidate, deferTo: number | undefined): Slot {
    const scheduledFor = formatInstantAt(c.instant, c.offset);
    const adjustments: SlotAdjustment[] = c.adjustments.map((a) => ({ kind: a.kind, note: a.note }));
    let fire = c.instant;
    if (deferTo !== undefined) {
      fire = deferTo;
      adjustments.push({
        kind: 'WINDOW_DEFER',
        note: `${scheduledFor} is outside the allowed window; deferred to its opening at ${formatInstantAt(deferTo, window!.zone.offsetAt(deferTo))}`,
      });
    }
    if (jitterMax > 0) {
      const j = jitterMs(input.scheduleId, scheduledFor, jitterMax);
      fire += j;
      adjustments.push({
        kind: 'JITTER',
        note: `+${j / 1000}s deterministic jitter (max ${options.jitter})`,
      });
    }
    const slot: Slot = {
      scheduledFor,
      fireAt: formatUtc(fire),
      local: formatInstantAt(fire, zone.offsetAt(fire)),
      adjustments,
      tz: zone.rules.version,
    };
    if (business !== undefined) slot.holidays = business.calendar.dataVersion;
    if (c.label !== undefined) slot.label = c.label;
    return slot;
  }

  function positionOf(field: string, p: CursorRule): RulePosition {
    const w = parseDateTime(`${field}.wall`, p.wall);
    if (!Number.isInteger(p.n) || p.n < 1) {
      throw new CalendarError(`${field}.n`, 'must be a positive integer', 'INVALID_CURSOR');
    }
    return { wall: w.wall, n: p.n };
  }

  function readCursor(
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
    // one COUNT rule: `rule`, as cursors have always been; several: `rules`, one entry each
    if (source.counting <= 1 && cursor.rule !== undefined) {
      out.pos = [positionOf('cursor.rule', cursor.rule)];
    } else if (source.counting > 1 && cursor.rules !== undefined) {
      if (!Array.isArray(cursor.rules) || cursor.rules.length !== source.counting) {
        throw new CalendarError(
          'cursor.rules',
          `must hold one position per COUNT rule (${source.counting})`,
          'INVALID_CURSOR',
        );
      }
      out.pos = cursor.rules.map((p, i) => (p === null ? undefined : positionOf(`cursor.rules.${i}`, p)));
    } else if (source.counting > 0) return undefined;
    return out;
  }

  /** the last error a caller's budget ended a search with (the probe tells it from running out of fuel) */
  let budgetStop: CalendarError | undefined;

  function nextSlots(
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
    const known = readCursor(cursorIn);
    let src = source;
    if (fixedDelay !== undefined) {
      // one slot: the previous completion + every (or the first grid point), strictly after `after`
      const basis =
        ctx?.lastCompletedAt !== undefined
          ? parseInstant('ctx.lastCompletedAt', ctx.lastCompletedAt)
          : fixedDelay.anchor - fixedDelay.everyMs;
      const k = Math.max(1, Math.floor((after - basis) / fixedDelay.everyMs) + 1);
      src = listSource([absolute(zone, basis + k * fixedDelay.everyMs)]);
    }

    let from: number;
    let pos: SetPosition | undefined;
    let emitted = 0;
    let countedUpTo = Number.NEGATIVE_INFINITY;
    if (needCount && known !== undefined && known.last <= after) {
      from = wallLow(known.last);
      pos = known.pos;
      emitted = known.emitted;
      countedUpTo = known.last;
    } else if (needCount && fixedDelay === undefined) {
      from = Number.NEGATIVE_INFINITY;
    } else {
      from = wallLow(after);
      if (fixedDelay !== undefined && known !== undefined) emitted = known.emitted;
    }
    if (startsAt !== undefined) from = Math.max(from, wallLow(startsAt) - DAY);

    const slots: Slot[] = [];
    const cursor: CalendarCursor =
      cursorIn && typeof cursorIn === 'object' ? { ...cursorIn, v: 1 } : { v: 1 };
    let lastPos = pos;
    let exhausted = false;
    if (count === 0) return { slots, cursor, exhausted: false };

    const it = src.iterate(from, pos);
    const buffer: Candidate[] = [];
    let removed = 0;
    let lastInstant = Number.NaN;
    let fuel = searchFuel;
    const budget = ctx?.budget;
    let stride = SEARCH_BUDGET_STRIDE;
    let done = false;
    while (!done) {
      const r = it.next();
      let lb = Number.POSITIVE_INFINITY;
      let cands: Candidate[] = [];
      if (!r.done) ({ cands, lb } = candidatesOf(r.value));
      while (buffer.length > 0 && buffer[0]!.instant < lb) {
        const c = buffer.shift()!;
        // past its rule's UNTIL: not an occurrence (another rule or an RDATE may still have that instant)
        if (c.until !== undefined && c.instant > c.until) continue;
        if (c.instant === lastInstant) continue; // the same instant twice (DST shift, RDATE = rule)
        lastInstant = c.instant;
        if (startsAt !== undefined && c.instant < startsAt) continue;
        if (endsAt !== undefined && c.instant > endsAt) {
          exhausted = true;
          done = true;
          break;
        }
        if (src.excludedInstants?.has(c.instant)) continue;
        if (exclusions.size > 0 && exclusions.has(dayNumber(c.instant + c.offset))) continue;
        if (skipClosed && business!.calendar.closedOnDay(dayNumber(c.instant + c.offset))) continue;
        let deferTo: number | undefined;
        if (window !== undefined && !window.contains(c.instant)) {
          if (window.outside === 'SKIP') continue;
          deferTo = window.nextOpening(c.instant);
        }
        if (c.instant <= countedUpTo) continue;
        emitted++;
        if (maxCount !== undefined && emitted > maxCount) {
          exhausted = true;
          done = true;
          break;
        }
        if (c.pos !== undefined) lastPos = c.pos;
        if (c.instant <= after) continue;
        if (c.instant > until) {
          done = true;
          break;
        }
        // The calendar ends with the year 9999 (ISO 8601's four-digit years): a slot past it, or deferred
        // or jittered past it, is no slot, and the calendar is exhausted.
        const slot = toSlot(c, deferTo);
        if (!(Date.parse(slot.fireAt) <= LAST_INSTANT) || !(Date.parse(slot.scheduledFor) <= LAST_INSTANT)) {
          exhausted = true;
          done = true;
          break;
        }
        slots.push(slot);
        cursor.last = slots[slots.length - 1]!.scheduledFor;
        if (needCount) cursor.emitted = emitted;
        if (lastPos !== undefined) writePositions(cursor, lastPos);
        if (slots.length >= count) {
          done = true;
          if (maxCount !== undefined && emitted >= maxCount) exhausted = true;
          break;
        }
      }
      if (done) break;
      if (r.done) {
        exhausted = fixedDelay === undefined;
        break;
      }
      if (!r.done && r.value.removed) removed++;
      if (--fuel < 0) {
        if (slots.length > 0) break;
        // most of what was searched was removed by the timing's own EXRULEs: they are what removes it all
        if (removed > searchFuel / 2) {
          throw new CalendarError(
            'timing.rule',
            `no slot found within ${searchFuel} candidate occurrences: the EXRULEs remove every occurrence`,
            'SEARCH_LIMIT',
          );
        }
        // As with the budget below: the window/exclusions when the definition has them, else its timing.
        if (window?.outside === 'SKIP' || exclusions.size > 0 || skipClosed)
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
      if (budget !== undefined && --stride <= 0) {
        stride = SEARCH_BUDGET_STRIDE;
        if (budget.exceeded()) {
          if (budget.partial && slots.length > 0) break;
          // The definition itself is what costs: its window/exclusions when it has them, else its timing.
          budgetStop = new CalendarError(
            window?.outside === 'SKIP' || exclusions.size > 0 || skipClosed ? 'options' : 'timing',
            budget.reason,
            'SEARCH_LIMIT',
          );
          throw budgetStop;
        }
      }
      for (const c of cands) {
        let i = buffer.length;
        while (i > 0 && buffer[i - 1]!.instant > c.instant) i--;
        buffer.splice(i, 0, c);
      }
    }
    if (needCount && cursor.emitted === undefined && slots.length === 0 && known !== undefined)
      cursor.emitted = known.emitted;
    return { slots, cursor, exhausted };
  }

  /** COUNT rule positions into the cursor: `rule` for one (the format cursors have always had), `rules` for several */
  function writePositions(cursor: CalendarCursor, p: SetPosition): void {
    const asCursor = (x: RulePosition | undefined): CursorRule | null =>
      x === undefined ? null : { wall: formatWall(x.wall), n: x.n };
    if (source.counting === 1) {
      const one = asCursor(p[0]);
      if (one !== null) cursor.rule = one;
    } else if (source.counting > 1) cursor.rules = p.map(asCursor);
  }

  const calendar: Calendar = {
    scheduleId: input.scheduleId,
    kind: timing.kind,
    timezone: zoneName,
    ...(business !== undefined ? { holidays: business.calendar.dataVersion } : {}),
    nextSlots,
  };

  // a window that SKIPs, exclusions or closed days may remove every occurrence: probe once (bounded)
  if ((window?.outside === 'SKIP' || exclusions.size > 0 || skipClosed) && fixedDelay === undefined) {
    try {
      nextSlots(
        formatUtc((startsAt ?? createdAt) - 1),
        1,
        undefined,
        input.budget ? { budget: input.budget } : undefined,
        PROBE_FUEL,
      );
    } catch (e) {
      if (e instanceof CalendarError && e.code === 'SEARCH_LIMIT' && e !== budgetStop) {
        fail(
          window?.outside === 'SKIP'
            ? 'options.window'
            : exclusions.size > 0
              ? 'options.exclusions'
              : 'options.business_days',
          'removes every occurrence of the timing',
          'NEVER_FIRES',
        );
      }
      throw e;
    }
  }
  if (timing.kind === 'BUSINESS_DAY') {
    let found: boolean;
    try {
      found =
        nextSlots(formatUtc((startsAt ?? createdAt) - 1), 1, undefined, undefined, PROBE_FUEL).slots.length >
        0;
    } catch (e) {
      if (!(e instanceof CalendarError && e.code === 'SEARCH_LIMIT')) throw e;
      found = false;
    }
    if (!found)
      fail(
        'timing.n',
        `no ${timing.period === 'MONTH' ? 'month' : 'quarter'} has a business day number ${timing.n} in ${business!.calendar.region}`,
        'NEVER_FIRES',
      );
  }
  return calendar;
}

/** `HH:mm` or `HH:mm:ss` → ms after local midnight. */
function timeOfDay(text: string): number {
  const m = /^(\d{2}):(\d{2})(?::(\d{2}))?$/.exec(text);
  const [h, min, sec] = m ? [Number(m[1]), Number(m[2]), Number(m[3] ?? 0)] : [Number.NaN, 0, 0];
  if (!(h <= 23 && min <= 59 && sec <= 59))
    fail(
      'timing.time',
      `"${text}" is not a time of day (HH:mm or HH:mm:ss, 00:00…23:59:59)`,
      'INVALID_DATETIME',
    );
  return ((h * 60 + min) * 60 + sec) * 1000;
}

/** The business-day calendar of a definition, with its roll policy; undefined when it uses none. */
function compileBusinessDays(
  timing: Timing,
  options: CalendarOptions,
  holidays: HolidaySource | undefined,
): { calendar: BusinessCalendar; roll: 'FORWARD' | 'BACKWARD' | 'SKIP' } | undefined {
  const spec = options.business_days;
  if (spec === undefined) {
    if (timing.kind === 'BUSINESS_DAY')
      fail(
        'options.business_days',
        'a BUSINESS_DAY timing needs business_days with a region: whose public holidays close a day (LV, DE-BY)',
        'INVALID_OPTION',
      );
    return undefined;
  }
  if (timing.kind === 'BUSINESS_DAY' && spec.roll !== undefined)
    fail(
      'options.business_days.roll',
      'is for slots of other kinds: a BUSINESS_DAY slot is on a business day already',
      'INVALID_OPTION',
    );
  if (holidays === undefined)
    fail(
      'options.business_days',
      'this process was given no holiday data to compute business days with',
      'INVALID_OPTION',
    );
  return { calendar: businessCalendar(spec, holidays), roll: spec.roll ?? 'SKIP' };
}
