// The clauses an explanation (explain.ts) ends with, read back as options, so that a reading explained is
// the same reading when read again.
import type { Weekday } from '../timing.js';
import { english } from './en.js';
import type { BusinessDays, Reading } from './reading.js';
import { Unreadable } from './refusals.js';

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

/** `original` with the explanation's clauses blanked out (offsets kept), and what they said. */
export function readClauses(original: string): {
  text: string;
  dst: Reading['options']['dst'];
  clause: Partial<BusinessDays> | undefined;
} {
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
  return { text, dst, clause };
}
