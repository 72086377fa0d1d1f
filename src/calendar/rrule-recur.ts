/**
 * Strict RFC 5545 RECUR value parser (§3.3.10) and the date-time values rules and blocks carry. We parse
 * ourselves instead of `RRule.parseString` so that every bad input gets a precise CalendarError and
 * nothing unknown is silently ignored. The block around rules (DTSTART, RDATE…) is rrule-parse.ts.
 */
import { fail, type ListParse, repeatReason } from './errors.js';
import { checkRanges, clip, type ParsedDateTime, parseDateTime } from './floating.js';

export type Freq = 'YEARLY' | 'MONTHLY' | 'WEEKLY' | 'DAILY' | 'HOURLY' | 'MINUTELY' | 'SECONDLY';
export const FREQS: readonly Freq[] = [
  'YEARLY',
  'MONTHLY',
  'WEEKLY',
  'DAILY',
  'HOURLY',
  'MINUTELY',
  'SECONDLY',
];
export const WEEKDAYS = ['MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU'] as const;

export interface ByDay {
  /** 1 = Monday … 7 = Sunday (ISO) */
  weekday: number;
  /** ordinal (±1…±53) or 0 for every such weekday */
  n: number;
}

/** An RFC 5545 date-time value as written: floating/TZID wall clock or UTC instant. */
export type DateValue =
  | { kind: 'wall'; wall: number; tzid?: string; dateOnly: boolean }
  | { kind: 'instant'; instant: number };

export interface RecurRule {
  freq: Freq;
  interval: number;
  count?: number;
  until?: DateValue;
  bysecond?: number[];
  byminute?: number[];
  byhour?: number[];
  byday?: ByDay[];
  bymonthday?: number[];
  byyearday?: number[];
  byweekno?: number[];
  bymonth?: number[];
  bysetpos?: number[];
  /** 1 = Monday … 7 = Sunday */
  wkst: number;
}

const KEYS = new Set([
  'FREQ',
  'UNTIL',
  'COUNT',
  'INTERVAL',
  'BYSECOND',
  'BYMINUTE',
  'BYHOUR',
  'BYDAY',
  'BYMONTHDAY',
  'BYYEARDAY',
  'BYWEEKNO',
  'BYMONTH',
  'BYSETPOS',
  'WKST',
]);

function intList(
  field: string,
  key: string,
  value: string,
  min: number,
  max: number,
  signed: boolean,
  { refuseRepeats = false }: ListParse,
): number[] {
  const out: number[] = [];
  const seen = new Set<number>();
  for (const part of value.split(',')) {
    const re = signed ? /^[+-]?\d{1,3}$/ : /^\+?\d{1,3}$/;
    if (!re.test(part))
      fail(field, `${key}: "${clip(part)}" is not ${signed ? 'a (signed) ' : 'an '}integer`, 'INVALID_RRULE');
    const n = Number(part);
    const abs = Math.abs(n);
    if (abs < min || abs > max || (signed && n === 0)) {
      fail(
        field,
        `${key}: ${part} is out of range (${signed ? `±${Math.max(min, 1)}` : min}..${signed ? '±' : ''}${max})`,
        'INVALID_RRULE',
      );
    }
    if (seen.has(n)) {
      if (refuseRepeats) fail(field, repeatReason(key, clip(part)), 'INVALID_RRULE');
      continue;
    }
    seen.add(n);
    out.push(n);
  }
  return out;
}

function weekdayIndex(field: string, key: string, code: string): number {
  const i = WEEKDAYS.indexOf(code.toUpperCase() as (typeof WEEKDAYS)[number]);
  if (i < 0) fail(field, `${key}: "${clip(code)}" is not a weekday (MO,TU,WE,TH,FR,SA,SU)`, 'INVALID_RRULE');
  return i + 1;
}

/** Parses a RECUR value such as `FREQ=DAILY;BYHOUR=9`; a value a BY-list repeats as `lists` says. */
export function parseRecur(field: string, text: string, lists: ListParse = {}): RecurRule {
  const parts = ruleParts(field, text);
  const freqText = parts.get('FREQ');
  if (freqText === undefined) fail(field, 'FREQ is required', 'INVALID_RRULE');
  const freq = freqText.toUpperCase() as Freq;
  if (!FREQS.includes(freq))
    fail(field, `FREQ=${clip(freqText, 20)} is not one of ${FREQS.join(', ')}`, 'INVALID_RRULE');
  const rule: RecurRule = { freq, interval: 1, wkst: 1 };
  for (const [key, value] of parts) setPart(field, rule, key, value, lists);
  checkCombinations(field, rule);
  return rule;
}

