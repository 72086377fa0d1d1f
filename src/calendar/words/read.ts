// Words → timings (docs/words.md "How it decides"). A slot filler: the scan (scan.ts) finds the parts of a
// schedule anywhere in the sentence (times, dates, days, frequencies, zones, bounds, delays, reminders) and
// marks the words it used; the assembly (assemble.ts) builds the timing from what was found. A word nothing
// used is an error naming it. Every choice the reader makes is a note; a choice it will not make is several
// readings.
import { CalendarError } from '../errors.js';
import { assemble } from './assemble.js';
import { readClauses } from './clauses.js';
import { ignorable, wordsOf } from './lexing.js';
import { readLiteral } from './literal.js';
import type { ReadInput, ReadOutcome, WordsLanguage } from './reading.js';
import { Unreadable } from './refusals.js';
import { scan } from './scan.js';

export type { ReadInput, Reading, ReadOutcome, RegionLookup, WordsLanguage } from './reading.js';

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

function readIn(original: string, input: ReadInput, language: WordsLanguage): ReadOutcome {
  const { text, dst, clause } = readClauses(original);
  const literal = readLiteral(text, input, language, clause);
  if (literal) return literal;
  const words = wordsOf(text, language);
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
