/**
 * The calendar engine: compile a timing + options once, then ask for the next slots after an
 * instant. Pure and deterministic (no clock, no randomness, no I/O): safe in a Temporal local
 * activity and in workflow code.
 */

import type { HolidaySource } from './business-days.js';
import { compileDefinition } from './definition.js';
import type { Adjustment } from './dst.js';
import { CalendarError, fail } from './errors.js';
import { formatUtc } from './floating.js';
import { SlotSearch } from './slot-search.js';
import type { CalendarOptions, Timing } from './timing.js';

export { SEARCH_BUDGET_STRIDE } from './slot-search.js';

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

/** candidates the compile-time probe examines before it says a definition never fires */
const PROBE_FUEL = 20_000;

export function compileCalendar(input: CalendarInput): Calendar {
  const def = compileDefinition(input);
  const search = new SlotSearch(def);
  const calendar: Calendar = {
    scheduleId: def.scheduleId,
    kind: def.timing.kind,
    timezone: def.zoneName,
    ...(def.business !== undefined ? { holidays: def.business.calendar.dataVersion } : {}),
    nextSlots: (after, count, cursor, ctx) => search.nextSlots(after, count, cursor, ctx),
  };
  const firstProbe = (budget?: SearchBudget) =>
    search.nextSlots(
      formatUtc((def.startsAt ?? def.createdAt) - 1),
      1,
      undefined,
      budget ? { budget } : undefined,
      PROBE_FUEL,
    );

  // a window that SKIPs, exclusions or closed days may remove every occurrence: probe once (bounded)
  const { window, exclusions } = def;
  if ((window?.outside === 'SKIP' || exclusions.size > 0 || def.skipClosed) && def.fixedDelay === undefined) {
    try {
      firstProbe(input.budget);
    } catch (e) {
      if (e instanceof CalendarError && e.code === 'SEARCH_LIMIT' && e !== search.budgetStop) {
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
  const { timing } = def;
  if (timing.kind === 'BUSINESS_DAY') {
    let found: boolean;
    try {
      found = firstProbe().slots.length > 0;
    } catch (e) {
      if (!(e instanceof CalendarError && e.code === 'SEARCH_LIMIT')) throw e;
      found = false;
    }
    if (!found)
      fail(
        'timing.n',
        `no ${timing.period === 'MONTH' ? 'month' : 'quarter'} has a business day number ${timing.n} in ${def.business!.calendar.region}`,
        'NEVER_FIRES',
      );
  }
  return calendar;
}