/** The rule parts by name, in the order written; each known, once, with a value. */
function ruleParts(field: string, text: string): Map<string, string> {
  const body = text.trim().replace(/^RRULE:/i, '');
  if (body === '') fail(field, 'empty RRULE', 'INVALID_RRULE');
  const seen = new Map<string, string>();
  for (const raw of body.split(';')) {
    if (raw === '') continue;
    const eq = raw.indexOf('=');
    if (eq <= 0) fail(field, `"${clip(raw)}" is not KEY=VALUE`, 'INVALID_RRULE');
    const key = raw.slice(0, eq).trim().toUpperCase();
    const value = raw.slice(eq + 1).trim();
    if (key === 'RSCALE' || key === 'SKIP') {
      fail(field, `${key} (RFC 7529) is not supported`, 'UNSUPPORTED_RRULE');
    }
    if (!KEYS.has(key)) fail(field, `unknown rule part "${clip(key, 20)}"`, 'INVALID_RRULE');
    if (seen.has(key)) fail(field, `${key} appears twice`, 'INVALID_RRULE');
    if (value === '') fail(field, `${key} has no value`, 'INVALID_RRULE');
    seen.set(key, value);
  }
  return seen;
}

/** Sets one rule part (FREQ aside) on `rule`, checking its value. */
function setPart(field: string, rule: RecurRule, key: string, value: string, lists: ListParse): void {
  switch (key) {
    case 'FREQ':
      break;
    case 'INTERVAL':
    case 'COUNT': {
      if (!/^\d{1,10}$/.test(value) || Number(value) < 1) {
        fail(field, `${key}=${clip(value, 20)} must be a positive integer`, 'INVALID_RRULE');
      }
      const n = Number(value);
      if (key === 'INTERVAL') {
        if (n > 1_000_000) fail(field, `INTERVAL=${n} is too large (max 1000000)`, 'INVALID_RRULE');
        rule.interval = n;
      } else {
        if (n > 1_000_000_000) fail(field, `COUNT=${n} is too large`, 'INVALID_RRULE');
        rule.count = n;
      }
      break;
    }
    case 'UNTIL':
      rule.until = parseIcsDateTime(field, `UNTIL=${value}`, value, undefined);
      break;
    case 'BYSECOND':
      if (value.split(',').includes('60'))
        fail(field, 'BYSECOND=60 (leap second) is not supported', 'UNSUPPORTED_RRULE');
      rule.bysecond = intList(field, key, value, 0, 59, false, lists);
      break;
    case 'BYMINUTE':
      rule.byminute = intList(field, key, value, 0, 59, false, lists);
      break;
    case 'BYHOUR':
      rule.byhour = intList(field, key, value, 0, 23, false, lists);
      break;
    case 'BYMONTHDAY':
      rule.bymonthday = intList(field, key, value, 1, 31, true, lists);
      break;
    case 'BYYEARDAY':
      rule.byyearday = intList(field, key, value, 1, 366, true, lists);
      break;
    case 'BYWEEKNO':
      rule.byweekno = intList(field, key, value, 1, 53, true, lists);
      break;
    case 'BYMONTH':
      rule.bymonth = intList(field, key, value, 1, 12, false, lists);
      break;
    case 'BYSETPOS':
      rule.bysetpos = intList(field, key, value, 1, 366, true, lists);
      break;
    case 'WKST':
      rule.wkst = weekdayIndex(field, key, value);
      break;
    case 'BYDAY':
      rule.byday = byDayList(field, key, value, lists);
      break;
  }
}

