// The reader's refusals: an error that names the words it is about, the answers that ask for a zone or a
// region, and the parts a timing of one kind would drop (refused, never dropped).
import type { Features, TimingKind } from './features.js';
import type { ReadOutcome, WordsLanguage } from './reading.js';
import type { Word } from './tokens.js';

/** A refusal; `words` are the words it is about (an event with no instant, a sign nothing reads). */
export class Unreadable extends Error {
  constructor(
    message: string,
    readonly words: Word[] = [],
  ) {
    super(message);
  }
}

export function regionRequired(language: WordsLanguage): ReadOutcome {
  return {
    kind: 'region-required',
    language,
    reason:
      'business days close on the public holidays of a region, and the words name none: name the country in the text ("in Latvia", "(LV)", "в Латвии") or pass region (LV, DE-BY); the zone names no single country',
  };
}

export function zoneRequired(language: WordsLanguage): ReadOutcome {
  return {
    kind: 'zone-required',
    language,
    reason:
      'the words name a wall-clock time but no zone: name one in the text ("in Europe/Riga", "in Riga") or pass timezone',
  };
}

/**
 * Parts the words name that the timing of `kind` would not carry: each is a refusal, never dropped
 * ("every day at 9:00 on 5 January", "every hour on the 15th of every month", "deadline every day at 9").
 */
export function unplacedParts(f: Features, kind: TimingKind): void {
  const found: Array<[string, boolean]> = [
    ['a date', f.date !== undefined],
    ['an instant', f.instant !== undefined],
    ['a delay', f.delay !== undefined],
    ['reminders', f.reminders.length > 0],
    ['a time of day', f.times.length > 0],
    ['days of the week', f.weekdays.length > 0],
    ['days of the month', f.monthDays.length > 0 || f.ordWeekdays.length > 0 || f.yearlyDate !== undefined],
    ['a repeating period', f.every !== undefined || f.weekdaysRepeat],
    ['hours', f.hours !== undefined],
    ['a minute past the hour', f.minuteOfHour !== undefined],
    ['"once"', f.once && f.perCount === undefined],
    ['a count of runs', f.maxCount !== undefined],
    ['a start or an end', f.starts !== undefined || f.ends !== undefined],
  ];
  // "every year on 5 September": the date without its year is the rule's day (a year would be dropped)
  const recurrenceDate = f.every?.unit === 'year' && f.date?.kind === 'ymd' && f.date.y === undefined;
  const allowed: Record<string, string[]> = {
    DEADLINE: ['a date', 'a time of day', 'reminders', 'days of the week', 'a repeating period'],
    FIXED_DELAY: ['a repeating period', 'a count of runs', 'a start or an end'],
    DELAY: ['a delay', 'an instant'],
    ONE_TIME: ['a date', 'an instant', 'a time of day', 'days of the week', '"once"'],
    INTERVAL: [
      'a start or an end',
      'a repeating period',
      'a time of day',
      'days of the week',
      'hours',
      'a minute past the hour',
      'a count of runs',
    ],
    BUSINESS_DAY: ['a start or an end', 'a time of day', 'a repeating period', 'a count of runs'],
    RECURRENCE: [
      'a start or an end',
      ...(recurrenceDate ? ['a date'] : []),
      'a time of day',
      'days of the week',
      'days of the month',
      'a repeating period',
      'hours',
      'a minute past the hour',
      'a count of runs',
    ],
  };
  const extra = found.filter(([name, is]) => is && !allowed[kind]!.includes(name)).map(([name]) => name);
  // a deadline is one instant: "every" on it is a repeating deadline, which is not a timing
  if (kind === 'DEADLINE' && (f.every !== undefined || f.weekdaysRepeat)) extra.push('a repeating period');
  // an instant is the whole of one time: a date, a time or a day beside it would be dropped
  if (kind === 'ONE_TIME' && f.instant !== undefined) {
    if (f.date !== undefined) extra.push('a date');
    if (f.times.length > 0) extra.push('a time of day');
    if (f.weekdays.length > 0) extra.push('days of the week');
  }
  if (extra.length > 0) {
    const what: Record<string, string> = {
      DEADLINE: 'a deadline',
      FIXED_DELAY: 'an interval after each run',
      DELAY: 'a delay',
      ONE_TIME: 'one time',
      INTERVAL: 'an interval',
      RECURRENCE: 'a repeating rule',
      BUSINESS_DAY: 'the Nth business day',
    };
    const parts = [...new Set(extra)];
    throw new Unreadable(
      `${parts.join(', ')} cannot be part of ${what[kind] ?? kind}${parts.includes('a date') ? ': say "starting …" or "until …" for the date a repeating schedule starts or ends' : ': say one schedule'}`,
    );
  }
}

/** Words that say how often but not when: "on the 15th" alone, "twice a day" with one time. */
export function refuseUnsaidWhen(f: Features): void {
  if (f.looseMonthDay !== undefined && f.every?.unit !== 'month' && f.every?.unit !== 'quarter')
    throw new Unreadable(
      `"${f.looseMonthDay}" alone does not say whether it repeats: say "of every month", or the month ("on the ${f.looseMonthDay} of January")`,
    );
  if (f.perCount !== undefined) {
    const { n, unit, raw } = f.perCount;
    const distinct = new Set(f.times.map((t) => `${t.times[0]!.h}:${t.times[0]!.m}:${t.times[0]!.s}`)).size;
    if (unit !== 'day' || distinct !== n)
      throw new Unreadable(
        `"${raw}" (per ${unit}) says how often but not when: name ${n === 1 ? 'the time' : `the ${n} times`} of day ("twice a day at 9:00 and 21:00")${unit === 'day' ? '' : '; for days, name the days ("every Monday and Thursday")'}`,
      );
  }
}
