/**
 * Strict RFC 5545 iCalendar block parser (DTSTART / RRULE / EXRULE / RDATE / EXDATE); each rule line is a
 * RECUR value (rrule-recur.ts). Every bad input gets a precise CalendarError; nothing unknown is
 * silently ignored.
 */
import { parseDuration } from './duration.js';
import { CalendarError, fail, type ListParse } from './errors.js';
import { clip } from './floating.js';
import { type DateValue, parseIcsDateTime, parseRecur, type RecurRule } from './rrule-recur.js';

// a bare RRULE body is a RECUR value: callers parse either through this module
export { parseRecur } from './rrule-recur.js';

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

/** A content line's name, value and the parameters this parser knows (TZID, VALUE). */
interface ContentLine {
  name: string;
  value: string;
  tzid: string | undefined;
  valueType: string | undefined;
}

/**
 * Reads `NAME[;PARAM=…]:VALUE`, refusing unknown properties and parameters and a VALUE type the property
 * does not take; null for DTEND and DURATION (event length: irrelevant to when it starts).
 */
function contentLine(field: string, line: string): ContentLine | null {
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
  if (name === 'DTEND' || name === 'DURATION') return null;
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
  return { name, value, tzid, valueType };
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
    const content = contentLine(field, line);
    if (content === null) continue;
    const { name, value, tzid, valueType } = content;
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
