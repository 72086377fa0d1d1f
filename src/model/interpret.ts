// Words → the structured timing (docs/words.md). The reading itself is pure calendar code
// (src/calendar/words); this module gives it the contract's shapes and the preview's next runs, so the
// HTTP API, the SDK and the CLI answer the same JSON for the same text, `timezone` and `now`.
import { z } from 'zod';
import { CalendarError } from '../calendar/errors.js';
import { dateHolidaysRegions, HOLIDAY_DATA_VERSION } from '../calendar/holiday-data.js';
import { BusinessDaysOptions, CalendarOptions, Timing } from '../calendar/timing.js';
import {
  type Reading as CalendarReading,
  explainSpec,
  type RegionLookup,
  readSchedule,
  type WordsLanguage,
} from '../calendar/words/index.js';
import { NextRun } from './contracts.js';
import { previewSlots } from './slots.js';
import { toNextRun } from './views.js';

export const LANGUAGES = ['en', 'ru'] as const satisfies readonly WordsLanguage[];

export const InterpretRequest = z
  .object({
    text: z.string().min(1).max(1000).describe('the schedule in words, English or Russian'),
    timezone: z
      .string()
      .min(1)
      .max(64)
      .optional()
      .describe('IANA zone for wall-clock words when the text names none'),
    now: z.iso
      .datetime({ offset: true })
      .optional()
      .describe('the instant relative words count from ("tomorrow", "in 20 minutes"); default now'),
    count: z.number().int().min(1).max(100).default(5).describe('next runs to show'),
    language: z.enum(LANGUAGES).optional().describe('default: detected from the text'),
    region: BusinessDaysOptions.shape.region
      .optional()
      .describe(
        'whose public holidays close a business day when the text names no country (LV, DE-BY); default: the country of the zone, when exactly one country uses it',
      ),
  })
  .strict();
export type InterpretRequest = z.input<typeof InterpretRequest>;

/** The calendar options a sentence can set; the rest of a definition (target, policies) is the caller's. */
const ReadOptions = CalendarOptions.pick({
  timezone: true,
  window: true,
  starts_at: true,
  ends_at: true,
  max_count: true,
  dst: true,
  business_days: true,
});

/** One reading of the text: a timing with its options, what it means in words, and its next runs. */
export const InterpretReading = ReadOptions.extend({
  timing: Timing,
  explanation: z.string().describe('the reading in plain English, generated from the structured timing'),
  notes: z
    .array(z.string())
    .describe('what the reader chose and why (a bare hour, a corrected typo, a date resolved, DST)'),
  next_runs: z.array(NextRun),
});
export type InterpretReading = z.infer<typeof InterpretReading>;

export const InterpretResult = InterpretReading.extend({
  text: z.string(),
  language: z.enum(LANGUAGES),
});
export type InterpretResult = z.infer<typeof InterpretResult>;

export const UnreadWord = z.object({
  word: z.string(),
  offset: z.number().int().describe('UTF-16 offset of the word in the text'),
});

export type InterpretProblem =
  | { code: 'AMBIGUOUS'; field: 'text'; reason: string; readings: InterpretReading[] }
  | { code: 'UNREADABLE'; field: 'text'; reason: string; unread: z.infer<typeof UnreadWord>[] }
  | { code: 'ZONE_REQUIRED'; field: 'timezone'; reason: string }
  | { code: 'REGION_REQUIRED'; field: 'region'; reason: string };

/** A text the reader answers with a question or a refusal rather than one reading (a 422). */
export class InterpretError extends Error {
  override name = 'InterpretError';
  constructor(readonly problem: InterpretProblem) {
    super(`${problem.code}: ${problem.field}: ${problem.reason}`);
  }
}

let regionLookup: RegionLookup | undefined;
/**
 * The reader's view of the pinned holiday data (src/calendar/holiday-data.ts, its one adapter): English
 * country names (other languages' names, and "the UK", "USA", are in the lexicons), each country's zones,
 * the one country of a zone. Built once per process; its zone tables on the first reading that needs them.
 */
export function holidayRegions(): RegionLookup {
  regionLookup ??= dateHolidaysRegions();
  return regionLookup;
}

