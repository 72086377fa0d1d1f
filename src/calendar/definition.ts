/**
 * A schedule definition compiled for the search: its zone and DST policy, the calendar options as values,
 * and the timing as a stream of nominal occurrences (with the business-day calendar's rolls applied). Every
 * check that needs more than the zod shape happens here, failing with a CalendarError naming the field.
 */
import {
  type BusinessCalendar,
  businessCalendar,
  businessDaySource,
  type HolidaySource,
  rolledSource,
} from './business-days.js';
import { DEFAULT_DST, type DstPolicy, resolveWall } from './dst.js';
import { parseDuration } from './duration.js';
import type { CalendarInput } from './engine.js';
import { fail } from './errors.js';
import { DAY, dayNumber, parseDateTime, parseInstant } from './floating.js';
import { compileRecurrence } from './recurrence.js';
import {
  cronSource,
  deadlineSource,
  delaySource,
  intervalSource,
  listSource,
  oneTimeSource,
} from './simple-sources.js';
import type { NominalSource } from './source.js';
import { type CalendarOptions, parseCalendarOptions, parseTiming, type Timing } from './timing.js';
import { Window } from './window.js';
import { checkZone, type Zone, zoneFor } from './zone.js';

export interface BusinessDays {
  calendar: BusinessCalendar;
  roll: 'FORWARD' | 'BACKWARD' | 'SKIP';
}

export interface CompiledDefinition {
  scheduleId: string;
  timing: Timing;
  /** the zone slots are expressed in (the timing's zone, else options.timezone, else UTC) */
  zoneName: string;
  zone: Zone;
  dst: DstPolicy;
  createdAt: number;
  startsAt?: number;
  endsAt?: number;
  /** local dates (day numbers) on which no slot fires */
  exclusions: Set<number>;
  /** the largest deterministic jitter, ms (0: none), and how the options wrote it */
  jitterMax: number;
  jitter?: string;
  window?: Window;
  maxCount?: number;
  business?: BusinessDays;
  /** a slot on a closed day is dropped (business_days with roll SKIP, a timing of another kind) */
  skipClosed: boolean;
  source: NominalSource;
  /** INTERVAL FIXED_DELAY: one slot at a time, from the previous completion */
  fixedDelay?: { everyMs: number; anchor: number };
  /** the search counts every occurrence from the start (max_count, or a COUNT rule) */
  needCount: boolean;
}

type Options = Pick<
  CompiledDefinition,
  'startsAt' | 'endsAt' | 'exclusions' | 'jitterMax' | 'jitter' | 'window' | 'maxCount'
>;

export function compileDefinition(input: CalendarInput): CompiledDefinition {
  if (typeof input !== 'object' || input === null) fail('input', 'must be an object', 'INVALID_FIELD');
  if (typeof input.scheduleId !== 'string' || input.scheduleId === '') {
    fail('scheduleId', 'must be a non-empty string', 'INVALID_FIELD');
  }
  const createdAt = parseInstant('createdAt', String(input.createdAt));
  const timing = parseTiming(input.timing);
  const options = parseCalendarOptions(input.options);

  const timingZoneName =
    'timezone' in timing && timing.timezone !== undefined
      ? checkZone('timing.timezone', timing.timezone)
      : undefined;
  const optionsZoneName =
    options.timezone !== undefined ? checkZone('options.timezone', options.timezone) : undefined;
  const zoneName = timingZoneName ?? optionsZoneName ?? 'UTC';
  const zone = zoneFor(zoneName);
  const dst: DstPolicy = {
    gap: options.dst?.gap ?? DEFAULT_DST.gap,
    fold: options.dst?.fold ?? DEFAULT_DST.fold,
  };
  const compiled = compileOptions(timing, options, zone, dst);
  const business = compileBusinessDays(timing, options, input.holidays);
  const begin = compiled.startsAt ?? createdAt;
  const timed = compileSource(timing, {
    zone,
    timingZone: timingZoneName !== undefined ? zone : undefined,
    dst,
    createdAt,
    startsAt: compiled.startsAt,
    defaultDtstart:
      input.defaultDtstart !== undefined
        ? parseInstant('defaultDtstart', String(input.defaultDtstart))
        : createdAt,
    refuseRepeats: input.refuseRepeats === true,
    beginWall: begin + zone.offsetAt(begin),
    business,
    openDates: (options.business_days?.open?.length ?? 0) > 0,
  });
  return {
    scheduleId: input.scheduleId,
    timing,
    zoneName,
    zone,
    dst,
    createdAt,
    ...compiled,
    ...(business !== undefined ? { business } : {}),
    skipClosed: business !== undefined && timing.kind !== 'BUSINESS_DAY' && business.roll === 'SKIP',
    ...timed,
    needCount: compiled.maxCount !== undefined || timed.source.counting > 0,
  };
}

