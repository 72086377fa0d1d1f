// Text → tokens: the shapes every language writes the same way (dates, times, numbers, zone ids), then the
// lexicon's words and phrases, then a one-edit typo correction against the lexicon.
import { englishCities } from './en.js';
import type { Lexicon, LexToken } from './lexicon.js';

export type Token =
  | LexToken
  | { k: 'hhmm'; h: number; m: number; s: number }
  | { k: 'num-part'; v: number; part: 'am' | 'pm' }
  | {
      k: 'iso';
      text: string;
      date: [number, number, number];
      time?: [number, number, number];
      offset: boolean;
    }
  | { k: 'numdate'; a: number; b: number; year?: number; sep: '.' | '/' }
  | { k: 'decimal'; v: number }
  | { k: 'ordnum'; v: number }
  | { k: 'punct'; v: string }
  /** ":15": a minute past the hour, with no hour */
  | { k: 'minute-mark'; m: number }
  | { k: 'unknown' };

export interface Word {
  tok: Token;
  /** The text as written. */
  raw: string;
  offset: number;
  /** The lexicon word a misspelt one was read as. */
  corrected?: string;
  used: boolean;
}

const SHAPES =
  /(?<iso>\d{4}-\d{2}-\d{2}(?:[T ]\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?)|(?<numdate>(?:\d{1,2}\/\d{1,2}(?:\/\d{2,4})?|\d{1,2}\.\d{1,2}\.\d{2,4})(?![\d:]))|(?<hhmm>\d{1,2}[:.]\d{2}(?::\d{2})?(?:\s?[ap]m\b)?)|(?<minuteMark>(?<![\d:]):\d+(?![\d:]))|(?<thousands>\d{1,3}(?:,\d{3})+(?![\d.,]))|(?<decimal>\d+[.,]\d+)|(?<ordnum>\d+(?:st|nd|rd|th|-?го|-?е|-?ое|-?ого|-?й|-?ой|-?ый|-?ее|-?ым|-?ом|-?м)(?![\p{L}]))|(?<numPart>\d{1,2}\s?[ap]m\b)|(?<number>\d+)|(?<zoneId>[A-Za-z]+(?:\/[A-Za-z0-9_+-]+)+)|(?<word>\p{L}[\p{L}\p{M}'’-]*)|(?<punct>[,;()&@])/giu;

let cityMap: Record<string, string> | undefined;
/** English city names of the runtime's zones, read once (the runtime's list does not change while it runs). */
function cities(): Record<string, string> {
  cityMap ??= englishCities(Intl.supportedValuesOf('timeZone'));
  return cityMap;
}

/** The optimal string alignment distance, stopped early above 1 (only one edit is forgiven). */
function withinOneEdit(a: string, b: string): boolean {
  if (Math.abs(a.length - b.length) > 1 || a === b) return a === b;
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  const ra = a.slice(i);
  const rb = b.slice(i);
  if (ra.length === rb.length) {
    return ra.slice(1) === rb.slice(1) || (ra[0] === rb[1] && ra[1] === rb[0] && ra.slice(2) === rb.slice(2));
  }
  return ra.length > rb.length ? ra.slice(1) === rb : rb.slice(1) === ra;
}

function shapeToken(g: Record<string, string | undefined>): Token | undefined {
  const { iso, numdate, hhmm, minuteMark, decimal, ordnum, numPart, number } = g;
  if (iso !== undefined) {
    const d =
      /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{1,2}):(\d{2})(?::(\d{2}))?(?:\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/i.exec(
        iso,
      )!;
    const time: [number, number, number] | undefined =
      d[4] !== undefined ? [Number(d[4]), Number(d[5]), Number(d[6] ?? 0)] : undefined;
    return {
      k: 'iso',
      text: iso,
      date: [Number(d[1]), Number(d[2]), Number(d[3])],
      ...(time ? { time } : {}),
      offset: d[7] !== undefined,
    };
  }
  if (numdate !== undefined) {
    const [a, b, y] = numdate.split(/[./]/).map(Number) as [number, number, number | undefined];
    const sep = numdate.includes('/') ? '/' : '.';
    return { k: 'numdate', a, b, ...(y !== undefined ? { year: y < 100 ? 2000 + y : y } : {}), sep };
  }
  if (hhmm !== undefined) {
    const t = /^(\d{1,2})[:.](\d{2})(?::(\d{2}))?\s?([ap]m)?$/i.exec(hhmm)!;
    let h = Number(t[1]);
    const part = t[4]?.toLowerCase();
    if (part === 'pm' && h < 12) h += 12;
    if (part === 'am' && h === 12) h = 0;
    return { k: 'hhmm', h, m: Number(t[2]), s: Number(t[3] ?? 0) };
  }
  if (minuteMark !== undefined) return { k: 'minute-mark', m: Number(minuteMark.slice(1)) };
  if (decimal !== undefined) return { k: 'decimal', v: Number(decimal.replace(',', '.')) };
  if (ordnum !== undefined) return { k: 'ordnum', v: Number(/^\d+/.exec(ordnum)![0]) };
  if (numPart !== undefined) {
    const t = /^(\d{1,2})\s?([ap])m$/i.exec(numPart)!;
    return { k: 'num-part', v: Number(t[1]), part: t[2]!.toLowerCase() === 'a' ? 'am' : 'pm' };
  }
  if (number !== undefined) return { k: 'num', v: Number(number) };
  return undefined;
}

/** Splits `text` into words and reads each with `lexicon`; unknown words (and signs) stay `unknown`. */
export function tokenize(
  text: string,
  lexicon: Lexicon,
  zoneIds: (id: string) => string | undefined,
): Word[] {
  // a.m. / p.m. → am / pm, keeping every offset
  const normal = text.replace(/\b([ap])\.m\.?/gi, (s, p: string) => `${p}m`.padEnd(s.length, ' '));
  const raw: Array<{ m: RegExpExecArray }> = [];
  for (const m of normal.matchAll(SHAPES)) raw.push({ m: m as RegExpExecArray });
  // signs between the shapes: sentence punctuation, quotes and a label's colon carry no meaning; any other
  // sign nothing reads ("-5", "~9:00", "#9", "9:00 / 10:00") is an unknown word in its place, since
  // dropping it would read the text as something else
  const signs: Word[] = [];
  let end = 0;
  const gap = (to: number) => {
    for (const sign of normal.slice(end, to).matchAll(/[^\s.!?"“”«»'’…:]+/gu))
      signs.push({ tok: { k: 'unknown' }, raw: sign[0], offset: end + sign.index, used: false });
  };
  for (const { m } of raw) {
    gap(m.index);
    end = m.index + m[0].length;
  }
  gap(normal.length);
  const out: Word[] = [];
  const cityNames = lexicon.language === 'en' ? cities() : {};
  for (let i = 0; i < raw.length; i++) {
    const m = raw[i]!.m;
    const offset = m.index;
    const word = m[0];
    const g = m.groups!;
    const shape = shapeToken(g);
    if (shape) {
      out.push({ tok: shape, raw: word, offset, used: false });
      continue;
    }
    if (g.thousands !== undefined) {
      // "1,000": a thousands separator, or a list of two numbers; neither is read
      out.push({ tok: { k: 'unknown' }, raw: word, offset, used: false });
      continue;
    }
    if (g.punct !== undefined) {
      out.push({ tok: { k: 'punct', v: word }, raw: word, offset, used: false });
      continue;
    }
    if (g.zoneId !== undefined) {
      const zone = zoneIds(word);
      out.push({ tok: zone ? { k: 'zone', v: zone } : { k: 'unknown' }, raw: word, offset, used: false });
      continue;
    }
    // phrases: the longest run of words (up to 6) the lexicon or the city list knows
    let matched = false;
    for (let len = Math.min(6, raw.length - i); len >= 2 && !matched; len--) {
      const parts = raw.slice(i, i + len).map((r) => r.m[0].toLowerCase());
      if (raw.slice(i, i + len).some((r) => r.m.groups!.word === undefined)) continue;
      const phrase = parts.join(' ');
      const tok: LexToken | undefined =
        lexicon.phrases[phrase] ?? (cityNames[phrase] ? { k: 'zone', v: cityNames[phrase]! } : undefined);
      if (tok) {
        const last = raw[i + len - 1]!.m;
        out.push({ tok, raw: normal.slice(offset, last.index + last[0].length), offset, used: false });
        i += len - 1;
        matched = true;
      }
    }
    if (matched) continue;
    out.push({ ...readWord(word, lexicon, cityNames), offset, used: false });
  }
  return compoundNumbers([...out, ...signs].sort((a, b) => a.offset - b.offset));
}

/** "twenty five", "двадцать пять": a ten said in words and a unit said in words are one number. */
function compoundNumbers(words: Word[]): Word[] {
  const out: Word[] = [];
  for (const w of words) {
    const prev = out[out.length - 1];
    if (
      prev &&
      prev.tok.k === 'num' &&
      w.tok.k === 'num' &&
      !prev.tok.article &&
      !w.tok.article &&
      /^\p{L}+$/u.test(prev.raw) &&
      /^\p{L}+$/u.test(w.raw) &&
      prev.tok.v >= 20 &&
      prev.tok.v <= 90 &&
      prev.tok.v % 10 === 0 &&
      w.tok.v >= 1 &&
      w.tok.v <= 9
    ) {
      out[out.length - 1] = {
        ...prev,
        tok: { k: 'num', v: prev.tok.v + w.tok.v },
        raw: `${prev.raw} ${w.raw}`,
      };
      continue;
    }
    out.push(w);
  }
  return out;
}

function readWord(
  word: string,
  lexicon: Lexicon,
  cityMap: Record<string, string>,
): Omit<Word, 'offset' | 'used'> {
  const lower = word.toLowerCase().replace(/[’]/g, "'");
  const known = lookup(lower, lexicon, cityMap);
  if (known) return { tok: known, raw: word };
  const bare = lower.replace(/'s$/, '');
  if (bare !== lower) {
    const k = lookup(bare, lexicon, cityMap);
    if (k) return { tok: k, raw: word };
  }
  if (lower.length >= 4) {
    const candidates = new Set<string>();
    for (const w of Object.keys(lexicon.words))
      if (w.length >= 4 && withinOneEdit(lower, w)) candidates.add(w);
    for (const c of Object.keys(cityMap))
      if (c.length >= 5 && !c.includes(' ') && withinOneEdit(lower, c)) candidates.add(c);
    // candidates that differ only in number ("minuts": minute / minutes) are one word; the plural wins,
    // since a plural weekday is what makes a rule repeat
    const toks = new Map<string, { tok: LexToken; word: string }>();
    for (const c of candidates) {
      const tok = lookup(c, lexicon, cityMap)!;
      const { plural: _plural, ...meaning } = tok as LexToken & { plural?: true };
      const key = JSON.stringify(meaning);
      const seen = toks.get(key);
      if (!seen || ('plural' in tok && tok.plural)) toks.set(key, { tok, word: c });
    }
    if (toks.size === 1) {
      const [only] = toks.values();
      return { tok: only!.tok, raw: word, corrected: only!.word };
    }
  }
  return { tok: { k: 'unknown' }, raw: word };
}

function lookup(lower: string, lexicon: Lexicon, cityMap: Record<string, string>): LexToken | undefined {
  const direct = lexicon.words[lower];
  if (direct) return direct;
  const city = cityMap[lower];
  if (city) return { k: 'zone', v: city };
  for (const [stem, tok, extra] of lexicon.stems) {
    if (lower.startsWith(stem) && lower.length - stem.length <= extra) return tok;
  }
  return undefined;
}
