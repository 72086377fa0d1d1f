/**
 * The words corpus (docs/words.md) as the reader's specification: every sentence is read with
 * `interpret` and judged by instants — the answer's next runs must be the runs the engine gives for the
 * timing written by hand in the corpus, so any encoding with the same meaning passes.
 */
import { describe, expect, it } from 'vitest';
import {
  InterpretError,
  type InterpretProblem,
  type InterpretResult,
  interpret,
} from '../../../src/model/interpret.js';
import { previewSlots } from '../../../src/model/slots.js';
import { CORPUS_EN } from './corpus-en.js';
import { CORPUS_RU } from './corpus-ru.js';
import type { CorpusEntry, Expected } from './corpus-types.js';

const COUNT = 6;
const ALL: CorpusEntry[] = [...CORPUS_EN, ...CORPUS_RU];

/** the engine's next fire instants of an expected reading, from `now` */
function runsOf(expected: Expected, now: string): string[] {
  const { slots } = previewSlots({
    scheduleId: 'interpret',
    timing: expected.timing,
    options: expected.options,
    from: now,
    count: COUNT,
  });
  return slots.map((s) => s.fireAt);
}

function read(entry: CorpusEntry): InterpretResult {
  return interpret(
    {
      text: entry.text,
      now: entry.now,
      ...(entry.timezone !== undefined ? { timezone: entry.timezone } : {}),
      count: COUNT,
    },
    new Date(entry.now),
  );
}

/** the reader's answer or its refusal, as a value */
function answer(entry: CorpusEntry): { result: InterpretResult } | { problem: InterpretProblem } {
  try {
    return { result: read(entry) };
  } catch (e) {
    if (e instanceof InterpretError) return { problem: e.problem };
    throw e;
  }
}

function problemOf(entry: CorpusEntry): InterpretProblem {
  const a = answer(entry);
  if ('result' in a) {
    throw new Error(`expected a refusal, got a reading: ${JSON.stringify(a.result.timing)}`);
  }
  return a.problem;
}

/** how the corpus names each zone it uses (a city, in English or Russian, or the IANA id) */
const ZONE_WORDS: Record<string, string[]> = {
  'Europe/Riga': ['Riga', 'Риг', 'Latvia', 'Латви'],
  'America/New_York': ['New York', 'New_York', 'Нью-Йорк'],
  'Asia/Tokyo': ['Tokyo', 'Tokio', 'Токио'],
  'Europe/London': ['London', 'Лондон'],
  'Europe/Berlin': ['Berlin', 'Берлин', 'Germany', 'Германи', 'Munich'],
  'Europe/Moscow': ['Moscow', 'Москв', 'московск', 'МСК'],
  UTC: ['UTC'],
};

/** a set of run lists, order free */
const runSet = (lists: string[][]): string[] => [...new Set(lists.map((l) => l.join(' ')))].sort();

const label = (e: CorpusEntry) =>
  `${e.text.replace(/\n/g, '⏎')} @ ${e.now}${e.timezone ? ` [${e.timezone}]` : ''}`;

function expectedReadings(entry: CorpusEntry): Expected[] {
  const x = entry.expect;
  if ('timing' in x) return [x];
  if ('ambiguous' in x) return x.ambiguous;
  return [];
}

