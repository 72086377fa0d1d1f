// The slots of a schedule definition: the one place a schedule spec meets the calendar engine. The
// workflow gets them through an activity (src/activities/slots.ts, recorded in history); the SDK
// calls the same function to validate and preview a definition without a server.

import type { HolidaySource } from '../calendar/business-days.js';
import { dateHolidaysSource } from '../calendar/holiday-data.js';
import {
  type CalendarCursor,
  compileCalendar,
  type SearchBudget,
  type Slot,
  zoneRules,
} from '../calendar/index.js';
import type { CalendarOptions } from '../calendar/timing.js';
import type { ScheduleSpec } from './contracts.js';

/** Bumped when the slot computation changes meaning; recorded with every batch. */
export const SLOT_ENGINE_VERSION = 1;

/** What the calendar needs of a definition: its timing and calendar options (a preview has no target). */
export type SlotSpec = Pick<ScheduleSpec, 'timing'> & CalendarOptions;

export interface SlotBatchRequest {
  scheduleId: string;
  spec: SlotSpec;
  createdAt: string;
  /** Slots strictly after this instant (by scheduled_for). */
  after: string;
  /** Only slots up to this instant (backfill); default: no bound but `count`. */
  until?: string;
  count: number;
  cursor?: CalendarCursor;
  lastCompletedAt?: string;
  /**
   * The definition is entering (create, an edit of its timing, a preview): a value a BY-list or a cron
   * field repeats is refused (CalendarError naming `timing.rule` / `timing.expression`). Never set for a
   * stored definition (the slot activity, a backfill), which keeps computing as it always did.
   */
  refuseRepeats?: boolean;
}

export interface SlotBatch {
  engine: number;
  /** The tz database release that computed the batch (each slot says it too); absent before 0.6. */
  tz?: string;
  /** The holiday data release that decided its business days; only for a definition with business_days. */
  holidays?: string;
  slots: Slot[];
  cursor: CalendarCursor;
  exhausted: boolean;
}

/** The calendar options inside a schedule spec (the spec carries them flat, as schedule.v1 does). */
export function calendarOptionsOf(spec: SlotSpec): CalendarOptions {
  const { timezone, window, exclusions, starts_at, ends_at, max_count, jitter, dst, business_days } = spec;
  const options: CalendarOptions = {};
  if (timezone !== undefined) options.timezone = timezone;
  if (window !== undefined) options.window = window;
  if (exclusions !== undefined) options.exclusions = exclusions;
  if (starts_at !== undefined) options.starts_at = starts_at;
  if (ends_at !== undefined) options.ends_at = ends_at;
  if (max_count !== undefined) options.max_count = max_count;
  if (jitter !== undefined) options.jitter = jitter;
  if (dst !== undefined) options.dst = dst;
  if (business_days !== undefined) options.business_days = business_days;
  return options;
}

/** A definition's calendar, compiled as every caller must: the workflow, the SDK, the HTTP API, the CLI. */
function calendarOf(
  scheduleId: string,
  timing: unknown,
  options: unknown,
  createdAt: string,
  budget?: SearchBudget,
  refuseRepeats = false,
) {
  return compileCalendar({
    scheduleId,
    timing: timing as SlotSpec['timing'],
    options: options as CalendarOptions | undefined,
    createdAt,
    // A bare RRULE without starts_at starts at the minute of creation (seconds would leak into slots).
    defaultDtstart: new Date(Math.floor(Date.parse(createdAt) / 60_000) * 60_000).toISOString(),
    ...(budget ? { budget } : {}),
    ...(refuseRepeats ? { refuseRepeats } : {}),
    holidays: holidayData(),
  });
}

let holidaySource: HolidaySource | undefined;
/**
 * The holiday data every process computes business days with: the pinned package (one instance: it memoizes
 * regions). Workflow code never reaches it: the workflow imports only this module's types, and asks the
 * slot activity.
 */
function holidayData(): HolidaySource {
  holidaySource ??= dateHolidaysSource();
  return holidaySource;
}

/**
 * Installs other holiday data for the computations that follow (undefined: the pinned package again): the
 * seam a test uses to stand for a newer data release under running schedules, as `useZoneRules` stands for a
 * newer tz database.
 */
export function useHolidaySource(source?: HolidaySource): void {
  holidaySource = source;
}

/**
 * The next `count` slots of an unvalidated timing and calendar options after `from`, for a definition
 * created then (the CLI's preview, a reading of words): the calendar validates both (CalendarError naming
 * the field; a definition entering, so a repeated list value too), and the slots are the ones the SDK's
 * preview and the running schedule compute.
 */
export function previewSlots(input: {
  scheduleId: string;
  timing: unknown;
  options?: unknown;
  from: string;
  count: number;
}): { slots: Slot[]; timezone: string } {
  const calendar = calendarOf(input.scheduleId, input.timing, input.options, input.from, undefined, true);
  return { slots: calendar.nextSlots(input.from, input.count).slots, timezone: calendar.timezone };
}

/**
 * A SearchBudget that runs out `budgetMs` of wall time after it is made, read on `now` (ms, monotonic;
 * default performance.now): the API's per-request budget (src/api/slot-runner.ts) and the slot activity's
 * (src/activities/slots.ts). `partial`: see SearchBudget. `spent()` tells a search it ended from one that
 * ran out of candidates or failed on its own.
 */
export function wallTimeBudget(
  budgetMs: number,
  reason: string,
  options: { now?: () => number; partial?: boolean } = {},
): SearchBudget & { spent(): boolean } {
  const now = options.now ?? (() => performance.now());
  const deadline = now() + budgetMs;
  let spent = false;
  return {
    exceeded: () => {
      spent ||= now() > deadline;
      return spent;
    },
    reason,
    ...(options.partial ? { partial: true } : {}),
    spent: () => spent,
  };
}

/**
 * The next slots of a definition after `request.after`; throws CalendarError on an invalid rule or zone.
 * `budget` (the HTTP API's time budget) may end a long search with SEARCH_LIMIT; a search it lets finish
 * returns exactly what it returns without one, so a batch the API computes is the one the slot activity
 * (which passes none) computes.
 */
export function computeSlots(request: SlotBatchRequest, budget?: SearchBudget): SlotBatch {
  const calendar = calendarOf(
    request.scheduleId,
    request.spec.timing,
    calendarOptionsOf(request.spec),
    request.createdAt,
    budget,
    request.refuseRepeats,
  );
  const ctx = {
    ...(request.lastCompletedAt ? { lastCompletedAt: request.lastCompletedAt } : {}),
    // The calendar stops at `until` itself, so the cursor it returns matches the last slot returned.
    ...(request.until ? { until: request.until } : {}),
    ...(budget ? { budget } : {}),
  };
  const { slots, cursor, exhausted } = calendar.nextSlots(request.after, request.count, request.cursor, ctx);
  return {
    engine: SLOT_ENGINE_VERSION,
    tz: zoneRules().version,
    ...(calendar.holidays !== undefined ? { holidays: calendar.holidays } : {}),
    slots,
    cursor,
    exhausted,
  };
}
