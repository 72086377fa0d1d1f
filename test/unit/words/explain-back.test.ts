/**
 * Issue 43, the class and not the instance: every reading the reader accepts — each sentence of the corpus
 * and of the probes it reads, and each reading of a question it asks — explains back to the same meaning.
 * The explanation (explain.ts, generated from the structured timing) is read again, and must give the
 * same runs: a reading whose words say something else is caught here, whatever the sentence was.
 */
import { describe, expect, it } from 'vitest';
import { InterpretError, type InterpretReading, interpret } from '../../../src/model/interpret.js';
import { CORPUS_EN } from './corpus-en.js';
import { CORPUS_RU } from './corpus-ru.js';
import { RIGA } from './corpus-types.js';
import { PROBES } from './probes.js';

const COUNT = 6;

interface Sentence {
  text: string;
  now: string;
  timezone?: string;
}

const SENTENCES: Sentence[] = [
  ...[...CORPUS_EN, ...CORPUS_RU].map((e) => ({
    text: e.text,
    now: e.now,
    ...(e.timezone ? { timezone: e.timezone } : {}),
  })),
  ...PROBES.map((p) => ({
    text: p.text,
    now: p.now ?? '2026-12-02T10:00:00Z',
    timezone: p.timezone ?? RIGA,
  })),
];

/** every reading the reader gives for a sentence: one, or each reading of its question; none if refused */
function readingsOf(s: Sentence): InterpretReading[] {
  try {
    return [interpret({ ...s, count: COUNT }, new Date(s.now))];
  } catch (e) {
    if (!(e instanceof InterpretError)) throw e;
    return e.problem.code === 'AMBIGUOUS' ? e.problem.readings : [];
  }
}

const runs = (r: InterpretReading) => r.next_runs.map((n) => n.fire_at);

describe('every accepted reading explains back to the same meaning', () => {
  const accepted = SENTENCES.flatMap((s) =>
    readingsOf(s).map((r, i) => [`${s.text.replace(/\n/g, '⏎')} #${i}`, s, r] as const),
  );

  it('covers the corpus and the probes', () => {
    expect(accepted.length).toBeGreaterThan(500);
  });

  it.each(accepted)('%s', (_label, s, reading) => {
    const words = reading.explanation;
    let back: InterpretReading[];
    try {
      // the explanation names its zone: read without the request's, so that it has to
      back = [interpret({ text: words, now: s.now, count: COUNT }, new Date(s.now))];
    } catch (e) {
      if (!(e instanceof InterpretError)) throw e;
      if (e.problem.code !== 'AMBIGUOUS') throw new Error(`"${words}" is refused: ${e.problem.reason}`);
      // a one-time wall clock in a DST change asks again: one of its readings is the original
      back = e.problem.readings;
    }
    expect(
      back.map(runs),
      `"${s.text}" → "${words}" → ${JSON.stringify(back.map((b) => b.timing))}`,
    ).toContainEqual(runs(reading));
  });
});
