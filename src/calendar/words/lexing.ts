// Text → the words the scan walks: the lexicon of each language, and a cursor over the words.
import { checkZone } from '../zone.js';
import { english } from './en.js';
import type { Lexicon } from './lexicon.js';
import type { RegionLookup, WordsLanguage } from './reading.js';
import { russian } from './ru.js';
import { type Token, tokenize, type Word } from './tokens.js';

const LEXICONS: Record<WordsLanguage, Lexicon> = { en: english, ru: russian };

export const zoneIdOf = (id: string): string | undefined => {
  try {
    return checkZone('timezone', id);
  } catch {
    return undefined;
  }
};

export function ignorable(tok: Token): boolean {
  if (tok.k === 'filler' || tok.k === 'punct') return true;
  return tok.k === 'kw' && ['at', 'on', 'of', 'and', 'in', 'by', 'time-word', 'once', 'this'].includes(tok.v);
}

export class Cursor {
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

/** The words of `text` in `language`, each with its token (a zone id checked against the tz database). */
export function wordsOf(text: string, language: WordsLanguage): Word[] {
  return tokenize(text, LEXICONS[language], zoneIdOf);
}