/** BYDAY: `[±n]MO..SU`, comma-separated. */
function byDayList(field: string, key: string, value: string, lists: ListParse): ByDay[] {
  const days: ByDay[] = [];
  for (const part of value.split(',')) {
    const m = /^([+-]?\d{1,2})?([A-Za-z]{2})$/.exec(part.trim());
    if (!m) fail(field, `BYDAY: "${clip(part)}" is not [±n]MO..SU`, 'INVALID_RRULE');
    const weekday = weekdayIndex(field, key, m[2]!);
    const n = m[1] === undefined ? 0 : Number(m[1]);
    if (m[1] !== undefined && (n === 0 || Math.abs(n) > 53)) {
      fail(field, `BYDAY: ordinal in "${part}" must be ±1..±53`, 'INVALID_RRULE');
    }
    if (days.some((d) => d.weekday === weekday && d.n === n)) {
      if (lists.refuseRepeats) fail(field, repeatReason(key, clip(part.trim())), 'INVALID_RRULE');
      continue;
    }
    days.push({ weekday, n });
  }
  return days;
}

/** RFC 5545 §3.3.10: the rule parts that do not go together. */
function checkCombinations(field: string, rule: RecurRule): void {
  if (rule.count !== undefined && rule.until !== undefined) {
    fail(field, 'COUNT and UNTIL must not both be given', 'INVALID_RRULE');
  }
  const f = rule.freq;
  if (rule.byday?.some((d) => d.n !== 0)) {
    if (f !== 'MONTHLY' && f !== 'YEARLY') {
      fail(
        field,
        `BYDAY with an ordinal (e.g. 1MO) is only valid with FREQ=MONTHLY or YEARLY, not ${f}`,
        'INVALID_RRULE',
      );
    }
    if (f === 'YEARLY' && rule.byweekno) {
      fail(field, 'BYDAY with an ordinal must not be combined with BYWEEKNO', 'INVALID_RRULE');
    }
  }
  if (rule.bymonthday && f === 'WEEKLY')
    fail(field, 'BYMONTHDAY is not valid with FREQ=WEEKLY', 'INVALID_RRULE');
  if (rule.byyearday && (f === 'DAILY' || f === 'WEEKLY' || f === 'MONTHLY')) {
    fail(field, `BYYEARDAY is not valid with FREQ=${f}`, 'INVALID_RRULE');
  }
  if (rule.byweekno && f !== 'YEARLY')
    fail(field, `BYWEEKNO is only valid with FREQ=YEARLY`, 'INVALID_RRULE');
  if (rule.bysetpos) {
    const other =
      rule.bysecond ||
      rule.byminute ||
      rule.byhour ||
      rule.byday ||
      rule.bymonthday ||
      rule.byyearday ||
      rule.byweekno ||
      rule.bymonth;
    if (!other) fail(field, 'BYSETPOS needs another BYxxx rule part', 'INVALID_RRULE');
  }
}

/** `20250101T090000`, `20250101T090000Z`, `20250101` (and ISO extended forms). */
export function parseIcsDateTime(
  field: string,
  label: string,
  value: string,
  tzid: string | undefined,
): DateValue {
  const v = value.trim();
  const basic = /^(\d{4})(\d{2})(\d{2})(?:T(\d{2})(\d{2})(\d{2})(Z)?)?$/i.exec(v);
  let parsed: ParsedDateTime;
  if (basic) {
    const [, y, mo, d, h, mi, s, z] = basic;
    checkRanges(
      field,
      label,
      Number(y),
      Number(mo),
      Number(d),
      Number(h ?? 0),
      Number(mi ?? 0),
      Number(s ?? 0),
    );
    parsed = {
      wall: Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h ?? 0), Number(mi ?? 0), Number(s ?? 0)),
      dateOnly: h === undefined,
    };
    if (z) parsed.offsetMs = 0;
  } else {
    try {
      parsed = parseDateTime(field, v);
    } catch {
      fail(
        field,
        `${clip(label)}: "${clip(v)}" is not an iCalendar date-time (e.g. 20260905T140000 or …Z)`,
        'INVALID_RRULE',
      );
    }
  }
  if (parsed.offsetMs !== undefined) {
    if (tzid !== undefined) fail(field, `${clip(label)}: a UTC value must not carry TZID`, 'INVALID_RRULE');
    return { kind: 'instant', instant: parsed.wall - parsed.offsetMs };
  }
  const out: DateValue = { kind: 'wall', wall: parsed.wall, dateOnly: parsed.dateOnly };
  if (tzid !== undefined) out.tzid = tzid;
  return out;
}
