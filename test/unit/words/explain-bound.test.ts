// Security review 2, N1: the explainer says a stored rule in words on the API's event loop (every GET, list
// and describe of a schedule, every preview), and it multiplies a rule's hours by its minutes. A rule stored
// before the parser refused repeats may name one hour and one minute thousands of times: the explainer's
// work must follow the distinct values (at most 24 × 60 times of day), never the text. Counted, not timed:
// every hours × minutes product the explainer builds goes through by-lists.ts `timesOfDay`, which the
// mock below wraps to count the pairs it is asked for.
import { describe, expect, it, vi } from 'vitest';
import type { Timing } from '../../../src/calendar/index.js';
import { explainSpec } from '../../../src/calendar/words/index.js';
import { explanationOf } from '../../../src/model/explanation.js';

const work = vi.hoisted(() => ({ pairs: 0 }));
vi.mock('../../../src/calendar/words/by-lists.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../../src/calendar/words/by-lists.js')>();
  return {
    ...real,
    timesOfDay: (hours: readonly number[], minutes: readonly number[]) => {
      work.pairs += hours.length * minutes.length;
      return real.timesOfDay(hours, minutes);
    },
  };
});

/** The explanation of `timing` and the hour × minute pairs it took. */
function explained(timing: Timing): { words: string; pairs: number } {
  const before = work.pairs;
  const words = explainSpec({ timing });
  return { words, pairs: work.pairs - before };
}

const times = (value: string, n: number) => Array.from({ length: n }, () => value).join(',');
const range = (n: number) => Array.from({ length: n }, (_, i) => i).join(',');
const riga = (rule: string): Timing => ({ kind: 'RECURRENCE', rule, timezone: 'Europe/Riga' });
/** The most times of day the explainer can be asked to look at: every hour × every minute. */
const DAY_TIMES = 24 * 60;

describe('the explainer works on distinct values, whatever the rule repeats', () => {
  it.each([
    // the review's rule (02:05 is outside Riga's DST changes) and one whose time every change moves (03:05)
    [`FREQ=DAILY;BYHOUR=${times('2', 2000)};BYMINUTE=${times('5', 2000)}`, 'FREQ=DAILY;BYHOUR=2;BYMINUTE=5'],
    [`FREQ=DAILY;BYHOUR=${times('3', 2000)};BYMINUTE=${times('5', 2000)}`, 'FREQ=DAILY;BYHOUR=3;BYMINUTE=5'],
    [
      `FREQ=WEEKLY;BYDAY=${times('MO', 300)};BYHOUR=${times('3', 1000)};BYMINUTE=${times('30', 900)}`,
      'FREQ=WEEKLY;BYDAY=MO;BYHOUR=3;BYMINUTE=30',
    ],
    [
      `FREQ=MONTHLY;BYMONTHDAY=${times('1', 500)};BYHOUR=${times('3', 1000)};BYMINUTE=${times('0,15', 700)}`,
      'FREQ=MONTHLY;BYMONTHDAY=1;BYHOUR=3;BYMINUTE=0,15',
    ],
  ])('a stored %#: the work and the words of its distinct values', (repeated, distinct) => {
    const stored = explained(riga(repeated));
    const plain = explained(riga(distinct));
    expect(stored.pairs).toBe(plain.pairs);
    expect(stored.pairs).toBeLessThanOrEqual(3 * 2); // at most two times of day, a few products of them
    expect(stored.words).toBe(plain.words);
  });

  it('a cron expression that repeats its minutes and hours: the same', () => {
    const stored = explained({
      kind: 'CRON',
      expression: `${times('5', 120)} ${times('3', 120)} * * *`,
      timezone: 'Europe/Riga',
    });
    const plain = explained({ kind: 'CRON', expression: '5 3 * * *', timezone: 'Europe/Riga' });
    expect(stored.pairs).toBe(plain.pairs);
    expect(stored.words).toBe(plain.words);
    expect(stored.words).toBe(
      'every day at 03:05 in Europe/Riga; 03:05 on spring-forward days runs at 04:05; 03:05 on fall-back days runs once, at the first',
    );
  });

  it('the most a rule can ask: every minute of every hour, each product at most a day of times', () => {
    for (const rule of [
      `FREQ=DAILY;BYHOUR=${range(24)};BYMINUTE=${range(60)}`,
      // every value, then each again many times: the same work
      `FREQ=DAILY;BYHOUR=${times(range(24), 40)};BYMINUTE=${times(range(60), 30)}`,
    ]) {
      expect(rule.length).toBeLessThanOrEqual(8192); // the contract's longest rule
      const { pairs } = explained(riga(rule));
      expect(pairs).toBeGreaterThan(0);
      expect(pairs).toBeLessThanOrEqual(3 * DAY_TIMES);
    }
  });

  it("a schedule's view (GET, list, describe) is explained the same bounded way", () => {
    const before = work.pairs;
    const explanation = explanationOf({
      timing: riga(`FREQ=DAILY;BYHOUR=${times('3', 2000)};BYMINUTE=${times('5', 2000)}`),
    });
    expect(work.pairs - before).toBeLessThanOrEqual(3);
    expect(explanation).toBe(explainSpec({ timing: riga('FREQ=DAILY;BYHOUR=3;BYMINUTE=5') }));
  });
});
