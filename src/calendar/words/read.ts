// Words → timings (docs/words.md "How it decides"). A slot filler: the scan finds the parts of a schedule
// anywhere in the sentence (times, dates, days, frequencies, zones, bounds, delays, reminders) and marks the
// words it used; the assembly builds the timing from what was found. A word nothing used is an error naming
// it. Every choice the reader makes is a note; a choice it will not make is several readings.
import { REGION_RE } from '../business-days.js';
import { DEFAULT_DST, resolveWall } from '../dst.js';
import { compileCalendar } from '../engine.js';
import { CalendarError } from '../errors.js';
import { DAY, daysInMonth, formatInstantAt, isoWeekday, partsOf, wallFrom } from '../floating.js';
import type { CalendarOptions, Timing, Weekday } from '../timing.js';
import { checkZone, zoneFor, zoneRules } from '../zone.js';
import { english, englishOrdinal, MONTH_NAMES } from './en.js';
import type { Lexicon, PartOfDay, Unit } from './lexicon.js';
import { russian } from './ru.js';
import { type Token, tokenize, type Word } from './tokens.js';

export type WordsLanguage = 'en' | 'ru';

/** One reading of a sentence: the timing, the calendar options it sets, and what was chosen. */
export interface Reading {
  timing: Timing;
  options: Pick<
    CalendarOptions,
    'timezone' | 'window' | 'starts_at' | 'ends_at' | 'max_count' | 'dst' | 'business_days'
  >;
  notes: string[];
}

/**
 * The regions whose public holidays the holiday data knows, given to the reader (this module imports no
 * data): src/model/interpret.ts builds it from the pinned `date-holidays`.
 */
export interface RegionLookup {
  /** the ISO code of a country named in `language` ("Latvia", "United States of America"), any case */
  byName(name: string, language: WordsLanguage): string | undefined;
  /** the one country whose holiday data uses `zone` (Europe/Riga → LV); undefined for none or several */
  byZone(zone: string): string | undefined;
  /** the zones of a region's country in the data (LV → Europe/Riga) */
  zones(region: string): readonly string[];
  /** whether the data knows the region (a country, or a country and its subdivision: LV, DE-BY) */
  has(region: string): boolean;
}

export interface ReadInput {
  now: string;
  timezone?: string;
  language?: WordsLanguage;
  /** the region of business days when the words name none (LV, DE-BY) */
  region?: string;
  regions?: RegionLookup;
}

export type ReadOutcome =
  | { kind: 'read'; language: WordsLanguage; readings: Reading[]; question?: string }
  | { kind: 'unread'; language: WordsLanguage; reason: string; unread: { word: string; offset: number }[] }
  | { kind: 'zone-required'; language: WordsLanguage; reason: string }
  | { kind: 'region-required'; language: WordsLanguage; reason: string };

type BusinessDays = NonNullable<CalendarOptions['business_days']>;

const LEXICONS: Record<WordsLanguage, Lexicon> = { en: english, ru: russian };
const WEEKDAY_ORDER: Weekday[] = ['MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU'];
const WORK: Weekday[] = ['MO', 'TU', 'WE', 'TH', 'FR'];
const WEEKEND: Weekday[] = ['SA', 'SU'];
const BUSINESS = { from: { h: 9, m: 0, s: 0 }, to: { h: 18, m: 0, s: 0 } };

interface Time {
  h: number;
  m: number;
  s: number;
}
/** A time of day, or the times a bare hour may mean (the reader asks which). */
type TimeChoice = { times: Time[]; question?: string; note?: string };
type DateFeature =
  | { kind: 'ymd'; y?: number; mo: number; d: number }
  | { kind: 'relative'; days: number; word: string }
  | { kind: 'weekday'; wd: Weekday; allowToday: boolean }
  | { kind: 'numdate'; a: number; b: number; y?: number }
  | { kind: 'dst-change' };
type Amounts = Partial<Record<Unit, number>>;

interface Features {
  zone?: string;
  times: TimeChoice[];
  date?: DateFeature;
  /** An ISO date-time with an offset: an instant. */
  instant?: string;
  every?: { unit: Unit; n: number };
  weekdays: Weekday[];
  weekdaysRepeat: boolean;
  ordWeekdays: Array<{ ord: number; wd: Weekday }>;
  monthDays: number[];
  yearlyDate?: { mo: number; d: number };
  once: boolean;
  delay?: Amounts;
  anchor?: string;
  fixedDelay: boolean;
  /** A part of the day said apart from the hour ("every morning at 8", "Sunday night at 11"). */
  dayPart?: PartOfDay;
  /** Days taken out ("every day except weekends"); `excepting` while the words after "except" are read. */
  exceptDays: Weekday[];
  excepting: boolean;
  /** An explicit calendar window ("only from 09:00 to 18:00 on weekdays, skipped outside"). */
  window?: { from?: Time; to?: Time; days: Weekday[]; outside: 'SKIP' | 'DEFER' };
  /** "counted from the schedule's creation": an interval of periods keeps the creation's parity. */
  fromCreation: boolean;
  deadline: boolean;
  reminders: Amounts[];
  hours?: { from: Time; to: Time; business: boolean; inclusive: boolean };
  starts?: DateFeature | { kind: 'instant'; iso: string };
  ends?: DateFeature | { kind: 'instant'; iso: string } | { kind: 'month'; mo: number; y?: number };
  maxCount?: number;
  /** A DST policy an explanation states ("; a time that does not exist is skipped"). */
  dst?: Reading['options']['dst'];
  /** "every hour at :15", "on the half hour", "в 15 минут каждого часа": the minute past each hour. */
  minuteOfHour?: number;
  /** "on the 15th" with no "of every month": a day of the month that does not say it repeats. */
  looseMonthDay?: string;
  /** "twice a day", "3 times a day": how many times of day the words must name. */
  perCount?: { n: number; unit: Unit; raw: string };
  /**
   * Business days (issue 43): the days the region's calendar closes are skipped, or rolled. `word`: a
   * business-day word was said ("every business day"), not only "except public holidays".
   */
  business?: { roll?: 'FORWARD' | 'BACKWARD'; word: boolean; clause?: Partial<BusinessDays> };
  /** "the first business day of the month", "the second to last working day of the quarter" */
  businessOrdinal?: { n: number; months?: number[]; raw: string };
  /** "except public holidays", "кроме праздников" */
  exceptHolidays: boolean;
  /** the country whose holidays close a day: a name ("in Latvia": a place too) or a code ("(LV)") */
  region?: { code: string; place: boolean; name: string };
  notes: string[];
}

/** A refusal; `words` are the words it is about (an event with no instant, a sign nothing reads). */
class Unreadable extends Error {
  constructor(
    message: string,
    readonly words: Word[] = [],
  ) {
    super(message);
  }
}

/** Reads `text` (English or Russian) into readings of structured timing; never throws for any text. */
export function readSchedule(text: string, input: ReadInput): ReadOutcome {
  const language: WordsLanguage = input.language ?? (/[\u0400-\u04FF]/.test(text) ? 'ru' : 'en');
  try {
    return readIn(text, input, language);
  } catch (e) {
    if (e instanceof Unreadable || e instanceof CalendarError) {
      const unread = e instanceof Unreadable ? e.words.map((w) => ({ word: w.raw, offset: w.offset })) : [];
      return { kind: 'unread', language, reason: e.message, unread };
    }
    throw e;
  }
}

const zoneIdOf = (id: string): string | undefined => {
  try {
    return checkZone('timezone', id);
  } catch {
    return undefined;
  }
};

/** The DST clauses an explanation ends with (explain.ts): they restate the policy, so reading drops them. */
const DST_CLAUSE = /;\s*\d{2}:\d{2} on (?:spring-forward|fall-back) days [^;]*/gi;

/**
 * The clauses an explanation gives a non-default DST policy in (explain.ts): read back as that policy, so
 * that a reading explained is the same reading when read again.
 */
const DST_POLICY =
  /;\s*(?:a time that does not exist is (skipped|moved to the first valid time)|a repeated time fires (twice|at the second))(?=\s*(?:;|$))/gi;

/**
 * The clause an explanation says a definition's business days in (explain.ts): "; business days of LV",
 * then ", no weekend" or ", weekend Friday and Saturday", ", also closed on 2027-01-05 and …", ", also open
 * on …", and for a timing of another kind ": a run on a closed day is skipped" (or "moves to the next
 * business day", "moves to the previous business day"). Read back as those options.
 */
const BUSINESS_CLAUSE =
  /;\s*business days of ([A-Z]{2}(?:-[A-Z0-9]{1,3})?)((?:,\s*(?:no weekend|weekend (?:[A-Za-z]+(?:,\s*|\s+and\s+))*[A-Za-z]+|also (?:closed|open) on (?:\d{4}-\d{2}-\d{2}(?:,\s*|\s+and\s+))*\d{4}-\d{2}-\d{2}))*)(?::\s*a run on a closed day (is skipped|moves to the next business day|moves to the previous business day))?(?=\s*(?:;|$))/g;

function businessClause(region: string, more: string, roll: string | undefined): Partial<BusinessDays> {
  const clause: Partial<BusinessDays> = { region };
  for (const part of more.split(/,\s*(?=no weekend|weekend |also )/)) {
    const p = part.replace(/^,\s*/, '').trim();
    if (p === '') continue;
    if (p === 'no weekend') clause.weekend = [];
    else if (p.startsWith('weekend ')) {
      const days = p
        .slice(8)
        .split(/,\s*|\s+and\s+/)
        .map((d) => {
          const tok = english.words[d.toLowerCase()];
          return tok?.k === 'weekday' ? tok.v : undefined;
        });
      if (days.some((d) => d === undefined)) throw new Unreadable(`"${p}" names no days of the week`);
      clause.weekend = days as Weekday[];
    } else {
      const dates = p.replace(/^also (closed|open) on /, '').split(/,\s*|\s+and\s+/);
      if (p.startsWith('also closed')) clause.closed = dates;
      else clause.open = dates;
    }
  }
  if (roll !== undefined && roll !== 'is skipped')
    clause.roll = roll.includes('next') ? 'FORWARD' : 'BACKWARD';
  return clause;
}

function readIn(original: string, input: ReadInput, language: WordsLanguage): ReadOutcome {
  let dst: Reading['options']['dst'];
  let clause: Partial<BusinessDays> | undefined;
  const text = original
    .replace(BUSINESS_CLAUSE, (s, region: string, more: string, roll: string | undefined) => {
      if (clause) throw new Unreadable('two business-day calendars named');
      clause = businessClause(region, more, roll);
      return ' '.repeat(s.length);
    })
    .replace(DST_CLAUSE, (s) => ' '.repeat(s.length))
    .replace(DST_POLICY, (s, gap: string | undefined, fold: string | undefined) => {
      dst = {
        ...dst,
        ...(gap ? { gap: gap.toLowerCase() === 'skipped' ? 'SKIP' : 'NEXT_VALID' } : {}),
        ...(fold ? { fold: fold.toLowerCase() === 'twice' ? 'BOTH' : 'LAST' } : {}),
      };
      return ' '.repeat(s.length);
    });
  const literal = readLiteral(text, input, language, clause);
  if (literal) return literal;
  const words = tokenize(text, LEXICONS[language], zoneIdOf);
  if (words.length === 0) {
    return { kind: 'unread', language, reason: 'the text has no words to read', unread: [] };
  }
  const f = scan(words, language, input.regions);
  if (clause) f.business = { ...f.business, word: f.business?.word ?? false, clause };
  const unread = words.filter((w) => !w.used && !ignorable(w.tok));
  if (unread.length > 0) {
    return {
      kind: 'unread',
      language,
      reason: `could not place ${unread.map((w) => `"${w.raw}"`).join(', ')} in a schedule (docs/words.md lists what is read)`,
      unread: unread.map((w) => ({ word: w.raw, offset: w.offset })),
    };
  }
  for (const w of words) if (w.corrected) f.notes.push(`read "${w.raw}" as "${w.corrected}"`);
  if (dst) f.dst = dst;
  return assemble(f, input, language);
}

function ignorable(tok: Token): boolean {
  if (tok.k === 'filler' || tok.k === 'punct') return true;
  return tok.k === 'kw' && ['at', 'on', 'of', 'and', 'in', 'by', 'time-word', 'once', 'this'].includes(tok.v);
}

// ---------------------------------------------------------------------------------------------------------
// literal rules: cron and RFC 5545 text pass through as they are