function withRuns(reading: CalendarReading, now: string, count: number): InterpretReading {
  const { timing, options, notes } = reading;
  let slots: ReturnType<typeof previewSlots>['slots'];
  try {
    slots = previewSlots({ scheduleId: 'interpret', timing, options, from: now, count }).slots;
  } catch (e) {
    if (!(e instanceof CalendarError)) throw e;
    // the words make a definition the calendar refuses (the 31st of February, a step of 0 minutes)
    throw new InterpretError({
      code: 'UNREADABLE',
      field: 'text',
      reason: `the words read as a schedule that cannot run: ${e.field}: ${e.reason}`,
      unread: [],
    });
  }
  const runs = slots.map(toNextRun);
  // DST is news the words did not say; a window's deferrals are what the words did say (each run shows them)
  const dstNotes = [
    ...new Set(runs.flatMap((r) => r.adjustments.filter((a) => a.kind.startsWith('DST')).map((a) => a.note))),
  ];
  return {
    ...options,
    timing,
    explanation: explainSpec({ timing, ...options }),
    notes: [...notes, ...dstNotes],
    next_runs: runs,
  };
}

/**
 * A one-time wall clock that a DST change skips or repeats is a question (docs/words.md): the readings are
 * the policies that give it a run, each stated in `dst`. A repeating rule keeps its default policy; its
 * notes say what happens on those days.
 */
function dstQuestion(
  reading: CalendarReading,
  answered: InterpretReading,
): { readings: CalendarReading[]; question: string } | undefined {
  if (reading.timing.kind !== 'ONE_TIME' || reading.options.dst !== undefined) return undefined;
  const adjustment = answered.next_runs[0]?.adjustments.find(
    (a) => a.kind === 'DST_GAP' || a.kind === 'DST_FOLD',
  );
  if (!adjustment) return undefined;
  const policies: Array<NonNullable<CalendarReading['options']['dst']>> =
    adjustment.kind === 'DST_GAP'
      ? [{ gap: 'SHIFT_FORWARD' }, { gap: 'NEXT_VALID' }]
      : [{ fold: 'FIRST' }, { fold: 'LAST' }];
  const what =
    adjustment.kind === 'DST_GAP'
      ? 'does not exist (the clocks spring forward)'
      : 'happens twice (the clocks fall back)';
  return {
    readings: policies.map((dst) => ({ ...reading, options: { ...reading.options, dst } })),
    question: `${reading.timing.at} in ${reading.timing.timezone} ${what}: pick a reading, or give options.dst`,
  };
}

/**
 * Reads `request.text` into one reading, or throws {@link InterpretError} (AMBIGUOUS with every reading,
 * UNREADABLE naming the words or the calendar's refusal of a reading, ZONE_REQUIRED, REGION_REQUIRED: business
 * days with no country in the words, no `region` and a zone of no single country); a request outside
 * its contract is a ZodError. `wallNow` is the caller's clock, used when the request
 * gives no `now` (only the boundary reads the clock).
 */
export function interpret(input: InterpretRequest, wallNow: Date): InterpretResult {
  const request = InterpretRequest.parse(input);
  const now = new Date(request.now ?? wallNow.toISOString()).toISOString();
  if (request.region !== undefined && !holidayRegions().has(request.region))
    throw new CalendarError(
      'region',
      `the holiday data (${HOLIDAY_DATA_VERSION}) has no region "${request.region}"`,
      'INVALID_FIELD',
    );
  const read = readSchedule(request.text, {
    now,
    ...(request.timezone !== undefined ? { timezone: request.timezone } : {}),
    ...(request.language !== undefined ? { language: request.language } : {}),
    ...(request.region !== undefined ? { region: request.region } : {}),
    regions: holidayRegions(),
  });
  if (read.kind === 'unread') {
    throw new InterpretError({ code: 'UNREADABLE', field: 'text', reason: read.reason, unread: read.unread });
  }
  if (read.kind === 'zone-required') {
    throw new InterpretError({ code: 'ZONE_REQUIRED', field: 'timezone', reason: read.reason });
  }
  if (read.kind === 'region-required') {
    throw new InterpretError({ code: 'REGION_REQUIRED', field: 'region', reason: read.reason });
  }
  let readings = read.readings.map((r) => withRuns(r, now, request.count));
  let question = read.question;
  if (readings.length === 1) {
    const dst = dstQuestion(read.readings[0]!, readings[0]!);
    if (dst) {
      readings = dst.readings.map((r) => withRuns(r, now, request.count));
      question = dst.question;
    }
  }
  if (readings.length > 1) {
    throw new InterpretError({ code: 'AMBIGUOUS', field: 'text', reason: question!, readings });
  }
  return { text: request.text, language: read.language, ...readings[0]! };
}
