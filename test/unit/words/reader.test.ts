// Sentences beyond the corpus's categories: parts of the day, excepted days, the night the clocks change,
// frequencies said as "twice a day" and "every second Tuesday". Judged by the instants of the first runs.
import { describe, expect, it } from 'vitest';
import { InterpretError, interpret } from '../../../src/model/interpret.js';

const NOW = '2026-12-02T10:00:00Z'; // a Wednesday; 12:00 in Riga
const runs = (text: string, timezone?: string) =>
  interpret({ text, now: NOW, count: 3, ...(timezone ? { timezone } : {}) }, new Date(NOW)).next_runs.map(
    (r) => r.scheduled_for,
  );

describe('the reader', () => {
  it('reads a part of the day said apart from the hour', () => {
    expect(runs('every evening at 6 in Riga')).toEqual([
      '2026-12-02T18:00:00+02:00',
      '2026-12-03T18:00:00+02:00',
      '2026-12-04T18:00:00+02:00',
    ]);
    expect(runs('каждое утро в 8 по Риге')[0]).toBe('2026-12-03T08:00:00+02:00');
    expect(runs('every Sunday night at 11pm in London')[0]).toBe('2026-12-06T23:00:00+00:00');
  });

  it('takes excepted days out', () => {
    expect(runs('every day except weekends at 7:00 in Riga')).toEqual([
      '2026-12-03T07:00:00+02:00',
      '2026-12-04T07:00:00+02:00',
      '2026-12-07T07:00:00+02:00',
    ]);
    expect(runs('каждый день кроме воскресенья в 9:00 по Риге')).toEqual([
      '2026-12-03T09:00:00+02:00',
      '2026-12-04T09:00:00+02:00',
      '2026-12-05T09:00:00+02:00',
    ]);
  });

  it('finds the night the clocks change, and asks when the time does not exist that night', () => {
    expect(runs('at 2:30 on the night the clocks change in Riga')).toEqual(['2027-03-28T02:30:00+02:00']);
    try {
      runs('at 2:30 on the night the clocks change in New York');
      expect.unreachable('a time in the gap is a question');
    } catch (e) {
      expect(e).toBeInstanceOf(InterpretError);
      const problem = (e as InterpretError).problem;
      expect(problem.code).toBe('AMBIGUOUS');
      if (problem.code !== 'AMBIGUOUS') return;
      expect(problem.readings.map((r) => [r.dst, r.next_runs[0]!.fire_at])).toEqual([
        [{ gap: 'SHIFT_FORWARD' }, '2027-03-14T07:30:00Z'],
        [{ gap: 'NEXT_VALID' }, '2027-03-14T07:00:00Z'],
      ]);
    }
  });

  it('reads how often from "twice a day" and "every second Tuesday", counted from the first run', () => {
    expect(runs('twice a day at 9 and 21 in Riga')).toEqual([
      '2026-12-02T21:00:00+02:00',
      '2026-12-03T09:00:00+02:00',
      '2026-12-03T21:00:00+02:00',
    ]);
    expect(runs('every second Tuesday at 10:00 in Riga')).toEqual([
      '2026-12-08T10:00:00+02:00',
      '2026-12-22T10:00:00+02:00',
      '2027-01-05T10:00:00+02:00',
    ]);
    expect(runs('every first Monday of the month at 10:00 in Riga')[0]).toBe('2026-12-07T10:00:00+02:00');
  });

  it('says a clock-aligned rule in words that read back', () => {
    const read = interpret(
      { text: 'every 15 minutes during business hours', timezone: 'Europe/Riga', now: NOW },
      new Date(NOW),
    );
    expect(read.explanation).toBe('every 15 minutes from 09:00 to 18:00 on weekdays in Europe/Riga');
    const back = interpret({ text: read.explanation, now: NOW }, new Date(NOW));
    expect(back.next_runs).toEqual(read.next_runs);
  });
});
