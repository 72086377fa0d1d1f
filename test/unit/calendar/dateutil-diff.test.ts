/**
 * Differential test: our engine vs python-dateutil's rrule (the reference implementation that
 * rrule.js ports), with zoneinfo zones. Hundreds of generated rules × zones; the expected
 * instants come only from Python.
 */
import { describe, expect, it } from 'vitest';
import { CalendarError, compileCalendar } from '../../../src/calendar/index.js';
import { generateCase } from './generate.js';
import { block, type OracleCase, prng, pythonAvailable, runOracle } from './helpers.js';

const missing = pythonAvailable();

describe('differential: calendar vs python-dateutil rrule + zoneinfo', () => {
  it.skipIf(process.env.CALENDAR_SKIP_PYTHON === '1')('python3 with python-dateutil is available', () => {
    expect(missing).toBeUndefined();
  });

  it.skipIf(missing !== undefined)(
    'agrees on generated rules in DST-heavy zones',
    () => {
      const seed = Number(process.env.CALENDAR_DIFF_SEED ?? 20260905);
      const n = Number(process.env.CALENDAR_DIFF_CASES ?? 400);
      const rnd = prng(seed);
      const cases: OracleCase[] = [];
      const ours: Record<string, string[]> = {};
      const rejected: OracleCase[] = [];
      for (let i = 0; i < n; i++) {
        const c = generateCase(rnd, `c${i}`);
        try {
          const cal = compileCalendar({
            scheduleId: c.id,
            timing: { kind: 'RECURRENCE', rule: block(c.tz, c.dtstart, c.rule), timezone: c.tz },
            createdAt: '2000-01-01T00:00:00Z',
          });
          ours[c.id] = cal.nextSlots(c.after, c.count).slots.map((s) => s.fireAt);
          cases.push(c);
        } catch (e) {
          if (e instanceof CalendarError && e.code === 'NEVER_FIRES') {
            rejected.push({ ...c, id: `never-${c.id}`, after: '1990-01-01T00:00:00Z', count: 1 });
            continue;
          }
          throw new Error(`${JSON.stringify(c)}: ${(e as Error).message}`);
        }
      }
      expect(rejected.length).toBeLessThan(n * 0.1);
      const expected = { ...runOracle(cases, 1), ...runOracle(rejected.slice(0, 6), 1) };
      // every rule we reject as never firing must not fire under dateutil either
      const wronglyRejected = rejected.slice(0, 6).filter((c) => {
        const r = expected[c.id];
        return Array.isArray(r) && r.length > 0;
      });
      expect(wronglyRejected.map((c) => JSON.stringify(c))).toEqual([]);
      const mismatches: string[] = [];
      let inconclusive = 0;
      for (const c of cases) {
        const exp = expected[c.id];
        if (!Array.isArray(exp)) {
          // dateutil itself is too slow (sub-daily with filters) or crashes (IndexError on
          // BYDAY=52TU with BYMONTH): those cases prove nothing either way
          inconclusive++;
          continue;
        }
        if (JSON.stringify(exp) !== JSON.stringify(ours[c.id])) {
          mismatches.push(
            `${JSON.stringify(c)}\n  python: ${exp.join(' ')}\n  ours:   ${ours[c.id]!.join(' ')}`,
          );
        }
      }
      expect(mismatches.slice(0, 5).join('\n'), `${mismatches.length} of ${cases.length} differ`).toBe('');
      expect(inconclusive).toBeLessThan(cases.length * 0.05);
      expect(cases.length - inconclusive).toBeGreaterThan(n * 0.8);
    },
    300_000,
  );
});
