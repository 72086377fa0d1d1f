// Literal rules: cron and RFC 5545 text pass through as they are, with the bounds an explanation adds.
import type { Timing } from '../timing.js';
import { ignorable, wordsOf, zoneIdOf } from './lexing.js';
import type { BusinessDays, ReadInput, Reading, ReadOutcome, WordsLanguage } from './reading.js';
import { zoneRequired } from './refusals.js';
import type { Word } from './tokens.js';

export function readLiteral(
  text: string,
  input: ReadInput,
  language: WordsLanguage,
  clause: Partial<BusinessDays> | undefined,
): ReadOutcome | undefined {
  const literal = splitLiteral(text);
  if (!literal) return undefined;
  const { cron, body, rest } = literal;
  const words = wordsOf(rest, language);
  const options: Reading['options'] = {};
  let zone = literalBounds(words, options);
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

/** The rule a text is (cron, an RRULE, an RFC 5545 block) and the text after it; undefined for none. */
function splitLiteral(text: string): { cron: boolean; body: string; rest: string } | undefined {
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
  return { cron: cron !== null, body, rest };
}

/**
 * The bounds an explanation writes after a literal rule: "starting <instant>", "until <instant>", "10
 * times", "counted from the schedule's creation" (a literal rule's own count), set on `options`; and the zone.
 */
function literalBounds(words: Word[], options: Reading['options']): string | undefined {
  let zone: string | undefined;
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
  return zone;
}
