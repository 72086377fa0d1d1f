/**
 * Issue 43, written after the reader changed: the classes of refusal the probes (probes.ts) found, each
 * shown on sentences beyond the probes. A part of the sentence the timing would not carry is refused,
 * never dropped; the refusal says why, and names the words when there are words to name.
 */
import { describe, expect, it } from 'vitest';
import { InterpretError, interpret } from '../../../src/model/interpret.js';

const NOW = '2026-12-02T10:00:00Z';

function refusal(text: string) {
  try {
    const read = interpret({ text, now: NOW, timezone: 'Europe/Riga', count: 2 }, new Date(NOW));
    throw new Error(`"${text}" was read: ${JSON.stringify(read.timing)}`);
  } catch (e) {
    if (!(e instanceof InterpretError)) throw e;
    expect(e.problem.code, text).toBe('UNREADABLE');
    if (e.problem.code !== 'UNREADABLE') throw e;
    return e.problem;
  }
}

describe('refused, never read as something else', () => {
  it.each([
    ['every -5 minutes', '-'],
    ['every day at ~9:00', '~'],
    ['every day at 9:00 / 10:00', '/'],
    ['every 1,000 minutes', '1,000'],
    ['every day at 9:00 + 1 hour', '+'],
  ])('names the sign nothing reads in %s', (text, sign) => {
    expect(refusal(text).unread).toContainEqual({ word: sign, offset: text.indexOf(sign) });
  });

  it.each([
    ['3 days after the event', ['event']],
    ['через 3 дня после события', ['события']],
    ['2 hours after signup is confirmed', ['signup', 'confirmed']],
  ])('asks for the anchor of %s, naming the event', (text, words) => {
    const problem = refusal(text);
    expect(problem.reason).toMatch(/instant is not in the words/);
    for (const w of words) expect(problem.unread).toContainEqual({ word: w, offset: text.indexOf(w) });
  });

  it.each([
    ['через 3 рабочих дня', /counting business days is not read/],
    ['in 3 business days', /counting business days is not read/],
    ['last business day', /of what: say "of the month"/],
    ['every 5th business day', /of what: say "of the month"/],
    ['the first weekday of the month', /weekdays are not counted/],
    ['every day at 9:00 in Latvia', /no business days/],
    ['the second business day before the 25th at 10:00', /only "the last business day before the Nth"/],
  ])(
    'refuses business days counted from now, numbered without a period, or a country with no business days: %s',
    (text, reason) => {
      expect(refusal(text).reason).toMatch(reason);
    },
  );

  it.each([
    'every day at 9:00 on 5 January',
    'every Monday at 9 tomorrow',
    'every hour tomorrow',
    'every 10 minutes on 5 January',
    'every hour on the 15th of every month',
    'deadline every day at 9',
    'every day at 9:00 once',
    'twice every day at 9:00',
    'every day at 9am pm',
    'every morning at 21:00',
    'every hour at 9:15',
    'every 30 minutes at :15',
    'every day at 9 and at :30',
    'in 20 minutes on Friday',
    'два раза в неделю',
    '2027-01-31 Friday',
    '2027-01-31 2026-12-05T10:00:00Z',
    'every morning',
    'tomorrow morning',
    'every month on Friday',
    'every month Friday hourly',
    'every day at 9 weekly',
    'every year on the last Friday of the month',
    'every weekday except',
    'tomorrow at 9 until 1 March 2027',
  ])('refuses a part the timing would not carry: %s', (text) => {
    refusal(text);
  });
});
