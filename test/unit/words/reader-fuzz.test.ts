// Any text gets an answer or a typed refusal from the reader: never an exception (the HTTP route's 5xx).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ZodError } from 'zod';
import { InterpretError, interpret } from '../../../src/model/interpret.js';

const NOW = '2026-12-02T10:00:00Z';
const vocabulary = [
  'every',
  'at',
  'on',
  'in',
  'after',
  'before',
  'until',
  'from',
  'to',
  'between',
  'and',
  'times',
  'the',
  'last',
  'first',
  'day',
  'days',
  'week',
  'month',
  'year',
  'hour',
  'minutes',
  'Monday',
  'Fridays',
  'weekday',
  'September',
  'tomorrow',
  'next',
  'noon',
  'deadline',
  'remind',
  'me',
  'a',
  'half',
  '5',
  '31',
  '2:30',
  '24:00',
  '99:99',
  '5/9',
  '2026-09-05',
  '2026-09-05T11:00:00Z',
  'Riga',
  'Europe/Riga',
  'Mars/Olympus',
  'UTC',
  'cron',
  '0 9 * * 1-5',
  'FREQ=DAILY',
  ',',
  '(',
  'каждый',
  'через',
  'в',
  'по',
  'Риге',
  'до',
  'марта',
  'за',
  'час',
  'числа',
  '15-го',
  'полчаса',
  'раз',
  'дня',
  '0',
  '1000000',
  '-3',
  'pm',
  'am',
  'once',
  'quarter',
  'business hours',
  '1.5',
];

function answerOrRefusal(text: string, timezone?: string) {
  try {
    const r = interpret({ text, now: NOW, count: 3, ...(timezone ? { timezone } : {}) }, new Date(NOW));
    expect(r.explanation.length).toBeGreaterThan(0);
    return 'read';
  } catch (e) {
    if (e instanceof InterpretError) return e.problem.code;
    if (e instanceof ZodError) return 'VALIDATION'; // the request itself (an empty text): the route's 400
    throw new Error(`"${text}" threw ${(e as Error).stack}`);
  }
}

describe('the reader on hostile text', () => {
  it('answers or refuses (AMBIGUOUS, UNREADABLE, ZONE_REQUIRED) for any unicode text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 200 }), (text) => {
        expect(['read', 'AMBIGUOUS', 'UNREADABLE', 'ZONE_REQUIRED', 'VALIDATION']).toContain(
          answerOrRefusal(text),
        );
      }),
      { numRuns: 500, seed: 24 },
    );
  });

  it('answers or refuses for any sentence of its own words, with or without a zone', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...vocabulary), { minLength: 1, maxLength: 12 }),
        fc.constantFrom(undefined, 'Europe/Riga', 'Not/AZone'),
        (words, timezone) => {
          expect(['read', 'AMBIGUOUS', 'UNREADABLE', 'ZONE_REQUIRED']).toContain(
            answerOrRefusal(words.join(' '), timezone),
          );
        },
      ),
      { numRuns: 3000, seed: 24 },
    );
  });
});