function readLiteral(
  text: string,
  input: ReadInput,
  language: WordsLanguage,
  clause: Partial<BusinessDays> | undefined,
): ReadOutcome | undefined {
  const cron = /^\s*cron\s*:?\s*((?:\S+\s+){4,5}?\S+)(?=\s*$|\s+(?:in|по|в|\p{L}|\())/iu.exec(text);
  const isRule = /(^|\s|:)FREQ=|RRULE:|DTSTART/i.test(text);
  if (!cron && !isRule) return undefined;
  let body: string;
  let rest: string;
  if (cron) {
    body = cron[1]!.trim();
    rest = text.slice(cron.index + cron[0].length);
  } else if (/DTSTART|\n/.test(text.trim())) {
    // an RFC 5545 block: its lines are the rule; a zone may follow on the last line
    const tail = /\s+((?:in|по|в)\s+[^\n=:;]+|[A-Za-z_]+\/[A-Za-z_/+-]+)\s*$/iu.exec(text);
    body = (tail ? text.slice(0, tail.index) : text).trim();
    rest = tail ? tail[1]! : '';
  } else {
    const m = /^\s*(?:RRULE:)?(\S*FREQ=\S+)/i.exec(text);
    if (!m) return undefined;
    body = m[1]!;
    rest = text.slice(m.index + m[0].length);
  }
  let zone: string | undefined;
  const words = tokenize(rest, LEXICONS[language], zoneIdOf);
  // the bounds an explanation writes after a literal rule: "starting <instant>", "until <instant>",
  // "10 times", "counted from the schedule's creation" (a literal rule's own count)
  const options: Reading['options'] = {};
  for (let k = 0; k < words.length; k++) {
    const w = words[k]!;
    const next = words[k + 1]?.tok;
    if (w.tok.k === 'zone') {
      zone = w.tok.v;
      w.used = true;
    } else if (
      w.tok.k === 'kw' &&
      (w.tok.v === 'starting' || w.tok.v === 'until') &&
      next?.k === 'iso' &&
      next.offset
    ) {
      if (w.tok.v === 'starting') options.starts_at = next.text;
      else options.ends_at = next.text;
      w.used = true;
      words[k + 1]!.used = true;
      k++;
    } else if (
      w.tok.k === 'num' &&
      !w.tok.article &&
      ((next?.k === 'kw' && next.v === 'times') || words[k + 1]?.raw === 'time')
    ) {
      options.max_count = w.tok.v;
      w.used = true;
      words[k + 1]!.used = true;
      k++;
    } else if (w.tok.k === 'kw' && w.tok.v === 'from-creation') w.used = true;
  }
  const unread = words.filter((w) => !w.used && !ignorable(w.tok));
  if (unread.length > 0) {
    const offset = text.length - rest.length;
    return {
      kind: 'unread',
      language,
      reason: `after a literal rule only a zone is read; could not place ${unread.map((w) => `"${w.raw}"`).join(', ')}`,
      unread: unread.map((w) => ({ word: w.raw, offset: offset + w.offset })),
    };
  }
  const tzid = /TZID=([^:;\s]+)/.exec(body)?.[1];
  zone ??= tzid ? zoneIdOf(tzid) : undefined;
  zone ??= input.timezone;
  if (!zone) return zoneRequired(language);
  const timing: Timing = cron
    ? { kind: 'CRON', expression: body, timezone: zone }
    : { kind: 'RECURRENCE', rule: body, timezone: zone };
  if (clause?.region !== undefined) options.business_days = clause as BusinessDays;
  return { kind: 'read', language, readings: [{ timing, options, notes: [] }] };
}

function regionRequired(language: WordsLanguage): ReadOutcome {
  return {
    kind: 'region-required',
    language,
    reason:
      'business days close on the public holidays of a region, and the words name none: name the country in the text ("in Latvia", "(LV)", "в Латвии") or pass region (LV, DE-BY); the zone names no single country',
  };
}

function zoneRequired(language: WordsLanguage): ReadOutcome {
  return {
    kind: 'zone-required',
    language,
    reason:
      'the words name a wall-clock time but no zone: name one in the text ("in Europe/Riga", "in Riga") or pass timezone',
  };
}

// ---------------------------------------------------------------------------------------------------------
// the scan

class Cursor {
  constructor(
    readonly words: Word[],
    readonly language: WordsLanguage = 'en',
    readonly regions?: RegionLookup,
    public i = 0,
  ) {}
  tok(at = this.i): Token | undefined {
    return this.words[at]?.tok;
  }
  is(at: number, k: string, v?: string | number): boolean {
    const t = this.tok(at) as { k: string; v?: unknown } | undefined;
    return t !== undefined && t.k === k && (v === undefined || t.v === v);
  }
  kw(at: number, ...vs: string[]): boolean {
    const t = this.tok(at);
    return t?.k === 'kw' && vs.includes(t.v);
  }
  use(from: number, to: number): void {
    for (let j = from; j < to; j++) if (this.words[j]) this.words[j]!.used = true;
  }
  raw(at: number): string {
    return this.words[at]?.raw.toLowerCase() ?? '';
  }
}

function scan(words: Word[], language: WordsLanguage, regions?: RegionLookup): Features {
  const f: Features = {
    times: [],
    weekdays: [],
    weekdaysRepeat: false,
    ordWeekdays: [],
    monthDays: [],
    once: false,
    fixedDelay: false,
    fromCreation: false,
    exceptDays: [],
    excepting: false,
    deadline: false,
    reminders: [],
    exceptHolidays: false,
    notes: [],
  };
  const c = new Cursor(words, language, regions);
  let reminding = false;
  for (let i = 0; i < words.length; i++) {
    if (words[i]!.used) continue;
    const t = words[i]!.tok;
    const next = scanAt(c, i, f, reminding);
    if (next !== undefined) {
      c.use(i, next);
      i = next - 1;
      continue;
    }
    if (t.k === 'kw' && t.v === 'remind') {
      reminding = true;
      words[i]!.used = true;
    }
  }
  return f;
}

/** Tries every part at `i`; returns the index after what it used, or undefined. */
function scanAt(c: Cursor, i: number, f: Features, reminding: boolean): number | undefined {
  const t = c.tok(i)!;
  // zone: "in Riga", "по Риге", "по московскому времени", "по времени Риги", "Riga time", "(Europe/Riga)"
  {
    let j = i;
    if (c.kw(j, 'in', 'at', 'by')) j++;
    if (c.kw(j, 'time-word') && j > i) j++;
    if (c.is(j, 'zone')) {
      const zone = (c.tok(j) as { v: string }).v;
      if (f.zone !== undefined && f.zone !== zone)
        throw new Unreadable(`two zones named: ${f.zone} and ${zone}`);
      f.zone = zone;
      j++;
      if (c.kw(j, 'time-word')) j++;
      return j;
    }
  }
  // a country whose public holidays close a business day: "in Latvia", "(LV)", "Latvian holidays", "в Латвии"
  {
    const region = regionAt(c, i);
    if (region) {
      setRegion(f, region);
      return region.next;
    }
  }
  // "the first weekday of the month": a weekday is any Monday to Friday, so it numbers none
  if ((t.k === 'num' || t.k === 'ord' || t.k === 'ordnum') && c.is(i + 1, 'weekdays', 'work')) {
    throw new Unreadable(
      `"${c.words[i]!.raw} ${c.words[i + 1]!.raw}": weekdays are not counted or numbered; say "the first business day of the month" (its region's public holidays closed) or the days ("every weekday", "on the 1st of every month")`,
      [c.words[i]!, c.words[i + 1]!],
    );
  }
  // "in 3 business days", "через 3 рабочих дня": counting business days from now (or from an event) is not read
  if (t.k === 'num' && c.is(i + 1, 'bday')) {
    throw new Unreadable(
      `"${c.words[i]!.raw} ${c.words[i + 1]!.raw}": counting business days is not read; say the day ("the third business day of the month") or create the timing`,
      [c.words[i]!, c.words[i + 1]!],
    );
  }
  // "the first business day of the month", "the second to last working day of the quarter", "the last
  // working day before the 25th", "в предпоследний рабочий день месяца"
  if (t.k === 'ord' || t.k === 'ordnum') {
    let j = i;
    let n = t.v;
    if (n >= 2 && c.kw(j + 1, 'to') && c.is(j + 2, 'ord', -1)) {
      n = -n;
      j += 2;
    }
    if (c.is(j + 1, 'bday')) return businessOrdinal(c, i, j + 2, n, f);
  }
  {
    const moh = minuteOfHour(c, i, false);
    if (moh) {
      setMinuteOfHour(f, moh.m, c.words[i]!);
      return moh.next;
    }
  }
  if (t.k === 'kw') {
    switch (t.v) {
      case 'on': {
        // "on the hour", "on the half hour"
        let j = i + 1;
        if (c.is(j, 'filler') && c.raw(j) === 'the') j++;
        const u = c.tok(j);
        if (u?.k === 'unit' && u.v === 'hour' && !u.plural) {
          setMinuteOfHour(f, 0, c.words[i]!);
          return j + 1;
        }
        if (u?.k === 'half-hour') {
          setMinuteOfHour(f, 30, c.words[i]!);
          return j + 1;
        }
        return undefined;
      }
      case 'half':
      case 'quarter-hour':
      case 'less': {
        const tl = timeList(c, i, true);
        if (tl) {
          f.times.push(...tl.choices);
          return tl.next;
        }
        return undefined;
      }
      case 'from-creation':
        f.fromCreation = true;
        return i + 1;
      case 'only':
        f.window = { days: [], outside: 'DEFER' };
        return i + 1;
      case 'except': {
        // "except weekends", "кроме среды": days must follow, else "except" says nothing read
        let j = i + 1;
        if (c.kw(j, 'on')) j++;
        if (c.is(j, 'filler') && c.raw(j) === 'the') j++;
        // "except public holidays", "кроме праздников", "except Latvian holidays": the region's holidays
        if (c.is(j, 'holidays')) {
          exceptHolidays(f);
          return j + 1;
        }
        const region = regionAt(c, j);
        if (region?.holidays) {
          setRegion(f, region);
          exceptHolidays(f);
          return region.next;
        }
        if (!(c.is(j, 'weekday') || c.is(j, 'weekdays'))) return undefined;
        f.excepting = true;
        return j;
      }
      case 'dst-day':
        setDate(f, { kind: 'dst-change' });
        return i + 1;
      case 'window-skip':
      case 'window-defer':
        if (!f.window) return undefined;
        f.window.outside = t.v === 'window-skip' ? 'SKIP' : 'DEFER';
        return i + 1;
      case 'deadline':
        f.deadline = true;
        // "the contract's deadline": the deadline's name, not a part of the schedule
        for (let k = i - 1; k >= 0 && c.tok(k)?.k === 'unknown' && /'s$|’s$/i.test(c.words[k]!.raw); k--)
          c.words[k]!.used = true;
        return i + 1;
      case 'once': {
        f.once = true;
        const per = perPeriod(c, i + 1, f);
        if (per !== undefined) {
          f.perCount = { n: 1, unit: f.every!.unit, raw: c.words[i]!.raw };
          return per;
        }
        return i + 1;
      }
      case 'business-hours':
        f.hours = { ...BUSINESS, business: true, inclusive: false };
        return i + 1;
      case 'roll-forward':
      case 'roll-backward':
        // "on the 1st of every month, or the next business day": a closed day's run moves
        setRoll(f, t.v === 'roll-forward' ? 'FORWARD' : 'BACKWARD', c.words[i]!);
        return i + 1;
      case 'every':
        return scanEvery(c, i + 1, f);
      case 'per': {
        const d = duration(c, i + 1, true);
        if (!d) return undefined;
        setEvery(f, d.amounts);
        return d.next;
      }
      case 'daily':
      case 'weekly':
      case 'monthly':
      case 'yearly':
      case 'hourly':
      case 'quarterly':
      case 'fortnightly': {
        const every: Record<string, { unit: Unit; n: number }> = {
          daily: { unit: 'day', n: 1 },
          weekly: { unit: 'week', n: 1 },
          monthly: { unit: 'month', n: 1 },
          yearly: { unit: 'year', n: 1 },
          hourly: { unit: 'hour', n: 1 },
          quarterly: { unit: 'quarter', n: 1 },
          fortnightly: { unit: 'week', n: 2 },
        };
        period(f, every[t.v]!);
        return i + 1;
      }
      case 'twice': {
        // "twice" says how often only with its period ("twice a day"); alone it is not placed
        const per = perPeriod(c, i + 1, f);
        if (per === undefined) return undefined;
        f.perCount = { n: 2, unit: f.every!.unit, raw: c.words[i]!.raw };
        return per;
      }
      case 'in':
      case 'delay': {
        const d = duration(c, i + 1, t.v === 'delay');
        if (!d) return undefined;
        // "in 20 minutes after …" is read by the duration's own `after`
        const after = afterDuration(c, d.next, f, d.amounts);
        if (after !== undefined) return after;
        f.delay = d.amounts;
        return d.next;
      }
      case 'before-prefix': {
        // за день, за час: a reminder before the deadline
        const d = duration(c, i + 1, true);
        if (!d) return undefined;
        f.reminders.push(d.amounts);
        let j = d.next;
        if (c.kw(j, 'until')) j++; // за день до дедлайна
        if (c.kw(j, 'deadline')) {
          j++;
        }
        return j;
      }
      case 'from':
      case 'between':
      case 'starting': {
        // "from Monday to Friday", "с понедельника по пятницу": the weekday part reads the range
        if (
          t.v === 'from' &&
          c.is(i + 1, 'weekday') &&
          c.kw(i + 2, 'to', 'until', 'by') &&
          c.is(i + 3, 'weekday')
        )
          return i + 1;
        const range = t.v === 'starting' ? undefined : hoursRange(c, i + 1);
        if (range) {
          if (f.window) {
            f.window.from = range.hours.from;
            f.window.to = range.hours.to;
          } else f.hours = { ...range.hours, business: false, inclusive: false };
          return range.next;
        }
        const when = dateOrInstant(c, i + 1);
        if (when) {
          f.starts = when.value;
          return when.next;
        }
        // "from Monday", "starting Friday": the first such day after today, as "on Monday" is
        if (t.v !== 'between' && c.is(i + 1, 'weekday') && !c.kw(i + 2, 'to', 'until', 'by')) {
          f.starts = { kind: 'weekday', wd: (c.tok(i + 1) as { v: Weekday }).v, allowToday: false };
          return i + 2;
        }
        return undefined;
      }
      case 'until': {
        const when = dateOrInstant(c, i + 1);
        if (when) {
          f.ends = when.value;
          return when.next;
        }
        if (c.is(i + 1, 'month')) {
          let j = i + 2;
          const mo = (c.tok(i + 1) as { v: number }).v;
          const y = yearAt(c, j);
          if (y) j = y.next;
          f.ends = { kind: 'month', mo, ...(y ? { y: y.year } : {}) };
          return j;
        }
        return undefined;
      }
      case 'today':
      case 'tomorrow':
      case 'day-after-tomorrow':
      case 'next':
      case 'this': {
        const d = date(c, i);
        if (!d) return undefined;
        setDate(f, d.value);
        return d.next;
      }
      case 'noon':
      case 'midnight':
      case 'at': {
        const tl = timeList(c, t.v === 'at' ? i + 1 : i, t.v === 'at');
        if (tl) {
          f.times.push(...tl.choices);
          return tl.next;
        }
        // "at :15", "at 15 minutes past the hour", "в 15 минут каждого часа"
        const moh = t.v === 'at' ? minuteOfHour(c, i + 1, true) : undefined;
        if (moh) {
          setMinuteOfHour(f, moh.m, c.words[i + 1]!);
          return moh.next;
        }
        return undefined;
      }
      default:
        return undefined;
    }
  }
  // a number or an amount: "10 times", "48 hours after …", "a day and an hour before", "15 числа"
  if (t.k === 'num' && !t.article && (c.kw(i + 1, 'times') || (t.v === 1 && c.raw(i + 1) === 'time'))) {
    // "3 times a day" is a frequency, told by its times; "10 times" a count
    const per = perPeriod(c, i + 2, f);
    if (per !== undefined) {
      f.perCount = { n: t.v, unit: f.every!.unit, raw: `${c.words[i]!.raw} ${c.words[i + 1]!.raw}` };
      return per;
    }
    f.maxCount = t.v;
    return i + 2;
  }
  if ((t.k === 'num' || t.k === 'ordnum' || (t.k === 'ord' && t.v >= 1)) && c.kw(i + 1, 'day-of-month')) {
    // "15 числа", "первого числа": a day of every month (of every quarter when it says so)
    f.monthDays.push(t.v);
    return ofMonth(c, i + 2, f);
  }
  if (t.k === 'num' || t.k === 'decimal' || t.k === 'half-hour' || t.k === 'and-a-half' || t.k === 'unit') {
    const d = duration(c, i, reminding || t.k === 'unit', undefined, reminding);
    if (d) {
      const after = afterDuration(c, d.next, f, d.amounts);
      if (after !== undefined) return after;
      if (c.kw(d.next, 'before') || (reminding && f.deadline)) {
        f.reminders.push(d.amounts);
        return c.kw(d.next, 'before') ? d.next + 1 : d.next;
      }
      if (c.kw(d.next, 'and') && reminding) {
        f.reminders.push(d.amounts);
        return d.next + 1;
      }
    }
  }
  // dates and times
  {
    const d = date(c, i);
    if (d) {
      const tAfter = timeList(c, d.next, false);
      setDate(f, d.value);
      if (tAfter) {
        f.times.push(...tAfter.choices);
        return tAfter.next;
      }
      return d.next;
    }
  }
  {
    const tl = timeList(c, i, false);
    if (tl) {
      f.times.push(...tl.choices);
      return tl.next;
    }
  }
  if (t.k === 'iso' && t.offset) {
    f.instant = t.text;
    return i + 1;
  }
  // days: "Monday and Thursday", "on Mondays", "по понедельникам", "on weekdays"
  if (t.k === 'weekday' || t.k === 'weekdays') {
    let j = i;
    // "по пн, ср, пт": days after по repeat, as "по понедельникам" does
    if (c.kw(i - 1, 'by') && !f.excepting && f.window?.from === undefined) f.weekdaysRepeat = true;
    while (c.is(j, 'weekday') || c.is(j, 'weekdays')) {
      const w = c.tok(j) as Token & { k: 'weekday' | 'weekdays' };
      if (w.k === 'weekday' && c.kw(j + 1, 'to', 'until', 'by') && c.is(j + 2, 'weekday')) {
        // "Monday to Friday", "Monday through Friday", "с понедельника по пятницу": a range of days repeats
        const from = WEEKDAY_ORDER.indexOf(w.v);
        const to = WEEKDAY_ORDER.indexOf((c.tok(j + 2) as { v: Weekday }).v);
        const days: Weekday[] = [];
        for (let d = from; ; d = (d + 1) % 7) {
          days.push(WEEKDAY_ORDER[d]!);
          if (d === to) break;
        }
        if (f.excepting) f.exceptDays.push(...days);
        else if (f.window?.from !== undefined) f.window.days.push(...days);
        else {
          f.weekdays.push(...days);
          f.weekdaysRepeat = true;
        }
        j += 3;
        if ((c.kw(j, 'and') || c.is(j, 'punct', ',')) && (c.is(j + 1, 'weekday') || c.is(j + 1, 'weekdays')))
          j++;
        continue;
      }
      if (f.excepting) {
        f.exceptDays.push(...(w.k === 'weekday' ? [w.v] : w.v === 'work' ? WORK : WEEKEND));
      } else if (f.window?.from !== undefined) {
        f.window.days.push(...(w.k === 'weekday' ? [w.v] : w.v === 'work' ? WORK : WEEKEND));
      } else if (w.k === 'weekday') {
        f.weekdays.push(w.v);
        if (w.plural) f.weekdaysRepeat = true;
      } else {
        f.weekdays.push(...(w.v === 'work' ? WORK : WEEKEND));
        const rawWord = c.raw(j);
        if (
          !/^(weekday|workday|weekend|будний|выходной|рабочий день|business day|working day)$/.test(rawWord)
        )
          f.weekdaysRepeat = true;
      }
      j++;
      if ((c.kw(j, 'and') || c.is(j, 'punct', ',')) && (c.is(j + 1, 'weekday') || c.is(j + 1, 'weekdays')))
        j++;
    }
    // "except weekends and public holidays"
    if (f.excepting && (c.kw(j, 'and') || c.is(j, 'punct', ',')) && c.is(j + 1, 'holidays')) {
      exceptHolidays(f);
      j += 2;
    }
    f.excepting = false;
    return j;
  }
  // "every business day", "on business days", "по рабочим дням", "в рабочие дни": Monday to Friday, less the
  // region's public holidays
  if (t.k === 'bday') {
    if (f.excepting || f.window !== undefined)
      throw new Unreadable(
        `"${c.words[i]!.raw}" ${f.excepting ? 'excepted' : 'in a window'} is not read: say the days`,
        [c.words[i]!],
      );
    f.weekdays.push(...WORK);
    if (t.plural || c.kw(i - 1, 'every', 'by')) f.weekdaysRepeat = true;
    f.business = { ...f.business, word: true };
    return i + 1;
  }
  if (t.k === 'part') {
    // "Sunday night at 11", "every evening at 6": the part of the day the hour is in
    if (f.dayPart !== undefined && f.dayPart !== t.v) return undefined;
    f.dayPart = t.v;
    return i + 1;
  }
  // "the last Friday of every month", "в первый понедельник месяца", "the last day of the month", "the 15th"
  if (t.k === 'ord' || t.k === 'ordnum') {
    // "the first and third Monday", "the 2nd and 4th Tuesday": every ordinal of the list, none dropped
    const ords: number[] = [];
    let j = i;
    while (c.is(j, 'ord') || c.is(j, 'ordnum')) {
      ords.push((c.tok(j) as { v: number }).v);
      j++;
      if ((c.kw(j, 'and') || c.is(j, 'punct', ',')) && (c.is(j + 1, 'ord') || c.is(j + 1, 'ordnum'))) j++;
      else break;
    }
    if (c.is(j, 'weekday')) {
      const wd = (c.tok(j) as { v: Weekday }).v;
      for (const ord of ords) {
        if (!(ord === -1 || (ord >= 1 && ord <= 5)))
          throw new Unreadable(`a month has at most five of each weekday`, [c.words[i]!]);
        f.ordWeekdays.push({ ord, wd });
      }
      return ofMonth(c, j + 1, f);
    }
  }
  const monthContext = () => f.every?.unit === 'month' || f.every?.unit === 'quarter';
  if (t.k === 'ord') {
    if (c.is(i + 1, 'unit') && (c.tok(i + 1) as { v: Unit }).v === 'day') {
      // "the first day of every month", "quarterly on the first day", "в первый день каждого квартала"
      if (
        t.v !== -1 &&
        !(c.kw(i + 2, 'of', 'monthly', 'quarterly', 'every') || c.is(i + 2, 'unit') || monthContext())
      )
        return undefined;
      f.monthDays.push(t.v === -1 ? -1 : t.v);
      return ofMonth(c, i + 2, f);
    }
    // "the first of every month", "monthly on the first", "the second of the month"
    if (c.kw(i + 1, 'monthly', 'of') || monthContext()) {
      const next = ofMonth(c, i + 1, f);
      if (next === i + 1 && !monthContext()) return undefined;
      f.monthDays.push(t.v);
      return next;
    }
    return undefined;
  }
  if (t.k === 'ordnum' && !c.is(i + 1, 'month')) {
    let j = i;
    let said = false;
    while (c.is(j, 'ordnum')) {
      f.monthDays.push((c.tok(j) as { v: number }).v);
      j++;
      if (c.kw(j, 'day-of-month')) {
        said = true;
        j++;
      }
      if ((c.kw(j, 'and') || c.is(j, 'punct', ',')) && c.is(j + 1, 'ordnum')) j++;
    }
    const next = ofMonth(c, j, f);
    // "on the 15th" alone: once on the next 15th, or every month? the words must say (checked when read)
    if (next === j && !said) f.looseMonthDay ??= c.words[i]!.raw;
    return next;
  }
  return undefined;
}

/**
 * A country at `i`: a code ("LV", "(DE-BY)"), a name the holiday data knows ("Latvia", "the United States
 * of America"), or one the lexicon knows ("Латвии", "Latvian"), after "in" / "в" a place (its zone is the
 * schedule's when the words name none). `holidays`: "holidays" followed ("Latvian holidays").
 */
function regionAt(
  c: Cursor,
  i: number,
): { code: string; place: boolean; name: string; holidays: boolean; next: number } | undefined {
  let j = i;
  // "(AT)" is Austria, not "at"
  const place = c.kw(j, 'in', 'at', 'by') && !(c.is(j - 1, 'punct', '(') && c.is(j + 1, 'punct', ')'));
  if (place) j++;
  if (c.is(j, 'filler') && c.raw(j) === 'the') j++;
  const w = c.words[j];
  if (!w) return undefined;
  const loose = (x: Word) => x.tok.k === 'unknown' || x.corrected !== undefined || x.tok.k === 'region';
  const holidaysAt = (k: number) =>
    c.is(k, 'holidays') || /^(holidays?|праздник\p{L}*)$/u.test(c.raw(k)) ? k + 1 : k;
  const found = (code: string, isPlace: boolean, next: number) => {
    const after = holidaysAt(next);
    return {
      code,
      place: isPlace,
      name: c.words
        .slice(j, next)
        .map((x) => x.raw)
        .join(' '),
      holidays: after > next,
      next: after,
    };
  };
  // a code in capitals is a region wherever a word would otherwise be passed over or misread: "US" is not
  // "us", "(AT)" not "at", "in IT" not "it" (a lower-case word keeps its meaning)
  const code =
    REGION_RE.test(w.raw) &&
    (w.tok.k === 'unknown' ||
      w.corrected !== undefined ||
      w.tok.k === 'filler' ||
      (c.is(j - 1, 'punct', '(') && c.is(j + 1, 'punct', ')')) ||
      c.kw(j - 1, 'in', 'of', 'by'));
  if (code) {
    if (!c.regions || c.regions.has(w.raw)) return found(w.raw, false, j + 1);
    // "the UK": a name of the country in capitals (the lexicon's), not an ISO code (GB is)
    if (w.tok.k === 'region') return found(w.tok.v, place && !w.tok.adjective, j + 1);
    throw new Unreadable(
      `the holiday data has no region "${w.raw}" (an ISO country, optionally with its subdivision: LV, DE-BY)`,
      [w],
    );
  }
  if (!loose(w)) return undefined;
  // the longest run of words the data names a country by: "United States of America", "Latvia"
  if (c.regions) {
    for (let len = Math.min(5, c.words.length - j); len >= 1; len--) {
      const run = c.words.slice(j, j + len);
      if (
        !run.every(
          (x, k) => loose(x) || (k > 0 && k < len - 1 && (c.kw(j + k, 'and', 'of') || x.raw === '&')),
        )
      )
        continue;
      const code = c.regions.byName(run.map((x) => x.raw).join(' '), c.language);
      if (code) {
        // the data's name, not a misspelt word: "Germany" is not "german" corrected
        for (const x of run) delete x.corrected;
        return found(code, place, j + len);
      }
    }
  }
  if (w.tok.k === 'region') return found(w.tok.v, place && !w.tok.adjective, j + 1);
  return undefined;
}

function setRegion(f: Features, region: { code: string; place: boolean; name: string }): void {
  if (f.region !== undefined && f.region.code !== region.code)
    throw new Unreadable(`two regions named: ${f.region.name} and ${region.name}`);
  if (f.region === undefined || region.place)
    f.region = { code: region.code, place: region.place, name: region.name };
}

function exceptHolidays(f: Features): void {
  f.exceptHolidays = true;
  f.business = { ...f.business, word: f.business?.word ?? false };
}

function setRoll(f: Features, roll: 'FORWARD' | 'BACKWARD', word: Word): void {
  if (f.business?.roll !== undefined && f.business.roll !== roll)
    throw new Unreadable('a closed day rolled both forward and back', [word]);
  f.business = { ...f.business, word: f.business?.word ?? false, roll };
}

/**
 * After "<ordinal> business day" (`j` the word after it): "of the month", "of every quarter", "of January
 * and July", "месяца", "каждого квартала", or "before the 25th" / "after the 15th" (a day of the month
 * rolled back or forward to a business day).
 */
function businessOrdinal(c: Cursor, i: number, j: number, n: number, f: Features): number {
  const said = c.words
    .slice(i, j)
    .map((w) => w.raw)
    .join(' ');
  if (n === 0)
    throw new Unreadable(`"${said}": business days count from the first or from the last`, [c.words[i]!]);
  if (c.kw(j, 'before', 'after')) {
    const before = c.kw(j, 'before');
    let k = j + 1;
    if (c.is(k, 'filler') && c.raw(k) === 'the') k++;
    const d = c.tok(k);
    const dom =
      d?.k === 'ordnum' ||
      (d?.k === 'ord' && d.v >= 1) ||
      (d?.k === 'num' && !d.article && c.kw(k + 1, 'day-of-month'))
        ? d.v
        : undefined;
    if (dom === undefined)
      throw new Unreadable(
        `"${said} ${c.words[j]!.raw}" is read before or after a day of the month only ("the last business day before the 25th")`,
        c.words.slice(i, k + 1),
      );
    if ((before && n !== -1) || (!before && n !== 1))
      throw new Unreadable(
        `"${said}": only "the last business day before the Nth" and "the first business day after the Nth" are read`,
        c.words.slice(i, j),
      );
    const day = before ? dom - 1 : dom + 1;
    if (dom < 1 || dom > 31 || (day > 28 && !(before && dom === 1)))
      throw new Unreadable(
        `"${said} ${c.words[j]!.raw} the ${englishOrdinal(dom)}": not every month has the ${englishOrdinal(day)}; say "the last business day of the month"`,
        c.words.slice(i, k + 1),
      );
    k++;
    if (c.kw(k, 'day-of-month')) k++;
    const next = ofMonth(c, k, f);
    if (f.every === undefined) period(f, { unit: 'month', n: 1 });
    f.monthDays.push(before && dom === 1 ? -1 : day);
    setRoll(f, before ? 'BACKWARD' : 'FORWARD', c.words[i]!);
    f.notes.push(
      before
        ? `the ${dom === 1 ? 'last day of the month' : englishOrdinal(day)}, or the business day before it when it is closed`
        : `the ${englishOrdinal(day)}, or the business day after it when it is closed`,
    );
    return next;
  }
  if (f.businessOrdinal !== undefined)
    throw new Unreadable(`two business days named: "${f.businessOrdinal.raw}" and "${said}"`, [c.words[i]!]);
  let k = j;
  if (c.kw(k, 'of')) k++;
  if (c.is(k, 'month')) {
    // "of January and July", "января и июля"
    const months: number[] = [];
    while (c.is(k, 'month')) {
      months.push((c.tok(k) as { v: number }).v);
      k++;
      if ((c.kw(k, 'and') || c.is(k, 'punct', ',')) && c.is(k + 1, 'month')) k++;
      else if (c.is(k, 'punct', ',') && c.kw(k + 1, 'and') && c.is(k + 2, 'month')) k += 2;
      else break;
    }
    f.businessOrdinal = { n, months: [...new Set(months)].sort((a, b) => a - b), raw: said };
    return k;
  }
  f.businessOrdinal = { n, raw: said };
  return ofMonth(c, j, f);
}

/** "the hour" after "past", or nothing: the minute-of-hour forms end there. */
function theHour(c: Cursor, k: number): number {
  if (c.is(k, 'filler') && c.raw(k) === 'the' && c.is(k + 1, 'unit', 'hour')) return k + 2;
  return k;
}

/**
 * A minute past every hour: ":15", "15 minutes past (the hour)", "quarter past", "half past" (no hour
 * after), and after "at" / "в" also "15 minutes" ("в 15 минут каждого часа"). Undefined when none is there.
 */
function minuteOfHour(c: Cursor, i: number, afterAt: boolean): { m: number; next: number } | undefined {
  const t = c.tok(i);
  if (t?.k === 'minute-mark') {
    if (!/^:\d\d$/.test(c.words[i]!.raw) || t.m > 59)
      throw new Unreadable(`"${c.words[i]!.raw}" is not a minute past the hour (":00" to ":59")`, [
        c.words[i]!,
      ]);
    return { m: t.m, next: theHour(c, i + 1) };
  }
  const past = pastForm(c, i);
  if (past?.kind === 'minute') return { m: past.m, next: past.next };
  if (
    afterAt &&
    t?.k === 'num' &&
    !t.article &&
    c.is(i + 1, 'unit', 'minute') &&
    !c.kw(i + 2, 'past', 'to')
  ) {
    if (t.v > 59)
      throw new Unreadable(`${t.v} minutes past the hour is not a minute of an hour`, [c.words[i]!]);
    return { m: t.v, next: i + 2 };
  }
  return undefined;
}

function setMinuteOfHour(f: Features, m: number, word: Word): void {
  if (f.minuteOfHour !== undefined && f.minuteOfHour !== m)
    throw new Unreadable('two minutes past the hour named', [word]);
  f.minuteOfHour = m;
}

/** The minutes before "past" / "to": "quarter", "a quarter", "half", "20", "twenty", "15 minutes". */
function minutesWord(c: Cursor, i: number): { m: number; next: number; named: boolean } | undefined {
  let j = i;
  const t = c.tok(j);
  if (t?.k === 'num' && t.article && c.is(j + 1, 'unit', 'quarter')) j++;
  const u = c.tok(j);
  if (u?.k === 'unit' && u.v === 'quarter' && !u.plural) return { m: 15, next: j + 1, named: true };
  if (j === i && u?.k === 'kw' && u.v === 'half') return { m: 30, next: j + 1, named: true };
  if (j === i && u?.k === 'num' && !u.article && u.v >= 1 && u.v <= 59) {
    if (c.is(j + 1, 'unit', 'minute')) return { m: u.v, next: j + 2, named: true };
    return { m: u.v, next: j + 1, named: false };
  }
  return undefined;
}

/**
 * "quarter past 10", "half past 9", "20 past 7", "quarter to 10", "15 minutes to 8" (a time of day), or
 * "quarter past", "15 minutes past the hour" (a minute of every hour). "N to H" needs "quarter" or
 * "minutes": "from 5 to 9" is a range of hours.
 */
function pastForm(
  c: Cursor,
  i: number,
):
  | { kind: 'time'; choice: TimeChoice; next: number }
  | { kind: 'minute'; m: number; next: number }
  | undefined {
  const mw = minutesWord(c, i);
  if (!mw) return undefined;
  const past = c.kw(mw.next, 'past');
  const to = c.kw(mw.next, 'to') && mw.named;
  if (!past && !to) return undefined;
  const k = mw.next + 1;
  const hour = c.is(k, 'hhmm') ? undefined : time(c, k, true);
  if (hour && hour.choice.times.length === 1 && hour.choice.times[0]!.m === 0) {
    const h0 = hour.choice.times[0]!.h;
    const h = past ? h0 : (h0 + 23) % 24;
    const m = past ? mw.m : 60 - mw.m;
    const choice: TimeChoice = { times: [{ h, m, s: 0 }] };
    if (hour.choice.question) choice.question = hour.choice.question.replace(/:00/g, `:${pad(m)}`);
    if (hour.choice.note) choice.note = hour.choice.note;
    return { kind: 'time', choice, next: hour.next };
  }
  if (!past) return undefined;
  return { kind: 'minute', m: mw.m, next: theHour(c, k) };
}

/** "(twice) a day", "(3 times) per week", "(два раза) в день": how often, the times say when. */
function perPeriod(c: Cursor, j: number, f: Features): number | undefined {
  const every: Partial<Record<string, Unit>> = {
    daily: 'day',
    weekly: 'week',
    monthly: 'month',
    hourly: 'hour',
  };
  const t = c.tok(j);
  if (t?.k === 'kw' && every[t.v]) {
    period(f, { unit: every[t.v]!, n: 1 });
    return j + 1;
  }
  if (t?.k === 'num' && t.article && c.is(j + 1, 'unit')) {
    period(f, { unit: (c.tok(j + 1) as { v: Unit }).v, n: 1 });
    return j + 2;
  }
  if (t?.k === 'kw' && t.v === 'per' && c.is(j + 1, 'unit')) {
    period(f, { unit: (c.tok(j + 1) as { v: Unit }).v, n: 1 });
    return j + 2;
  }
  return undefined;
}

function ofMonth(c: Cursor, j: number, f: Features): number {
  let k = j;
  if (c.kw(k, 'of')) k++;
  // "of the quarter" ("of the month" is a phrase of its own)
  if (k > j && c.is(k, 'filler') && c.raw(k) === 'the') k++;
  if (c.kw(k, 'every')) k++;
  if (c.kw(k, 'monthly') || (c.is(k, 'unit') && (c.tok(k) as { v: Unit }).v === 'month')) {
    period(f, { unit: 'month', n: 1 });
    return k + 1;
  }
  if (c.kw(k, 'quarterly') || (c.is(k, 'unit') && (c.tok(k) as { v: Unit }).v === 'quarter')) {
    // "the first day of every quarter", "первого числа каждого квартала"
    period(f, { unit: 'quarter', n: 1 });
    return k + 1;
  }
  return j;
}

/** After `every`: "10 minutes", "other week", "2 weeks", "Monday", "weekday", "5 September", "month". */
function scanEvery(c: Cursor, i: number, f: Features): number | undefined {
  let j = i;
  let n: number | undefined;
  if (c.is(j, 'part')) {
    // "every morning at 8", "каждый вечер в 6"
    period(f, { unit: 'day', n: 1 });
    f.dayPart = (c.tok(j) as { v: PartOfDay }).v;
    return j + 1;
  }
  if (
    c.is(j, 'ord') &&
    (c.kw(j + 2, 'of', 'monthly') ||
      (c.tok(j) as { v: number }).v === 1 ||
      (c.tok(j) as { v: number }).v === -1)
  ) {
    // "every first Monday of the month", "every last day of the month": the ordinal's own part reads it
    return j;
  }
  if (c.is(j, 'bday')) {
    // "every business day", "каждый рабочий день"
    f.weekdaysRepeat = true;
    return j;
  }
  if (
    ((c.is(j, 'ord') || c.is(j, 'ordnum')) &&
      (c.kw(j + 1, 'of', 'monthly', 'day-of-month') || c.is(j + 1, 'bday'))) ||
    (c.is(j, 'num') && c.kw(j + 1, 'day-of-month'))
  ) {
    // "every 15th of the month", "каждое первое число": the day of the month part reads it
    return j;
  }
  if (c.kw(j, 'other')) {
    n = 2;
    j++;
    if (c.is(j, 'weekdays', 'work'))
      throw new Unreadable(
        '"every other weekday" is not a set of days: say the days ("every other Monday and Wednesday")',
        [c.words[j]!],
      );
  } else if (
    c.is(j, 'ord') &&
    (c.tok(j) as { v: number }).v >= 2 &&
    (c.is(j + 1, 'weekday') || c.is(j + 1, 'unit'))
  ) {
    // "every second Tuesday", "every third week": one in n
    n = (c.tok(j) as { v: number }).v;
    j++;
  }
  // "every 5 September"
  const d = n === undefined ? date(c, j) : undefined;
  if (d && d.value.kind === 'ymd' && d.value.y === undefined) {
    f.yearlyDate = { mo: d.value.mo, d: d.value.d };
    period(f, { unit: 'year', n: 1 });
    return d.next;
  }
  if (c.is(j, 'weekday') || c.is(j, 'weekdays')) {
    if (n !== undefined) period(f, { unit: 'week', n });
    f.weekdaysRepeat = true;
    return j; // the days are read by the weekday part
  }
  if (c.kw(j, 'daily', 'monthly')) return j;
  const dur = duration(c, j, true, n);
  if (dur) {
    setEvery(f, dur.amounts);
    return dur.next;
  }
  return undefined;
}

function setEvery(f: Features, amounts: Amounts): void {
  const units = Object.keys(amounts) as Unit[];
  if (units.length === 1) {
    const unit = units[0]!;
    const n = amounts[unit]!;
    if (Number.isInteger(n)) {
      period(f, { unit, n });
      return;
    }
  }
  // "every 1.5 hours", "every hour and a half": a fixed interval in seconds
  period(f, { unit: 'second', n: Math.round(fixedSeconds(amounts)) });
}

/**
 * The period the words repeat by. A second period is refused, never dropped ("every month on Friday
 * hourly"); the same period said again is one ("the 15th of every month" after "every 3 months").
 */
function period(f: Features, e: { unit: Unit; n: number }): void {
  if (f.every === undefined) {
    f.every = e;
    return;
  }
  if (f.every.unit === e.unit && (f.every.n === e.n || e.n === 1)) return;
  const say = (p: { unit: Unit; n: number }) => (p.n === 1 ? `every ${p.unit}` : `every ${p.n} ${p.unit}s`);
  throw new Unreadable(`two periods named for one schedule: ${say(f.every)} and ${say(e)}`);
}

/** After a duration: "after 2026-09-05T10:00:00Z", "after each run finishes", "after the e-mail was sent". */
function afterDuration(c: Cursor, j: number, f: Features, amounts: Amounts): number | undefined {
  if (c.kw(j, 'run-done')) {
    f.fixedDelay = true;
    period(f, { unit: 'second', n: fixedSeconds(amounts) });
    return j + 1;
  }
  if (!c.kw(j, 'after')) return undefined;
  if (c.kw(j + 1, 'run-done')) {
    f.fixedDelay = true;
    period(f, { unit: 'second', n: fixedSeconds(amounts) });
    return j + 2;
  }
  const iso = c.tok(j + 1);
  if (iso?.k === 'iso' && iso.offset) {
    f.delay = amounts;
    f.anchor = iso.text;
    return j + 2;
  }
  // a named event ("after the e-mail was sent", "после события"): its instant is not in the words, and
  // counting from now would be another schedule; the answer asks for the anchor
  let k = j + 1;
  const event: Word[] = [];
  while (k < c.words.length && !c.is(k, 'punct') && !c.is(k, 'zone')) {
    event.push(c.words[k]!);
    k++;
  }
  if (event.length === 0) return undefined;
  const what = event.map((w) => w.raw).join(' ');
  throw new Unreadable(
    `the delay counts from "${what}", whose instant is not in the words: name it ("48 hours after 2026-09-05T10:00:00Z"), or create a DELAY timing with its anchor`,
    event,
  );
}

/** "10 minutes", "an hour and 30 minutes", "2 hours 30 minutes", "half an hour", "полтора часа", "час". */
function duration(
  c: Cursor,
  i: number,
  bareUnit: boolean,
  preset?: number,
  separate = false,
): { amounts: Amounts; next: number } | undefined {
  const amounts: Amounts = {};
  let j = i;
  let any = false;
  for (;;) {
    const t = c.tok(j);
    let n: number | undefined = any ? undefined : preset;
    let k = j;
    if (t?.k === 'half-hour') {
      amounts.minute = (amounts.minute ?? 0) + 30;
      j++;
      any = true;
    } else {
      if (t?.k === 'num' || t?.k === 'decimal') {
        n = t.v;
        k++;
      } else if (t?.k === 'and-a-half') {
        n = 1.5;
        k++;
      }
      // "one and a half hours", "two and a half days"
      if (
        n !== undefined &&
        Number.isInteger(n) &&
        c.kw(k, 'and') &&
        c.is(k + 1, 'num') &&
        (c.tok(k + 1) as { article?: boolean }).article &&
        c.kw(k + 2, 'half') &&
        c.is(k + 3, 'unit')
      ) {
        n += 0.5;
        k += 3;
      }
      const u = unitAt(c, k);
      if (u === undefined || (n === undefined && !bareUnit && !(any && c.kw(j - 1, 'before-prefix')))) break;
      amounts[u] = (amounts[u] ?? 0) + (n ?? 1);
      j = k + 1;
      any = true;
      // "an hour and a half"
      if (
        c.kw(j, 'and') &&
        c.is(j + 1, 'num') &&
        (c.tok(j + 1) as { article?: boolean }).article &&
        c.raw(j + 2) === 'half'
      ) {
        amounts[u] = amounts[u]! + 0.5;
        j += 3;
      }
    }
    // continue: "and 30 minutes", ", 30 minutes", "30 minutes"; in a list of reminders `and` separates them
    let k2 = j;
    if (c.kw(k2, 'and') || c.is(k2, 'punct', ',')) {
      if (separate) break;
      k2++;
    }
    const t2 = c.tok(k2);
    if ((t2?.k === 'num' || t2?.k === 'decimal') && unitAt(c, k2 + 1) !== undefined) {
      j = k2;
      continue;
    }
    if (t2?.k === 'half-hour') {
      j = k2;
      continue;
    }
    break;
  }
  return any ? { amounts, next: j } : undefined;
}

function unitAt(c: Cursor, k: number): Unit | undefined {
  const t = c.tok(k);
  if (t?.k === 'unit') return t.v;
  if (t?.k === 'ord' && t.unit) return t.unit;
  if (t?.k === 'part' && c.raw(k) === 'дня') return 'day';
  return undefined;
}

const UNIT_SECONDS: Partial<Record<Unit, number>> = {
  second: 1,
  minute: 60,
  hour: 3600,
  day: 86400,
  week: 604800,
};
function fixedSeconds(a: Amounts): number {
  let s = 0;
  for (const [u, n] of Object.entries(a) as Array<[Unit, number | undefined]>) {
    if (n === undefined) continue;
    const per = UNIT_SECONDS[u];
    if (per === undefined) throw new Unreadable(`a ${u} has no fixed length: say it in days or weeks`);
    s += n * per;
  }
  return s;
}

/** ISO 8601 for amounts: calendar parts stay calendar parts, fixed ones go to D/H/M/S. */
function isoDuration(a: Amounts): string {
  const years = a.year ?? 0;
  const months = (a.month ?? 0) + 3 * (a.quarter ?? 0);
  let secs = Math.round(
    fixedSeconds({ ...a, year: undefined, month: undefined, quarter: undefined } as Amounts),
  );
  for (const k of ['year', 'month', 'quarter'] as const)
    if (a[k] !== undefined && !Number.isInteger(a[k])) {
      throw new Unreadable(`a fraction of a ${k} has no fixed length`);
    }
  const days = Math.floor(secs / 86400);
  secs -= days * 86400;
  const h = Math.floor(secs / 3600);
  secs -= h * 3600;
  const m = Math.floor(secs / 60);
  secs -= m * 60;
  let out = 'P';
  if (years) out += `${years}Y`;
  if (months) out += `${months}M`;
  if (days) out += `${days}D`;
  if (h || m || secs) out += `T${h ? `${h}H` : ''}${m ? `${m}M` : ''}${secs ? `${secs}S` : ''}`;
  return out === 'P' ? 'PT0S' : out;
}

// ---------------------------------------------------------------------------------------------------------
// times and dates

/** "at 9:00 and 18:00", "в 9 утра", "at 5" (asks), "noon"; `afterAt`: the word before was at / в. */
function timeList(
  c: Cursor,
  i: number,
  afterAt: boolean,
): { choices: TimeChoice[]; next: number } | undefined {
  const first = time(c, i, afterAt);
  if (!first) return undefined;
  const choices = [first.choice];
  let j = first.next;
  while (c.kw(j, 'and') || c.is(j, 'punct', ',')) {
    let k = j + 1;
    if (c.kw(k, 'at')) k++;
    const more = time(c, k, true);
    if (!more) break;
    choices.push(more.choice);
    j = more.next;
  }
  return { choices, next: j };
}

function applyPart(h: number, part: PartOfDay | 'am' | 'pm'): number | undefined {
  if (h < 0) return undefined;
  // "21:00 in the evening" is what it says; "18 at night", "15 am" say two things
  if (h > 12) return inPart(h, part) ? h : undefined;
  switch (part) {
    case 'am':
    case 'morning':
      return h === 12 ? 0 : h;
    case 'pm':
    case 'afternoon':
    case 'evening':
      return h === 12 ? 12 : h + 12;
    case 'night':
      return h === 12 ? 0 : h <= 4 ? h : h + 12;
  }
}

/** Whether an hour of the 24-hour clock is in a part of the day (generously: the words only must not clash). */
function inPart(h: number, part: PartOfDay): boolean {
  switch (part) {
    case 'am':
      return h < 12;
    case 'pm':
      return h >= 12;
    case 'morning':
      return h >= 3 && h < 13;
    case 'afternoon':
      return h >= 12 && h < 19;
    case 'evening':
      return h >= 16 || h === 0;
    case 'night':
      return h >= 19 || h < 6;
  }
}

function time(c: Cursor, i: number, afterAt: boolean): { choice: TimeChoice; next: number } | undefined {
  const t = c.tok(i);
  if (!t) return undefined;
  // "quarter past 10", "half past 9", "quarter to 8 pm"
  const past = pastForm(c, i);
  if (past) return past.kind === 'time' ? { choice: past.choice, next: past.next } : undefined;
  // "в половине десятого" (09:30), "в четверть десятого" (09:15), "без четверти десять" (09:45)
  if (t.k === 'kw' && (t.v === 'half' || t.v === 'quarter-hour' || t.v === 'less')) {
    const less = t.v === 'less';
    if (less && !c.kw(i + 1, 'quarter-hour')) return undefined;
    const k = less ? i + 2 : i + 1;
    const h = c.tok(k);
    const n = less ? (h?.k === 'num' && !h.article ? h.v : undefined) : h?.k === 'ord' ? h.v : undefined;
    if (n === undefined || n < 1 || n > 12) return undefined;
    const m = t.v === 'half' ? 30 : less ? 45 : 15;
    const base = bareHour(n - 1 === 0 ? 12 : n - 1);
    let j = k + 1;
    let hh = base.times[0]!.h;
    let question = base.question;
    if (c.is(j, 'part')) {
      const withPart = applyPart(hh, (c.tok(j) as { v: PartOfDay }).v);
      if (withPart === undefined) return undefined;
      hh = withPart;
      question = undefined;
      j++;
    }
    const choice: TimeChoice = { times: [{ h: hh, m, s: 0 }] };
    if (question) choice.question = question.replace(/:00/g, `:${pad(m)}`);
    else if (base.note && j === k + 1) choice.note = base.note.replace(/:00/, `:${pad(m)}`);
    return { choice, next: j };
  }
  if (t.k === 'kw' && (t.v === 'noon' || t.v === 'midnight')) {
    return { choice: { times: [{ h: t.v === 'noon' ? 12 : 0, m: 0, s: 0 }] }, next: i + 1 };
  }
  if (t.k === 'hhmm') {
    // 24:00 is the end of a day (a window's closing time), not a time to run at
    const endOfDay = t.h === 24 && t.m === 0 && t.s === 0 && c.kw(i - 1, 'to', 'until', 'and');
    if ((t.h > 23 && !endOfDay) || t.m > 59 || t.s > 59)
      throw new Unreadable(`${c.words[i]!.raw} is not a time of day`);
    let h = t.h;
    let j = i + 1;
    if (c.is(j, 'part')) {
      h = applyPart(h, (c.tok(j) as { v: PartOfDay }).v) ?? h;
      j++;
    }
    return { choice: { times: [{ h, m: t.m, s: t.s }] }, next: j };
  }
  if (t.k === 'num-part') {
    // "13pm", "0am": a 12-hour clock has hours 1 to 12
    if (t.v < 1 || t.v > 12)
      throw new Unreadable(`"${c.words[i]!.raw}" is not an hour of a 12-hour clock`, [c.words[i]!]);
    const h = applyPart(t.v, t.part);
    if (h === undefined) return undefined;
    return { choice: { times: [{ h, m: 0, s: 0 }] }, next: i + 1 };
  }
  if (t.k !== 'num' || t.article || t.v > 24) return undefined;
  // "15 minutes" is an amount, never an hour
  if (c.is(i + 1, 'unit', 'minute')) return undefined;
  let j = i + 1;
  let hourWord = false;
  // "12 noon", "12 midnight"
  if (t.v === 12 && c.kw(j, 'noon', 'midnight'))
    return { choice: { times: [{ h: c.kw(j, 'noon') ? 12 : 0, m: 0, s: 0 }] }, next: j + 1 };
  if (c.kw(j, 'oclock')) j++;
  else if (c.is(j, 'unit') && (c.tok(j) as { v: Unit }).v === 'hour' && afterAt) {
    hourWord = true; // в 14 часов
    j++;
  }
  // "в 9 часов 30 минут", "at nine thirty": the minutes after the hour
  const mm = c.tok(j);
  const wordNumbers = /^\p{L}/u.test(c.words[i]!.raw) && /^\p{L}/u.test(c.words[j]?.raw ?? '');
  if (
    mm?.k === 'num' &&
    !mm.article &&
    mm.v <= 59 &&
    ((hourWord && c.is(j + 1, 'unit', 'minute')) ||
      (afterAt && j === i + 1 && wordNumbers && !c.is(j + 1, 'unit')))
  ) {
    if (t.v > 23) return undefined;
    const next = hourWord ? j + 2 : j + 1;
    const base = bareHour(t.v);
    let h = t.v;
    let k = next;
    if (c.is(k, 'part')) {
      h = applyPart(h, (c.tok(k) as { v: PartOfDay }).v) ?? h;
      k++;
      return { choice: { times: [{ h, m: mm.v, s: 0 }] }, next: k };
    }
    const choice: TimeChoice = { times: [{ h, m: mm.v, s: 0 }] };
    if (base.question) choice.question = base.question.replace(/:00/g, `:${pad(mm.v)}`);
    if (base.note) choice.note = base.note.replace(/:00/, `:${pad(mm.v)}`);
    return { choice, next: k };
  }
  if (c.is(j, 'part') && !(c.raw(j) === 'дня' && !afterAt && !hourWord && c.raw(j - 1) !== 'часа')) {
    const h = applyPart(t.v, (c.tok(j) as { v: PartOfDay }).v);
    if (h === undefined) return undefined;
    return { choice: { times: [{ h, m: 0, s: 0 }] }, next: j + 1 };
  }
  if (!afterAt && j === i + 1) return undefined;
  return { choice: bareHour(t.v % 24 === 0 && t.v === 24 ? 0 : t.v), next: j };
}

/** docs/words.md: 7–11 mornings, 12 noon (each with a note), 1–6 a question, 0 and 13–23 as said. */
function bareHour(h: number): TimeChoice {
  if (h >= 7 && h <= 11)
    return {
      times: [{ h, m: 0, s: 0 }],
      note: `"${h}" read as ${pad(h)}:00 (a bare hour from 7 to 11 is the morning; say ${h} pm or ${h + 12}:00 for the evening)`,
    };
  if (h === 12)
    return { times: [{ h, m: 0, s: 0 }], note: '"12" read as noon (say midnight or 00:00 for the night)' };
  if (h >= 1 && h <= 6)
    return {
      times: [{ h, m: 0, s: 0 }],
      question: `"${h}" is ${pad(h)}:00 or ${h + 12}:00: say am/pm, "in the morning", or ${pad(h)}:00 / ${h + 12}:00`,
    };
  return { times: [{ h, m: 0, s: 0 }] };
}

function yearAt(c: Cursor, j: number): { year: number; next: number } | undefined {
  const t = c.tok(j);
  if (t?.k === 'num' && t.v >= 1970 && t.v <= 9999) {
    let k = j + 1;
    if (/^(года?|г)$/.test(c.raw(k))) k++;
    return { year: t.v, next: k };
  }
  return undefined;
}

/** A date: ISO, "5 September [2026]", "September 5th", "5/9", "05.09.2026", today, tomorrow, (next) Friday. */
function date(c: Cursor, i: number): { value: DateFeature; next: number } | undefined {
  const t = c.tok(i);
  if (!t) return undefined;
  if (t.k === 'iso' && !t.offset && !t.time) {
    return { value: { kind: 'ymd', y: t.date[0], mo: t.date[1], d: t.date[2] }, next: i + 1 };
  }
  if (t.k === 'numdate') {
    if (t.sep === '.' || t.a > 12 || t.b > 12 || t.a === t.b) {
      // dd.mm.yyyy is day first; a/b with one side over 12 reads one way only
      const [d, mo] = t.sep === '.' || t.a > 12 || t.a === t.b ? [t.a, t.b] : [t.b, t.a];
      return { value: { kind: 'ymd', ...(t.year ? { y: t.year } : {}), mo, d }, next: i + 1 };
    }
    return { value: { kind: 'numdate', a: t.a, b: t.b, ...(t.year ? { y: t.year } : {}) }, next: i + 1 };
  }
  if ((t.k === 'num' || t.k === 'ordnum' || (t.k === 'ord' && t.v >= 1)) && !('article' in t && t.article)) {
    // "5 September", "the 5th of September", "the first of January", "пятого декабря"
    let j = i + 1;
    if (c.kw(j, 'of')) j++;
    if (c.is(j, 'month')) {
      const mo = (c.tok(j) as { v: number }).v;
      const y = yearAt(c, j + 1) ?? (c.is(j + 1, 'punct', ',') ? yearAt(c, j + 2) : undefined);
      return { value: { kind: 'ymd', ...(y ? { y: y.year } : {}), mo, d: t.v }, next: y ? y.next : j + 1 };
    }
  }
  if (t.k === 'month') {
    const dt = c.tok(i + 1);
    if (dt && (dt.k === 'num' || dt.k === 'ordnum') && !('article' in dt && dt.article) && dt.v <= 31) {
      let j = i + 2;
      if (c.is(j, 'punct', ',') && yearAt(c, j + 1)) j++;
      const y = yearAt(c, j);
      return {
        value: { kind: 'ymd', ...(y ? { y: y.year } : {}), mo: t.v, d: dt.v },
        next: y ? y.next : i + 2,
      };
    }
  }
  if (t.k === 'kw') {
    if (t.v === 'today') return { value: { kind: 'relative', days: 0, word: c.words[i]!.raw }, next: i + 1 };
    if (t.v === 'tomorrow')
      return { value: { kind: 'relative', days: 1, word: c.words[i]!.raw }, next: i + 1 };
    if (t.v === 'day-after-tomorrow')
      return { value: { kind: 'relative', days: 2, word: c.words[i]!.raw }, next: i + 1 };
    if ((t.v === 'next' || t.v === 'this') && c.is(i + 1, 'weekday')) {
      const wd = (c.tok(i + 1) as { v: Weekday }).v;
      return { value: { kind: 'weekday', wd, allowToday: t.v === 'this' }, next: i + 2 };
    }
    if (
      (t.v === 'on' || t.v === 'at') &&
      (c.kw(i + 1, 'next', 'this') || c.is(i + 1, 'month') || c.is(i + 1, 'iso'))
    ) {
      const inner = date(c, i + 1);
      if (inner) return inner;
    }
  }
  return undefined;
}

function dateOrInstant(
  c: Cursor,
  i: number,
): { value: DateFeature | { kind: 'instant'; iso: string }; next: number } | undefined {
  let j = i;
  if (c.kw(j, 'on')) j++;
  const t = c.tok(j);
  if (t?.k === 'iso' && (t.offset || t.time)) {
    if (t.offset) return { value: { kind: 'instant', iso: t.text }, next: j + 1 };
    return { value: { kind: 'ymd', y: t.date[0], mo: t.date[1], d: t.date[2] }, next: j + 1 };
  }
  const d = date(c, j);
  return d ? { value: d.value, next: d.next } : undefined;
}

/** "9 to 17", "08:00 and 20:00", "9 до 17" after from / between / с. */
function hoursRange(c: Cursor, i: number): { hours: { from: Time; to: Time }; next: number } | undefined {
  const a = time(c, i, true);
  if (!a || a.choice.times.length !== 1) return undefined;
  if (!c.kw(a.next, 'to', 'and', 'until')) return undefined;
  const b = time(c, a.next + 1, true);
  if (!b || b.choice.times.length !== 1) return undefined;
  const from = a.choice.times[0]!;
  let to = b.choice.times[0]!;
  // "from 9 to 5": an end before the start on the same afternoon
  if (b.choice.question && to.h < from.h) to = { ...to, h: to.h + 12 };
  return { hours: { from, to }, next: b.next };
}

function setDate(f: Features, value: DateFeature): void {
  if (f.date !== undefined) throw new Unreadable('two dates given for one schedule');
  f.date = value;
}

// ---------------------------------------------------------------------------------------------------------
// assembly

const pad = (n: number) => String(n).padStart(2, '0');

interface Clock {
  zone: string;
  nowMs: number;
  /** Today in the zone, as a floating wall value at 00:00. */
  today: number;
  /** The wall clock in the zone now. */
  wallNow: number;
}

function clockOf(zone: string, now: string): Clock {
  const nowMs = Date.parse(now);
  const wallNow = nowMs + zoneRules().offsetAt(zone, Math.floor(nowMs / 1000) * 1000);
  return { zone, nowMs, wallNow, today: Math.floor(wallNow / DAY) * DAY };
}

const localIso = (wall: number) => {
  const p = partsOf(wall);
  return `${p.year}-${pad(p.month)}-${pad(p.day)}T${pad(p.hour)}:${pad(p.minute)}:${pad(p.second)}`;
};

function instantOfWall(zone: string, wall: number): string {
  const z = zoneFor(zone);
  const r = resolveWall(z, wall, DEFAULT_DST).resolved[0];
  const at = r?.instant ?? wall - z.offsetAt(wall);
  return formatInstantAt(at, z.offsetAt(at));
}

const dayName = (wall: number) =>
  new Date(wall).toLocaleDateString('en-GB', {
    weekday: 'long',
    day: 'numeric',
    month: 'long',
    year: 'numeric',
    timeZone: 'UTC',
  });

/** The wall date (00:00) a date feature names, at `clock`; `time` decides "today or tomorrow". */
function resolveDate(
  d: DateFeature,
  clock: Clock,
  time: Time | undefined,
  notes: string[],
  choice: number,
): number {
  const tod = time ? time.h * 3600_000 + time.m * 60_000 + time.s * 1000 : 0;
  switch (d.kind) {
    case 'relative':
      return clock.today + d.days * DAY;
    case 'dst-change': {
      const change = zoneFor(clock.zone).changeAfter(clock.nowMs);
      if (!change) throw new Unreadable(`${clock.zone} does not change its clocks`);
      const day = Math.floor((change.at + change.before) / DAY) * DAY;
      notes.push(
        `the clocks change in ${clock.zone} on ${dayName(day)} (at ${localIso(change.at + change.before).slice(11, 16)} local time)`,
      );
      return day;
    }
    case 'weekday': {
      const today = isoWeekday(clock.today);
      const target = WEEKDAY_ORDER.indexOf(d.wd) + 1;
      let ahead = (target - today + 7) % 7;
      if (ahead === 0 && !(d.allowToday && clock.today + tod > clock.wallNow)) ahead = 7;
      const wall = clock.today + ahead * DAY;
      const utcDay = Math.floor(clock.nowMs / DAY) * DAY;
      const differs = utcDay !== clock.today;
      notes.push(
        `"${d.wd}" read as ${dayName(wall)} (the first after today, ${dayName(clock.today)}, in ${clock.zone}${differs ? `; in UTC it is still ${dayName(utcDay)}` : ''})`.replace(
          `"${d.wd}"`,
          'the weekday',
        ),
      );
      return wall;
    }
    case 'numdate': {
      const [day, mo] = choice === 0 ? [d.a, d.b] : [d.b, d.a];
      return ymd({ ...(d.y ? { y: d.y } : {}), mo, d: day }, clock, tod);
    }
    case 'ymd':
      return ymd(d, clock, tod);
  }
}

function ymd(d: { y?: number; mo: number; d: number }, clock: Clock, tod: number): number {
  const check = (y: number) => {
    if (d.mo < 1 || d.mo > 12 || d.d < 1 || d.d > daysInMonth(y, d.mo))
      throw new Unreadable(`${d.d}.${d.mo}${d.y ? `.${d.y}` : ''} is not a date`);
  };
  if (d.y !== undefined) {
    check(d.y);
    return wallFrom(d.y, d.mo, d.d);
  }
  const y0 = partsOf(clock.today).year;
  for (let y = y0; y < y0 + 9; y++) {
    if (d.mo === 2 && d.d === 29 && daysInMonth(y, 2) < 29) continue;
    check(y);
    const wall = wallFrom(y, d.mo, d.d);
    if (wall + tod > clock.wallNow) return wall;
  }
  throw new Unreadable(`${d.d}.${d.mo} is not a date`);
}

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

function assemble(f: Features, input: ReadInput, language: WordsLanguage): ReadOutcome {
  if (f.dayPart !== undefined) {
    // a bare hour in a named part of the day asks nothing: "every evening at 6" is 18:00
    const part = f.dayPart;
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
  for (const choice of f.times) if (choice.note) f.notes.push(choice.note);
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
  const needsZone =
    (kind === 'ONE_TIME' && f.instant === undefined) ||
    kind === 'RECURRENCE' ||
    kind === 'BUSINESS_DAY' ||
    f.business !== undefined ||
    kind === 'DEADLINE' ||
    f.hours !== undefined ||
    f.window !== undefined ||
    f.minuteOfHour !== undefined ||
    f.weekdays.length > 0;
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
  const questions = [
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

/**
 * The zone of a country named as a place ("at 9:00 in Latvia") when the words name no zone: the request's
 * timezone when it is one of the country's, else the country's only zone; a country of several zones is a
 * refusal (never one of them guessed).
 */
function placeZone(f: Features, input: ReadInput): string | undefined {
  if (!f.region?.place || !input.regions) return undefined;
  const zones = [
    ...new Set(
      input.regions
        .zones(f.region.code)
        .map(zoneIdOf)
        .filter((z): z is string => z !== undefined),
    ),
  ];
  const asked = input.timezone !== undefined ? zoneIdOf(input.timezone) : undefined;
  if (asked !== undefined && zones.includes(asked)) return asked;
  if (zones.length === 1) {
    f.notes.push(`in ${zones[0]} (${f.region.name}'s time zone)`);
    return zones[0];
  }
  if (zones.length > 1)
    throw new Unreadable(
      `${f.region.name} has ${zones.length} time zones: name one ("in ${zones[0]}") or pass timezone`,
    );
  return undefined;
}

/**
 * Whose public holidays close a day: the country the words name, else the request's region, else the one
 * country whose holiday data uses the zone (Europe/Riga → LV). Undefined when none says (never guessed).
 */
function regionOf(f: Features, input: ReadInput, zone: string): string | undefined {
  const clause = f.business?.clause?.region;
  if (f.region !== undefined) {
    if (clause !== undefined && clause !== f.region.code)
      throw new Unreadable(`two regions named: ${f.region.name} and ${clause}`);
    return f.region.code;
  }
  if (clause !== undefined) return clause;
  if (input.region !== undefined) {
    if (!REGION_RE.test(input.region))
      throw new CalendarError(
        'region',
        `"${input.region}" is not a region: an ISO country, optionally with its subdivision (LV, DE-BY)`,
        'INVALID_FIELD',
      );
    if (input.regions && !input.regions.has(input.region))
      throw new CalendarError('region', `the holiday data has no region "${input.region}"`, 'INVALID_FIELD');
    f.notes.push(`public holidays of ${input.region} (the request's region)`);
    return input.region;
  }
  const byZone = input.regions?.byZone(zone);
  if (byZone !== undefined) f.notes.push(`public holidays of ${byZone} (the country of ${zone})`);
  return byZone;
}

/** The business_days option of a reading: the region, the weekend, and how a closed day's run rolls. */
function businessDaysOf(f: Features, kind: string, region: string): BusinessDays {
  const clause = f.business?.clause ?? {};
  const roll = f.business?.roll ?? clause.roll;
  if (kind === 'BUSINESS_DAY' && roll !== undefined)
    throw new Unreadable(
      'the Nth business day is open already: "or the next business day" says nothing of it (it is for a day of the month, a weekday, a date)',
    );
  if (kind === 'DELAY' || kind === 'FIXED_DELAY' || kind === 'DEADLINE')
    throw new Unreadable('business days are not read with a delay or a deadline: say the days it runs on');
  const days = withoutExcepted([...new Set(f.weekdays)], f.exceptDays) ?? [];
  let weekend = clause.weekend;
  if (weekend === undefined && f.exceptHolidays && !f.business?.word && kind !== 'BUSINESS_DAY') {
    // "every day except public holidays": a Saturday is not a holiday; only the holidays close a day
    if (days.length === 0 || days.some((d) => WEEKEND.includes(d))) weekend = [];
  }
  if (f.business?.word && days.some((d) => WEEKEND.includes(d)) && weekend === undefined)
    throw new Unreadable(
      'business days are Monday to Friday: a Saturday or a Sunday named with them would never run',
    );
  return {
    region,
    ...(weekend !== undefined ? { weekend } : {}),
    ...(clause.closed ? { closed: clause.closed } : {}),
    ...(clause.open ? { open: clause.open } : {}),
    ...(roll !== undefined ? { roll } : {}),
  };
}

/**
 * Parts the words name that the timing of `kind` would not carry: each is a refusal, never dropped
 * ("every day at 9:00 on 5 January", "every hour on the 15th of every month", "deadline every day at 9").
 */
function unplacedParts(f: Features, kind: NonNullable<ReturnType<typeof kindOf>>): void {
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

function kindOf(f: Features): Timing['kind'] | 'FIXED_DELAY' | undefined {
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

function build(
  f: Features,
  kind: NonNullable<ReturnType<typeof kindOf>>,
  zone: string | undefined,
  now: string,
  combo: { times: Time[]; numdate: number; monthDayMode: number },
): Reading {
  const notes = [...f.notes];
  const options: Reading['options'] = {};
  const clock = zone ? clockOf(zone, now) : undefined;
  const times = combo.times;
  if (f.maxCount !== undefined) options.max_count = f.maxCount;
  if (f.dst !== undefined) options.dst = f.dst;
  if (f.starts) {
    options.starts_at =
      f.starts.kind === 'instant'
        ? f.starts.iso
        : instantOfWall(
            zone ?? 'UTC',
            resolveDate(f.starts, clock ?? clockOf('UTC', now), undefined, notes, combo.numdate),
          );
  }
  if (f.ends) {
    if (f.ends.kind === 'instant') options.ends_at = f.ends.iso;
    else {
      const c = clock ?? clockOf('UTC', now);
      const z = zone ?? 'UTC';
      if (f.ends.kind === 'month') {
        const first = ymd({ ...(f.ends.y ? { y: f.ends.y } : {}), mo: f.ends.mo, d: 1 }, c, 0);
        options.ends_at = instantOfWall(z, first - 1000);
        notes.push(`until ${monthName(f.ends.mo)}: the last run is before ${localIso(first).slice(0, 10)}`);
      } else {
        const day = resolveDate(f.ends, c, undefined, notes, combo.numdate);
        options.ends_at = instantOfWall(z, day + DAY - 1000);
        notes.push(`until ${localIso(day).slice(0, 10)}: that day included`);
      }
    }
  }
  if (f.window) {
    const w = f.window;
    if (w.from === undefined || w.to === undefined)
      throw new Unreadable('"only" wants the hours of a window: "only from 09:00 to 18:00"');
    const hhmm = (t: Time) => `${pad(t.h)}:${pad(t.m)}`;
    options.window = {
      ...(w.days.length > 0 ? { days: [...new Set(w.days)] } : {}),
      from: hhmm(w.from),
      to: w.to.h === 24 || (w.to.h === 0 && w.to.m === 0 && w.from.h > 0) ? '24:00' : hhmm(w.to),
      outside: w.outside,
    };
    if (zone !== undefined && (kind === 'INTERVAL' || kind === 'DELAY' || kind === 'FIXED_DELAY'))
      options.timezone = zone;
  }
  const durationDelay = f.delay ? isoDuration(f.delay) : undefined;
  switch (kind) {
    case 'DELAY': {
      // "через день в 9:00": a delay and a time of day are two schedules (every other day? tomorrow?)
      if (times.length > 0 || f.date || f.weekdays.length > 0 || f.minuteOfHour !== undefined)
        throw new Unreadable(
          'a delay from now and a day or a time of day: say one ("tomorrow at 9:00", "every other day at 9:00", "in 1 day")',
        );
      const timing: Timing = {
        kind: 'DELAY',
        delay: durationDelay!,
        ...(f.anchor ? { anchor: f.anchor } : {}),
      };
      if (!f.anchor) notes.push("counts from the schedule's creation");
      return { timing, options, notes };
    }
    case 'FIXED_DELAY': {
      const every = isoDuration({ second: f.every!.n });
      notes.push('each run starts this long after the previous one finished');
      return { timing: { kind: 'INTERVAL', every, mode: 'FIXED_DELAY' }, options, notes };
    }
    case 'INTERVAL':
      return buildInterval(f, zone, clock, options, notes, times);
    case 'DEADLINE': {
      if (!clock) throw new Unreadable('a deadline needs a zone');
      const at = wallAt(f, clock, times, notes, combo.numdate);
      if (at === undefined)
        throw new Unreadable(
          'the deadline\'s date and time are not in the words: say them ("deadline 31 December at 17:00"), or create a DEADLINE timing with `at`',
        );
      const reminders = f.reminders.map(isoDuration);
      const timing: Timing = {
        kind: 'DEADLINE',
        at: localIso(at),
        timezone: clock.zone,
        ...(reminders.length > 0 ? { reminders } : {}),
      };
      return { timing, options, notes };
    }
    case 'ONE_TIME': {
      if (f.instant) return { timing: { kind: 'ONE_TIME', at: f.instant }, options, notes };
      if (!clock) throw new Unreadable('a time of day needs a zone');
      const at = wallAt(f, clock, times, notes, combo.numdate);
      if (at === undefined)
        throw new Unreadable('no date or time of day to run once at (say which day, or "every …")');
      if (times.length > 1)
        throw new Unreadable('one time, several times of day: say "every day at …" to repeat');
      return { timing: { kind: 'ONE_TIME', at: localIso(at), timezone: clock.zone }, options, notes };
    }
    case 'RECURRENCE':
      return buildRecurrence(f, clock!, options, notes, times, combo.monthDayMode);
    case 'BUSINESS_DAY':
      return buildBusinessDay(f, clock!, options, notes, times);
    default:
      throw new Unreadable(`no reading builds a ${kind} timing from words`);
  }
}

/** "the first business day of every month at 09:00": a BUSINESS_DAY timing in the zone. */
function buildBusinessDay(
  f: Features,
  clock: Clock,
  options: Reading['options'],
  notes: string[],
  times: Time[],
): Reading {
  const { n, months, raw } = f.businessOrdinal!;
  const every = f.every;
  if (every !== undefined && (every.n !== 1 || (every.unit !== 'month' && every.unit !== 'quarter')))
    throw new Unreadable(
      `"${raw}" of every ${every.n === 1 ? every.unit : `${every.n} ${every.unit}s`}: the Nth business day is of every month, of every quarter, or of the months named`,
    );
  if (every === undefined && months === undefined)
    throw new Unreadable(
      `"${raw}" of what: say "of the month", "of the quarter" or the months ("of January and July")`,
    );
  if (months !== undefined && every?.unit === 'quarter')
    throw new Unreadable(`"${raw}": of the quarter, or of the months named? say one`);
  if (times.length > 1)
    throw new Unreadable(
      `"${raw}" at ${times.length} times of day: a business day rule has one time ("at 09:00"); make one schedule for each`,
    );
  const t = times[0] ?? { h: 0, m: 0, s: 0 };
  if (times.length === 0) notes.push('no time of day given: at 00:00');
  return {
    timing: {
      kind: 'BUSINESS_DAY',
      period: every?.unit === 'quarter' ? 'QUARTER' : 'MONTH',
      n,
      ...(months !== undefined ? { months } : {}),
      time: `${pad(t.h)}:${pad(t.m)}${t.s ? `:${pad(t.s)}` : ''}`,
      timezone: clock.zone,
    },
    options,
    notes,
  };
}

/** The one wall instant of a one-time or deadline: date (or today/tomorrow) + time (or 00:00). */
function wallAt(
  f: Features,
  clock: Clock,
  times: Time[],
  notes: string[],
  numdate: number,
): number | undefined {
  const time = times[0];
  const tod = time ? time.h * 3600_000 + time.m * 60_000 + time.s * 1000 : 0;
  let day: number;
  let date = f.date;
  if (f.weekdays.length > 1)
    throw new Unreadable(
      `one time, several days (${[...new Set(f.weekdays)].join(', ')}): say "every" to repeat on each ("every Monday and Friday"), or one day`,
    );
  if (!date && f.weekdays.length === 1) date = { kind: 'weekday', wd: f.weekdays[0]!, allowToday: false };
  if (date) {
    day = resolveDate(date, clock, time, notes, numdate);
    // "on Friday 5 December": the day named must be the date's day, else one of them is wrong
    if (
      f.date !== undefined &&
      f.weekdays.length === 1 &&
      WEEKDAY_ORDER[isoWeekday(day) - 1] !== f.weekdays[0]
    )
      throw new Unreadable(
        `${localIso(day).slice(0, 10)} is a ${dayName(day).split(/,? /)[0]}, not the day named`,
      );
  } else if (time) {
    day = clock.today + tod > clock.wallNow ? clock.today : clock.today + DAY;
    notes.push(
      `${pad(time.h)}:${pad(time.m)} ${day === clock.today ? 'today' : 'tomorrow'} (${localIso(day).slice(0, 10)} in ${clock.zone})`,
    );
  } else return undefined;
  if (!time) notes.push('no time of day given: at 00:00');
  return day + tod;
}

function buildInterval(
  f: Features,
  zone: string | undefined,
  clock: Clock | undefined,
  options: Reading['options'],
  notes: string[],
  times: Time[],
): Reading {
  const step = f.every!;
  const seconds = fixedSeconds({ [step.unit]: step.n });
  const named =
    f.hours?.business && f.weekdays.length === 0
      ? WORK
      : f.weekdays.length > 0
        ? [...new Set(f.weekdays)]
        : undefined;
  const days = withoutExcepted(named, f.exceptDays);
  const moh = f.minuteOfHour;
  if (moh !== undefined && (seconds % 3600 !== 0 || 86400 % seconds !== 0))
    throw new Unreadable(
      `a minute past the hour goes with every hour (or every 2, 3, 4, 6, 8 or 12 hours), not every ${describeStep(seconds)}`,
    );
  if (times.length > 0 && f.hours === undefined)
    // "every hour at 15:00", "every hour at 15": a minute past each hour, or hours from 15:00 on? never guessed
    throw new Unreadable(
      `every ${describeStep(seconds)} and a time of day: say the minute past the hour ("every hour at :15", "at 15 minutes past every hour") or the hours ("every hour from 15:00 to 24:00")`,
    );
  if (moh !== undefined && seconds === 3600 && f.hours === undefined && days === undefined && clock) {
    notes.push(`every hour at ${pad(moh)} minutes past the hour`);
    return {
      timing: { kind: 'RECURRENCE', rule: `FREQ=HOURLY;BYMINUTE=${moh};BYSECOND=0`, timezone: clock.zone },
      options,
      notes,
    };
  }
  const restricted = f.hours !== undefined || days !== undefined || times.length > 0 || moh !== undefined;
  if (!restricted) {
    const timing: Timing = { kind: 'INTERVAL', every: isoDuration({ second: seconds }) };
    if (options.starts_at) timing.anchor = options.starts_at;
    notes.push(
      options.starts_at
        ? 'every step counted from the start'
        : "every step counted from the schedule's creation",
    );
    return { timing, options, notes };
  }
  const hours = f.hours ?? {
    from: { h: 0, m: 0, s: 0 },
    to: { h: 24, m: 0, s: 0 },
    business: false,
    inclusive: false,
  };
  const fromMin = hours.from.h * 60 + hours.from.m;
  const toMin = hours.to.h * 60 + hours.to.m;
  const start =
    moh !== undefined
      ? hours.from.h * 60 + moh + (moh < hours.from.m ? 60 : 0)
      : times[0]
        ? times[0].h * 60 + times[0].m
        : fromMin;
  const aligned =
    seconds % 60 === 0 &&
    ((seconds < 3600 && 3600 % seconds === 0) || (seconds % 3600 === 0 && 86400 % seconds === 0));
  if (aligned && toMin > fromMin && clock) {
    const stepMin = seconds / 60;
    const slots: number[] = [];
    for (let m = start; hours.inclusive ? m <= toMin : m < toMin; m += stepMin)
      if (m < 24 * 60) slots.push(m);
    const byHour = [...new Set(slots.map((m) => Math.floor(m / 60)))];
    const byMinute = [...new Set(slots.map((m) => m % 60))];
    const rules = byMinuteGroups(slots).map(
      (g) =>
        `FREQ=DAILY${days ? `;BYDAY=${days.join(',')}` : ''};BYHOUR=${g.hours.join(',')};BYMINUTE=${g.minutes.join(',')};BYSECOND=0`,
    );
    notes.push(
      `every ${describeStep(seconds)} on the clock from ${hm(slots[0]!)} to ${hm(slots[slots.length - 1]!)}${days ? ` on ${days.join(',')}` : ''}`,
    );
    const rule =
      rules.length === 1 && byHour.length * byMinute.length === slots.length
        ? rules[0]!
        : multiRule(clock, rules);
    return { timing: { kind: 'RECURRENCE', rule, timezone: clock.zone }, options, notes };
  }
  if (!zone) throw new Unreadable('hours of the day need a zone');
  if (moh !== undefined)
    throw new Unreadable('a minute past the hour within hours that pass midnight is not read: say the times');
  options.window = {
    ...(days ? { days } : {}),
    from: hm(fromMin),
    to: toMin >= 24 * 60 ? '24:00' : hm(toMin),
    outside: 'SKIP',
  };
  options.timezone = zone;
  notes.push(`every ${describeStep(seconds)} from the schedule's creation, only inside the window`);
  return { timing: { kind: 'INTERVAL', every: isoDuration({ second: seconds }) }, options, notes };
}

const hm = (minutes: number) => `${pad(Math.floor(minutes / 60))}:${pad(minutes % 60)}`;
function describeStep(seconds: number): string {
  if (seconds % 3600 === 0) return seconds === 3600 ? 'hour' : `${seconds / 3600} hours`;
  if (seconds % 60 === 0) return seconds === 60 ? 'minute' : `${seconds / 60} minutes`;
  return `${seconds} seconds`;
}

/** Slots (minutes of the day) grouped so that each group is a product of hours × minutes. */
function byMinuteGroups(slots: number[]): Array<{ hours: number[]; minutes: number[] }> {
  const byMinuteSet = new Map<string, number[]>();
  const hoursOf = new Map<number, number[]>();
  for (const m of slots) {
    const h = Math.floor(m / 60);
    hoursOf.set(h, [...(hoursOf.get(h) ?? []), m % 60]);
  }
  for (const [h, minutes] of hoursOf) {
    const key = minutes.join(',');
    byMinuteSet.set(key, [...(byMinuteSet.get(key) ?? []), h]);
  }
  return [...byMinuteSet].map(([key, hours]) => ({ hours, minutes: key.split(',').map(Number) }));
}

/**
 * Several RRULEs share one DTSTART: an RFC 5545 block. DTSTART is the minute of `now`, where a bare RRULE
 * body starts (the schedule's creation), so that counts and intervals run from the same point.
 */
function multiRule(clock: Clock, rules: string[]): string {
  const p = partsOf(Math.floor(clock.wallNow / 60_000) * 60_000);
  const dtstart = `DTSTART;TZID=${clock.zone}:${p.year}${pad(p.month)}${pad(p.day)}T${pad(p.hour)}${pad(p.minute)}00`;
  return [dtstart, ...rules.map((r) => `RRULE:${r}`)].join('\n');
}

function buildRecurrence(
  f: Features,
  clock: Clock,
  options: Reading['options'],
  notes: string[],
  times: Time[],
  monthDayMode: number,
): Reading {
  const every =
    f.every ??
    (f.ordWeekdays.length > 0 || f.monthDays.length > 0
      ? { unit: 'month' as Unit, n: 1 }
      : f.yearlyDate
        ? { unit: 'year' as Unit, n: 1 }
        : { unit: 'week' as Unit, n: 1 });
  const parts: string[] = [];
  const n = every.n;
  const weekdays = (withoutExcepted([...new Set(f.weekdays)], f.exceptDays) ?? []).sort(
    (a, b) => WEEKDAY_ORDER.indexOf(a) - WEEKDAY_ORDER.indexOf(b),
  );
  let freq: string;
  switch (every.unit) {
    case 'day':
      freq = 'DAILY';
      break;
    case 'week':
      freq = 'WEEKLY';
      break;
    case 'month':
      freq = 'MONTHLY';
      break;
    case 'quarter':
      freq = 'QUARTERLY';
      break;
    case 'year':
      freq = 'YEARLY';
      break;
    default:
      // a clock step with a date or a once: "every hour on 5 September" is not a schedule we can say
      throw new Unreadable(`every ${every.n} ${every.unit} cannot be combined with the days given`);
  }
  if (freq === 'QUARTERLY') {
    // the last day of a quarter is in its last month, not in the month it opens with
    if (f.monthDays.some((d) => d < 0) || f.ordWeekdays.some((o) => o.ord < 0))
      throw new Unreadable(
        'the last day of a quarter is not read: say the rule (FREQ=YEARLY;BYMONTH=3,6,9,12;BYMONTHDAY=-1)',
      );
    parts.push('FREQ=YEARLY', `BYMONTH=${[1, 4, 7, 10].join(',')}`);
    if (f.monthDays.length === 0 && f.ordWeekdays.length === 0) {
      f.monthDays.push(1);
      notes.push('every quarter: on the 1st of January, April, July and October');
    }
  } else {
    parts.push(`FREQ=${freq}`);
    if (n > 1) parts.push(`INTERVAL=${n}`);
  }
  if (f.yearlyDate) {
    parts.push(`BYMONTH=${f.yearlyDate.mo}`, `BYMONTHDAY=${f.yearlyDate.d}`);
  } else if (freq === 'YEARLY' && f.date?.kind === 'ymd') {
    parts.push(`BYMONTH=${f.date.mo}`, `BYMONTHDAY=${f.date.d}`);
  }
  if (weekdays.length > 0 && f.ordWeekdays.length === 0 && freq !== 'DAILY' && freq !== 'WEEKLY')
    // "every month on Friday": which Friday? every one is "every Friday", one of them "the last Friday"
    throw new Unreadable(
      `days of the week with every ${every.unit}: say which ("the first Friday of every month") or "every Friday"`,
    );
  if (f.ordWeekdays.length > 0) {
    // a day said twice ("the first Monday and the first Monday") is one day: a rule names each value once
    parts.push(`BYDAY=${[...new Set(f.ordWeekdays.map((o) => `${o.ord}${o.wd}`))].join(',')}`);
  } else if (weekdays.length > 0) {
    parts.push(`BYDAY=${weekdays.join(',')}`);
  }
  if (f.monthDays.length > 0) {
    const big = f.monthDays.filter((d) => d >= 29);
    if (f.monthDays.some((d) => d > 31 || d === 0))
      throw new Unreadable('a day of the month is from 1 to 31');
    if (monthDayMode === 1 && big.length > 0) {
      // the last day of a month shorter than the day asked for
      const d = Math.max(...big);
      parts.push(d === 31 ? 'BYMONTHDAY=-1' : `BYMONTHDAY=${range(28, d).join(',')}`);
      if (d !== 31) parts.push('BYSETPOS=-1');
      notes.push(`the ${englishOrdinal(d)}, or the last day of a month without one`);
    } else {
      parts.push(`BYMONTHDAY=${[...new Set(f.monthDays)].join(',')}`);
      if (big.length > 0)
        notes.push(`the ${englishOrdinal(Math.max(...big))}: months without one are skipped`);
    }
  }
  let rule: string;
  const ts =
    times.length > 0
      ? [...new Map(times.map((t) => [`${t.h}:${t.m}:${t.s}`, t])).values()]
      : [{ h: 0, m: 0, s: 0 }];
  if (times.length === 0) notes.push('no time of day given: at 00:00');
  const sameMinute = new Set(ts.map((t) => `${t.m}:${t.s}`)).size === 1;
  const sameHour = new Set(ts.map((t) => t.h)).size === 1;
  if (sameMinute || sameHour) {
    const hours = [...new Set(ts.map((t) => t.h))].sort((a, b) => a - b);
    const minutes = [...new Set(ts.map((t) => t.m))].sort((a, b) => a - b);
    rule = [
      ...parts,
      `BYHOUR=${hours.join(',')}`,
      `BYMINUTE=${minutes.join(',')}`,
      `BYSECOND=${ts[0]!.s}`,
    ].join(';');
  } else {
    rule = multiRule(
      clock,
      ts.map((t) => [...parts, `BYHOUR=${t.h}`, `BYMINUTE=${t.m}`, `BYSECOND=${t.s}`].join(';')),
    );
  }
  if (f.hours)
    throw new Unreadable(
      `${f.hours.business ? 'business hours' : 'hours from … to …'} with days but no step: say what runs within them ("every hour from 9 to 17", "every 15 minutes during business hours") or the time ("at 9:00")`,
    );
  if (f.minuteOfHour !== undefined)
    throw new Unreadable(
      'a minute past the hour goes with "every hour" ("every hour at :15"); for once a day say the time ("at 09:15")',
    );
  if (
    n > 1 &&
    options.starts_at === undefined &&
    !f.fromCreation &&
    !rule.includes('\n') &&
    freq !== 'YEARLY'
  ) {
    // "every 2 weeks on Tuesday" counts from the first run, not from the week the schedule is made in
    const first = firstRunDay(clock, rule.replace(`;INTERVAL=${n}`, ''));
    if (first !== undefined) {
      options.starts_at = instantOfWall(clock.zone, first);
      notes.push(
        `every ${n} ${every.unit}s counted from ${localIso(first).slice(0, 10)}, the day of the first run`,
      );
    }
  }
  return { timing: { kind: 'RECURRENCE', rule, timezone: clock.zone }, options, notes };
}

/** The days named (every day when none are) without the days excepted; undefined when nothing is said. */
function withoutExcepted(named: Weekday[] | undefined, except: Weekday[]): Weekday[] | undefined {
  if (except.length === 0) return named?.length ? named : undefined;
  const left = (named?.length ? named : WEEKDAY_ORDER).filter((d) => !except.includes(d));
  if (left.length === 0) throw new Unreadable('every day named is excepted');
  return left;
}

/** 00:00 (wall) of the day the rule first fires after now, every period counted. */
function firstRunDay(clock: Clock, rule: string): number | undefined {
  const minute = new Date(Math.floor(clock.nowMs / 60_000) * 60_000).toISOString();
  const calendar = compileCalendar({
    scheduleId: 'words',
    timing: { kind: 'RECURRENCE', rule, timezone: clock.zone },
    createdAt: minute,
    defaultDtstart: minute,
  });
  const slot = calendar.nextSlots(new Date(clock.nowMs).toISOString(), 1).slots[0];
  if (!slot) return undefined;
  const [y, mo, d] = slot.scheduledFor.slice(0, 10).split('-').map(Number) as [number, number, number];
  return wallFrom(y, mo, d);
}

const range = (a: number, b: number) => Array.from({ length: b - a + 1 }, (_, i) => a + i);
const monthName = (mo: number) => MONTH_NAMES[mo - 1] ?? `month ${mo}`;
