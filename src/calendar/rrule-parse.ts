/**
 * Strict RFC 5545 RECUR parser (§3.3.10) and iCalendar block parser (DTSTART / RRULE / EXRULE /
 * RDATE / EXDATE). We parse ourselves instead of `RRule.parseString` so that every bad input gets a
 * precise CalendarError and nothing unknown is silently ignored.
 */
import { parseDuration } from './duration.js';
import { CalendarError, fail, type ListParse, repeatReason } from './errors.js';
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
  const freqText = seen.get('FREQ');
  if (freqText === undefined) fail(field, 'FREQ is required', 'INVALID_RRULE');
  const freq = freqText.toUpperCase() as Freq;
  if (!FREQS.includes(freq))
    fail(field, `FREQ=${clip(freqText, 20)} is not one of ${FREQS.join(', ')}`, 'INVALID_RRULE');
  const rule: RecurRule = { freq, interval: 1, wkst: 1 };
  for (const [key, value] of seen) {
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
      case 'BYDAY': {
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
        rule.byday = days;
        break;
      }
    }
  }
  // RFC 5545 §3.3.10 constraints
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
  return rule;
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

/** An RRULE or EXRULE line of a block, with the name its errors go by. */
export interface BlockRule {
  /** `RRULE`, `RRULE 2 of 3`, `EXRULE`…; '' for the one RRULE of a block with no EXRULE or RDATE */
  label: string;
  rule: RecurRule;
}

export interface IcsBlock {
  dtstart?: DateValue;
  /** every RRULE line: the set is their union (RFC 5545 §3.8.5.3 allows several) */
  rrules: BlockRule[];
  /** every EXRULE line (RFC 2445, still emitted by calendar tools): their occurrences are removed */
  exrules: BlockRule[];
  /** RDATE values; a PERIOD contributes its start (a slot has no duration) */
  rdates: DateValue[];
  exdates: DateValue[];
}

const PROPS = ['DTSTART', 'RRULE', 'RDATE', 'EXDATE', 'EXRULE', 'DTEND', 'DURATION'];

/** The VALUE types RFC 5545 allows per property (the first is the default). */
const VALUE_TYPES: Record<string, readonly string[]> = {
  DTSTART: ['DATE-TIME', 'DATE'],
  RDATE: ['DATE-TIME', 'DATE', 'PERIOD'],
  EXDATE: ['DATE-TIME', 'DATE'],
};

/** Rule lines and values per block, at most: each rule is one more stream to merge per slot. */
const MAX_RULES = 64;
const MAX_VALUES = 10_000;

/** True when the text is an RFC 5545 block rather than a bare RRULE body. */
export function isBlock(text: string): boolean {
  return /(^|\s)(DTSTART|RRULE|RDATE|EXDATE|EXRULE)[;:]/i.test(text);
}

/** Splits a block into content lines (unfolds RFC 5545 line folding; tolerates space-separated lines). */
export function splitLines(text: string): string[] {
  const unfolded = text.replace(/\r\n/g, '\n').replace(/\n[ \t]/g, '');
  const lines: string[] = [];
  for (const line of unfolded.split('\n')) {
    const t = line.trim();
    if (t === '') continue;
    for (const piece of t.split(/\s+(?=(?:DTSTART|RRULE|RDATE|EXDATE|EXRULE)[;:])/i))
      lines.push(piece.trim());
  }
  return lines;
}

/** `reason`, prefixed with the rule line it is about when the block has a name for it */
export function labelled(label: string, reason: string): string {
  return label === '' ? reason : `${label}: ${reason}`;
}

/** Parses a rule line, naming the line in its errors. */
function parseRuleLine(field: string, label: string, value: string, lists: ListParse): RecurRule {
  try {
    return parseRecur(field, value, lists);
  } catch (e) {
    if (e instanceof CalendarError && label !== '')
      throw new CalendarError(e.field, labelled(label, e.reason), e.code);
    throw e;
  }
}

/**
 * RFC 5545 §3.3.9 PERIOD, `start/end` or `start/duration`: the start is the occurrence. The end
 * must follow the start and a duration must be positive, though a slot has no length: a period that
 * is wrong is a calendar that is wrong, and saying so beats guessing.
 */
function parsePeriod(field: string, name: string, text: string, tzid: string | undefined): DateValue {
  const label = `${name};VALUE=PERIOD:${text}`;
  const slash = text.indexOf('/');
  if (slash < 0) {
    fail(
      field,
      `${clip(label)}: a period is start/end or start/duration (e.g. 20270104T090000/PT1H)`,
      'INVALID_RRULE',
    );
  }
  const start = parseIcsDateTime(field, label, text.slice(0, slash), tzid);
  const rest = text.slice(slash + 1).trim();
  if (start.kind === 'wall' && start.dateOnly)
    fail(field, `${clip(label)}: a period starts at a date-time, not a date`, 'INVALID_RRULE');
  if (/^[+-]?P/i.test(rest)) {
    // RFC 5545 dur-value: weeks, days and time, no years or months; a sign only as "+"
    if (rest.startsWith('-')) fail(field, `${clip(label)}: the duration must be positive`, 'INVALID_RRULE');
    try {
      parseDuration(field, rest.replace(/^\+/, '').toUpperCase(), { fixedOnly: true });
    } catch (e) {
      if (e instanceof CalendarError) fail(field, `${clip(label)}: ${e.reason}`, 'INVALID_RRULE');
      throw e;
    }
    return start;
  }
  const end = parseIcsDateTime(field, label, rest, tzid);
  if (end.kind === 'wall' && end.dateOnly)
    fail(field, `${clip(label)}: a period ends at a date-time, not a date`, 'INVALID_RRULE');
  if (end.kind !== start.kind) {
    fail(field, `${clip(label)}: start and end must both be UTC (…Z) or both local`, 'INVALID_RRULE');
  }
  const at = (v: DateValue) => (v.kind === 'instant' ? v.instant : v.wall);
  if (at(end) <= at(start))
    fail(field, `${clip(label)}: the period must end after it starts`, 'INVALID_RRULE');
  return start;
}

