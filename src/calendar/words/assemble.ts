// The assembly: the kind of timing the filled slots make, the checks before it is built, the zone and
// business days, and one reading per combination of the questions' answers.
import { CalendarError } from '../errors.js';
import { build } from './build.js';
import { businessDaysOf } from './business.js';
import { monthName, pad } from './clock.js';
import { englishOrdinal } from './en.js';
import type { Features, Time, TimingKind } from './features.js';
import type { Unit } from './lexicon.js';
import { zoneIdOf } from './lexing.js';
import type { BusinessDays, ReadInput, ReadOutcome, WordsLanguage } from './reading.js';
import { refuseUnsaidWhen, regionRequired, Unreadable, unplacedParts, zoneRequired } from './refusals.js';
import { placeZone, regionOf } from './regions.js';
import { applyPart, inPart } from './times.js';

/** The product of every question's answers: one reading per combination. */
function combinations(f: Features): Array<{ times: Time[]; numdate: number; monthDayMode: number }> {
  const timeSets: Time[][] = [[]];
  for (const choice of f.times) {
    const alts = choice.question
      ? [choice.times[0]!, { ...choice.times[0]!, h: choice.times[0]!.h + 12 }]
      : choice.times;
    const nextSets: Time[][] = [];
    for (const set of timeSets) for (const alt of alts) nextSets.push([...set, alt]);
    timeSets.splice(0, timeSets.length, ...nextSets.slice(0, 8));
  }
  const numdates =
    f.date?.kind === 'numdate' || (f.starts && 'kind' in f.starts && f.starts.kind === 'numdate')
      ? [0, 1]
      : [0];
  const monthModes =
    f.monthDays.some((d) => d >= 29) && f.every?.unit !== 'year' && !f.yearlyDate ? [0, 1] : [0];
  const out: Array<{ times: Time[]; numdate: number; monthDayMode: number }> = [];
  for (const times of timeSets)
    for (const numdate of numdates)
      for (const monthDayMode of monthModes) out.push({ times, numdate, monthDayMode });
  // each reading is previewed: a sentence of many questions gets the first eight combinations
  return out.slice(0, 8);
}

export function assemble(f: Features, input: ReadInput, language: WordsLanguage): ReadOutcome {
  applyDayPart(f);
  for (const choice of f.times) if (choice.note) f.notes.push(choice.note);
  refuseUnsaidWhen(f);
  const kind = kindOf(f);
  if (kind === undefined) {
    throw new Unreadable('the words name no time, date, interval or delay');
  }
  // "every morning", "tomorrow morning": a part of the day is not a time (00:00 would be none of it)
  if (f.dayPart !== undefined && f.times.length === 0)
    throw new Unreadable(
      `the ${f.dayPart} is a part of the day, not a time: say the time ("every morning at 8")`,
    );
  unplacedParts(f, kind);
  const zone =
    f.zone ?? placeZone(f, input) ?? (input.timezone !== undefined ? zoneIdOf(input.timezone) : undefined);
  const needsZone = namesWallTime(f, kind);
  if (needsZone && zone === undefined) {
    if (input.timezone !== undefined)
      throw new CalendarError('timezone', `unknown time zone "${input.timezone}"`, 'UNKNOWN_ZONE');
    return zoneRequired(language);
  }
  if (
    f.zone === undefined &&
    zone !== undefined &&
    needsZone &&
    !f.notes.some((n) => n.startsWith(`in ${zone} (`))
  )
    f.notes.push(`in ${zone} (the request's timezone)`);
  let business: BusinessDays | undefined;
  if (f.business !== undefined || kind === 'BUSINESS_DAY') {
    const region = regionOf(f, input, zone!);
    if (region === undefined) return regionRequired(language);
    business = businessDaysOf(f, kind, region);
  } else if (f.region !== undefined)
    throw new Unreadable(
      `"${f.region.name}" names whose public holidays close a day, but the words name no business days: say "every business day", "the first business day of the month" or "except public holidays"`,
    );
  const questions = questionsOf(f, kind);
  const readings = combinations(f).map((combo) => {
    const reading = build(f, kind, zone, input.now, combo);
    if (business !== undefined) reading.options.business_days = business;
    return reading;
  });
  return {
    kind: 'read',
    language,
    readings,
    ...(questions.length > 0 ? { question: questions.join('; ') } : {}),
  };
}

/** A bare hour in a named part of the day asks nothing: "every evening at 6" is 18:00. */
function applyDayPart(f: Features): void {
  const part = f.dayPart;
  if (part === undefined) return;
  f.times = f.times.map((choice) => {
    if (!choice.question && !choice.note) {
      // a time said in full must be in the part of the day said with it: "every morning at 21:00",
      // "at 9am pm" say two things
      const h = choice.times[0]!.h;
      if (!inPart(h, part))
        throw new Unreadable(`${pad(h)}:${pad(choice.times[0]!.m)} is not in the ${part}: say one of them`);
      return choice;
    }
    const h = applyPart(choice.times[0]!.h, part);
    return h === undefined ? choice : { times: [{ ...choice.times[0]!, h }] };
  });
}

/** The questions a reading leaves: a bare hour, a date either way round, a day not every month has. */
function questionsOf(f: Features, kind: TimingKind): string[] {
  return [
    ...f.times.flatMap((t) => (t.question ? [t.question] : [])),
    ...(f.date?.kind === 'numdate'
      ? [
          `${f.date.a}/${f.date.b} is ${f.date.a} ${monthName(f.date.b)} or ${f.date.b} ${monthName(f.date.a)}: write the month as a word or the date as YYYY-MM-DD`,
        ]
      : []),
    ...(f.monthDays.some((d) => d >= 29) && kind === 'RECURRENCE' && !f.yearlyDate
      ? [
          `not every month has a ${englishOrdinal(Math.max(...f.monthDays))}: skip those months, or fire on their last day?`,
        ]
      : []),
  ];
}

/** Whether the timing is on a wall clock, which needs a zone. */
function namesWallTime(f: Features, kind: TimingKind): boolean {
  return (
    (kind === 'ONE_TIME' && f.instant === undefined) ||
    kind === 'RECURRENCE' ||
    kind === 'BUSINESS_DAY' ||
    f.business !== undefined ||
    kind === 'DEADLINE' ||
    f.hours !== undefined ||
    f.window !== undefined ||
    f.minuteOfHour !== undefined ||
    f.weekdays.length > 0
  );
}

function kindOf(f: Features): TimingKind | undefined {
  if (f.deadline) return 'DEADLINE';
  if (f.fixedDelay) return 'FIXED_DELAY';
  if (f.businessOrdinal !== undefined) return 'BUSINESS_DAY';
  const repeating =
    f.every !== undefined ||
    f.weekdaysRepeat ||
    f.ordWeekdays.length > 0 ||
    f.monthDays.length > 0 ||
    f.yearlyDate !== undefined;
  if (repeating) return f.every && !f.once && isClockUnit(f.every.unit) ? 'INTERVAL' : 'RECURRENCE';
  if (f.delay) return 'DELAY';
  if (f.date || f.times.length > 0 || f.instant || f.weekdays.length > 0) return 'ONE_TIME';
  return undefined;
}

const isClockUnit = (u: Unit) => u === 'second' || u === 'minute' || u === 'hour';