describe.each([
  ['en', CORPUS_EN],
  ['ru', CORPUS_RU],
] as const)('words corpus (%s)', (_language, corpus) => {
  const readings = corpus.filter((e) => 'timing' in e.expect).map((e) => [label(e), e] as const);
  const ambiguous = corpus.filter((e) => 'ambiguous' in e.expect).map((e) => [label(e), e] as const);
  const unreadable = corpus.filter((e) => 'unreadable' in e.expect).map((e) => [label(e), e] as const);
  const zoneless = corpus.filter((e) => 'zoneRequired' in e.expect).map((e) => [label(e), e] as const);
  const regionless = corpus.filter((e) => 'regionRequired' in e.expect).map((e) => [label(e), e] as const);

  it.each(readings)('reads %s', (_l, entry) => {
    const expected = entry.expect as Expected;
    const result = read(entry);
    expect(result.next_runs.map((r) => r.fire_at)).toEqual(runsOf(expected, entry.now));
    expect(typeof result.explanation).toBe('string');
    expect(result.explanation.trim()).not.toBe('');
    for (const word of entry.corrected ?? []) {
      const notes = result.notes.map((n) => n.toLowerCase());
      expect(
        notes.some((n) => n.includes(word.toLowerCase())),
        `a note names the correction "${word}": ${JSON.stringify(result.notes)}`,
      ).toBe(true);
    }
  });

  if (ambiguous.length > 0) {
    it.each(ambiguous)('asks about %s', (_l, entry) => {
      const problem = problemOf(entry);
      expect(problem.code).toBe('AMBIGUOUS');
      if (problem.code !== 'AMBIGUOUS') return;
      const got = runSet(problem.readings.map((r) => r.next_runs.map((n) => n.fire_at)));
      const want = runSet(expectedReadings(entry).map((x) => runsOf(x, entry.now)));
      expect(got).toEqual(want);
      for (const r of problem.readings) expect(r.explanation.trim()).not.toBe('');
    });
  }

  if (unreadable.length > 0) {
    it.each(unreadable)('names the unread words of %s', (_l, entry) => {
      const problem = problemOf(entry);
      expect(problem.code).toBe('UNREADABLE');
      if (problem.code !== 'UNREADABLE') return;
      for (const word of (entry.expect as { unreadable: string[] }).unreadable) {
        const offset = entry.text.indexOf(word);
        expect(
          problem.unread.some((u) => u.word.toLowerCase() === word.toLowerCase() && u.offset === offset),
          `"${word}" at ${offset} in ${JSON.stringify(problem.unread)}`,
        ).toBe(true);
      }
    });
  }

  if (zoneless.length > 0) {
    it.each(zoneless)('asks for a zone for %s', (_l, entry) => {
      expect(problemOf(entry).code).toBe('ZONE_REQUIRED');
    });
  }

  if (regionless.length > 0) {
    it.each(regionless)('asks for a region for %s', (_l, entry) => {
      expect(problemOf(entry)).toMatchObject({ code: 'REGION_REQUIRED', field: 'region' });
    });
  }
});

describe('the corpus itself', () => {
  it('holds at least 300 entries, at least 140 per language', () => {
    expect(ALL.length).toBeGreaterThanOrEqual(300);
    expect(CORPUS_EN.length).toBeGreaterThanOrEqual(140);
    expect(CORPUS_RU.length).toBeGreaterThanOrEqual(140);
  });

  it('has no sentence twice for the same now and zone', () => {
    const keys = ALL.map((e) => `${e.text}|${e.now}|${e.timezone ?? ''}`);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it.each(ALL.filter((e) => expectedReadings(e).length > 0).map((e) => [label(e), e] as const))(
    'every expected timing of %s is valid and fires after now',
    (_l, entry) => {
      const readings = expectedReadings(entry);
      const lists = readings.map((x) => runsOf(x, entry.now));
      for (const runs of lists) {
        expect(runs.length).toBeGreaterThan(0);
        for (const at of runs) expect(Date.parse(at)).toBeGreaterThan(Date.parse(entry.now));
      }
      // an ambiguity whose readings fire alike would be no question at all
      if ('ambiguous' in entry.expect) expect(runSet(lists)).toHaveLength(readings.length);
    },
  );

  it('names the zone of every expected timing in the text or the request', () => {
    for (const e of ALL) {
      for (const x of expectedReadings(e)) {
        const zones = [
          'timezone' in x.timing ? x.timing.timezone : undefined,
          x.options?.timezone,
          x.options?.window?.timezone,
        ].filter((z): z is string => z !== undefined);
        for (const zone of zones) {
          const named = e.timezone === zone || (ZONE_WORDS[zone] ?? [zone]).some((w) => e.text.includes(w));
          expect(named, `${zone} in ${label(e)}`).toBe(true);
        }
      }
    }
  });

  it('names each unreadable word once, so its offset is unique', () => {
    for (const e of ALL) {
      if (!('unreadable' in e.expect)) continue;
      for (const w of e.expect.unreadable) {
        expect(e.text.indexOf(w), `${w} in ${e.text}`).toBeGreaterThanOrEqual(0);
        expect(e.text.indexOf(w), `${w} once in ${e.text}`).toBe(e.text.lastIndexOf(w));
      }
    }
  });

  it('marks every typo entry with the correction its note must name', () => {
    for (const e of ALL) {
      if (e.category === 'typo') expect(e.corrected?.length, e.text).toBeGreaterThan(0);
    }
  });
});

describe('determinism', () => {
  it('reads the first 20 entries twice alike', () => {
    const first = ALL.slice(0, 20);
    expect(first.map(answer)).toEqual(first.map(answer));
  });
});