/** Parses an RFC 5545 block; a value a rule line's BY-list repeats as `lists` says. */
export function parseBlock(field: string, text: string, lists: ListParse = {}): IcsBlock {
  const block: IcsBlock = { rrules: [], exrules: [], rdates: [], exdates: [] };
  const lines = splitLines(text);
  const count = (name: string) => lines.filter((l) => new RegExp(`^${name}[;:]`, 'i').test(l)).length;
  const totals: Record<string, number> = { RRULE: count('RRULE'), EXRULE: count('EXRULE') };
  if (totals.RRULE! + totals.EXRULE! > MAX_RULES)
    fail(field, `too many RRULE and EXRULE lines (max ${MAX_RULES})`, 'INVALID_RRULE');
  // the RRULE of a plain block (DTSTART, RRULE, EXDATE) is "the rule"; among other members it is named
  const alone = totals.RRULE === 1 && totals.EXRULE === 0 && count('RDATE') === 0;
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon <= 0)
      fail(field, `"${clip(line)}" is not an iCalendar content line (NAME[;PARAM=…]:VALUE)`, 'INVALID_RRULE');
    const head = line.slice(0, colon);
    const value = line.slice(colon + 1);
    const [nameRaw, ...paramParts] = head.split(';');
    const name = nameRaw!.trim().toUpperCase();
    const params = new Map<string, string>();
    for (const p of paramParts) {
      const eq = p.indexOf('=');
      if (eq <= 0) fail(field, `${name}: bad parameter "${clip(p)}"`, 'INVALID_RRULE');
      params.set(
        p.slice(0, eq).trim().toUpperCase(),
        p
          .slice(eq + 1)
          .trim()
          .replace(/^"|"$/g, ''),
      );
    }
    if (!PROPS.includes(name)) fail(field, `unknown property "${clip(name, 20)}"`, 'INVALID_RRULE');
    if (name === 'DTEND' || name === 'DURATION') continue; // event length: irrelevant to when it starts
    const tzid = params.get('TZID');
    const valueType = params.get('VALUE')?.toUpperCase();
    for (const k of params.keys()) {
      if (k !== 'TZID' && k !== 'VALUE')
        fail(field, `${name}: parameter ${clip(k, 20)} is not supported`, 'UNSUPPORTED_RRULE');
    }
    const types = VALUE_TYPES[name];
    if (valueType !== undefined && types !== undefined && !types.includes(valueType)) {
      fail(
        field,
        `${name}: VALUE=${clip(valueType, 20)} is not a value type of ${name} (${types.join(', ')})`,
        'INVALID_RRULE',
      );
    }
    switch (name) {
      case 'DTSTART': {
        if (block.dtstart) fail(field, 'DTSTART appears twice', 'INVALID_RRULE');
        if (value.includes(',')) fail(field, 'DTSTART has a single value', 'INVALID_RRULE');
        block.dtstart = parseIcsDateTime(field, `DTSTART:${value}`, value, tzid);
        break;
      }
      case 'RRULE':
      case 'EXRULE': {
        const list = name === 'RRULE' ? block.rrules : block.exrules;
        const label =
          totals[name] === 1 ? (alone ? '' : name) : `${name} ${list.length + 1} of ${totals[name]}`;
        if (tzid !== undefined || valueType !== undefined)
          fail(field, `${label || name} takes no parameters`, 'INVALID_RRULE');
        list.push({ label, rule: parseRuleLine(field, label, value, lists) });
        break;
      }
      case 'RDATE':
      case 'EXDATE': {
        const list = name === 'RDATE' ? block.rdates : block.exdates;
        for (const v of value.split(',')) {
          if (list.length >= MAX_VALUES)
            fail(field, `too many ${name} values (max ${MAX_VALUES})`, 'INVALID_RRULE');
          list.push(
            valueType === 'PERIOD'
              ? parsePeriod(field, name, v, tzid)
              : parseIcsDateTime(field, `${name}:${v}`, v, tzid),
          );
        }
        break;
      }
    }
  }
  if (block.rrules.length === 0 && block.rdates.length === 0) {
    fail(
      field,
      block.exrules.length > 0
        ? 'EXRULE only removes occurrences: the block has no RRULE or RDATE to remove them from'
        : 'the block has neither an RRULE nor an RDATE',
      'INVALID_RRULE',
    );
  }
  return block;
}