/** starts_at / ends_at, exclusions, jitter, the window and max_count as values. */
function compileOptions(timing: Timing, options: CalendarOptions, zone: Zone, dst: DstPolicy): Options {
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
    jitterMax = parseDuration('options.jitter', options.jitter, { fixedOnly: true }).fixedMs!;
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
  return {
    exclusions,
    jitterMax,
    ...(startsAt !== undefined ? { startsAt } : {}),
    ...(endsAt !== undefined ? { endsAt } : {}),
    ...(options.jitter !== undefined ? { jitter: options.jitter } : {}),
    ...(window !== undefined ? { window } : {}),
    ...(options.max_count !== undefined ? { maxCount: options.max_count } : {}),
  };
}

interface SourceContext {
  zone: Zone;
  /** the timing's own zone, when it names one */
  timingZone: Zone | undefined;
  dst: DstPolicy;
  createdAt: number;
  startsAt: number | undefined;
  /** DTSTART of a bare RRULE body without starts_at */
  defaultDtstart: number;
  refuseRepeats: boolean;
  /** the floating wall of starts_at, else of the creation: where a calendar's own occurrences begin */
  beginWall: number;
  business: BusinessDays | undefined;
  /** business_days.open has dates: they give weekend days back */
  openDates: boolean;
}

/** The timing as a stream of nominal occurrences, rolled off closed days when business_days asks it. */
function compileSource(
  timing: Timing,
  ctx: SourceContext,
): Pick<CompiledDefinition, 'source' | 'fixedDelay'> {
  const { zone, dst, createdAt } = ctx;
  const lists = { refuseRepeats: ctx.refuseRepeats };
  let source: NominalSource;
  let fixedDelay: CompiledDefinition['fixedDelay'];
  switch (timing.kind) {
    case 'ONE_TIME':
      source = oneTimeSource('timing', timing.at, ctx.timingZone);
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
      source = compileRecurrence(
        'timing.rule',
        timing.rule,
        zone,
        ctx.startsAt ?? ctx.defaultDtstart,
        dst,
        lists,
      );
      break;
    case 'CRON':
      source = cronSource('timing.expression', timing.expression, ctx.beginWall, lists);
      break;
    case 'DEADLINE': {
      const resolveDefault = (wall: number) => resolveWall(zone, wall, dst).resolved[0]?.instant;
      source = deadlineSource(
        'timing',
        timing.at,
        ctx.timingZone,
        zone,
        timing.reminders ?? [],
        resolveDefault,
      );
      break;
    }
    case 'BUSINESS_DAY':
      source = businessDayTimingSource(timing, ctx.business!.calendar, ctx.beginWall, ctx.openDates);
      break;
  }
  const business = ctx.business;
  if (business !== undefined && timing.kind !== 'BUSINESS_DAY' && business.roll !== 'SKIP') {
    if (source.counting > 0)
      fail(
        'options.business_days.roll',
        `${business.roll} moves occurrences a COUNT rule counts by their dates: use max_count to bound the runs, or roll SKIP`,
        'INVALID_OPTION',
      );
    source = rolledSource(source, business.calendar, business.roll, ctx.beginWall);
  }
  return { source, ...(fixedDelay !== undefined ? { fixedDelay } : {}) };
}

function businessDayTimingSource(
  timing: Extract<Timing, { kind: 'BUSINESS_DAY' }>,
  calendar: BusinessCalendar,
  beginWall: number,
  openDates: boolean,
): NominalSource {
  const rule = { period: timing.period, n: timing.n, timeOfDay: timeOfDay(timing.time) };
  if (timing.months !== undefined) {
    if (timing.period === 'QUARTER')
      fail('timing.months', 'is for period MONTH: a QUARTER counts in its three months', 'INVALID_FIELD');
    Object.assign(rule, { months: timing.months });
  }
  // Checked before the engine's probe: a search for an n no period reaches would look through every month to
  // the year 9999. Open dates give weekend days back, so with them only the probe decides.
  const weekendDays = calendar.weekend.length;
  const most = timing.period === 'MONTH' ? 31 - 4 * weekendDays : 92 - 13 * weekendDays;
  if (Math.abs(timing.n) > most && !openDates)
    fail(
      'timing.n',
      `a ${timing.period === 'MONTH' ? 'month' : 'quarter'} has at most ${most} business days with a ${weekendDays}-day weekend`,
      'NEVER_FIRES',
    );
  return businessDaySource(calendar, rule, beginWall);
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
): BusinessDays | undefined {
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
