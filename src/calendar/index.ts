/** Public API of the calendar engine. See README.md in this folder. */

export type { DstPolicy, FoldPolicy, GapPolicy } from './dst.js';
export type {
  Calendar,
  CalendarCursor,
  CalendarInput,
  CursorRule,
  NextSlotsContext,
  NextSlotsResult,
  SearchBudget,
  Slot,
  SlotAdjustment,
} from './engine.js';
export { compileCalendar } from './engine.js';
export type { CalendarErrorCode } from './errors.js';
export { CalendarError } from './errors.js';
export {
  CalendarOptions,
  CalendarWindow,
  CronTiming,
  DeadlineTiming,
  DelayTiming,
  DstOptions,
  IntervalTiming,
  OneTimeTiming,
  parseCalendarOptions,
  parseTiming,
  RecurrenceTiming,
  Timing,
  Weekday,
} from './timing.js';
export type { ZoneAmendment, ZoneRules } from './zone.js';
export {
  amendedZoneRules,
  checkZone,
  runtimeZoneRules,
  useRuntimeZoneRules,
  useZoneRules,
  zoneRules,
} from './zone.js';
