// The country whose public holidays close a business day: named in the words (scan), else the request's,
// else the zone's one country (assembly); and the zone of a country named as a place.
import { REGION_RE } from '../business-days.js';
import { CalendarError } from '../errors.js';
import type { Features } from './features.js';
import { type Cursor, zoneIdOf } from './lexing.js';
import type { ReadInput } from './reading.js';
import { Unreadable } from './refusals.js';
import type { Word } from './tokens.js';

/**
 * A country at `i`: a code ("LV", "(DE-BY)"), a name the holiday data knows ("Latvia", "the United States
 * of America"), or one the lexicon knows ("Латвии", "Latvian"), after "in" / "в" a place (its zone is the
 * schedule's when the words name none). `holidays`: "holidays" followed ("Latvian holidays").
 */
export function regionAt(
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

export function setRegion(f: Features, region: { code: string; place: boolean; name: string }): void {
  if (f.region !== undefined && f.region.code !== region.code)
    throw new Unreadable(`two regions named: ${f.region.name} and ${region.name}`);
  if (f.region === undefined || region.place)
    f.region = { code: region.code, place: region.place, name: region.name };
}

/**
 * The zone of a country named as a place ("at 9:00 in Latvia") when the words name no zone: the request's
 * timezone when it is one of the country's, else the country's only zone; a country of several zones is a
 * refusal (never one of them guessed).
 */
export function placeZone(f: Features, input: ReadInput): string | undefined {
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
export function regionOf(f: Features, input: ReadInput, zone: string): string | undefined {
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
