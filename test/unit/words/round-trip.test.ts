// Rule → words → rule: reading a timing's explanation back gives a timing with the same runs (issue #24).
// Generated over every timing kind the words can say, in zones with and without DST; a rule the words
// cannot say is explained as itself, so the property holds for it too.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CalendarError } from '../../../src/calendar/errors.js';
import type { CalendarOptions, Timing, Weekday } from '../../../src/calendar/timing.js';
import { explainSpec } from '../../../src/calendar/words/index.js';
import { InterpretError, interpret } from '../../../src/model/interpret.js';
import { previewSlots } from '../../../src/model/slots.js';

const NOW = '2026-12-02T10:00:00Z';
const ZONES = ['Europe/Riga', 'America/New_York', 'Asia/Tokyo', 'UTC', 'Australia/Sydney', 'Europe/London'];
const DAYS: Weekday[] = ['MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU'];
const pad = (n: number) => String(n).padStart(2, '0');

const zone = fc.constantFrom(...ZONES);
const clock = fc.record({ h: fc.integer({ min: 0, max: 23 }), m: fc.constantFrom(0, 5, 15, 30, 45) });
const times = fc.uniqueArray(clock, { minLength: 1, maxLength: 3, selector: (t) => `${t.h}:${t.m}` });
const days = fc.uniqueArray(fc.constantFrom(...DAYS), { minLength: 1, maxLength: 5 });
const amount = fc.integer({ min: 1, max: 90 });

/** BYHOUR/BYMINUTE for times the reader can say: one minute for all hours, or one hour for all minutes. */
const byTime = times.map((ts) => {
  const hours = [...new Set(ts.map((t) => t.h))].sort((a, b) => a - b);
  const minutes = [...new Set(ts.map((t) => t.m))].sort((a, b) => a - b);
  return `BYHOUR=${hours.join(',')};BYMINUTE=${minutes.join(',')};BYSECOND=0`;
});

const recurrence: fc.Arbitrary<Timing> = fc
  .tuple(
    fc.oneof(
      fc.integer({ min: 1, max: 3 }).map((n) => `FREQ=DAILY${n > 1 ? `;INTERVAL=${n}` : ''}`),
      fc
        .tuple(fc.integer({ min: 1, max: 2 }), days)
        .map(([n, d]) => `FREQ=WEEKLY${n > 1 ? `;INTERVAL=${n}` : ''};BYDAY=${d.join(',')}`),
      fc.integer({ min: 1, max: 28 }).map((d) => `FREQ=MONTHLY;BYMONTHDAY=${d}`),
      fc.constant('FREQ=MONTHLY;BYMONTHDAY=-1'),
      fc
        .tuple(fc.constantFrom(1, 2, 3, 4, -1), fc.constantFrom(...DAYS))
        .map(([o, d]) => `FREQ=MONTHLY;BYDAY=${o}${d}`),
      fc
        .tuple(fc.integer({ min: 1, max: 12 }), fc.integer({ min: 1, max: 28 }))
        .map(([mo, d]) => `FREQ=YEARLY;BYMONTH=${mo};BYMONTHDAY=${d}`),
      fc.constantFrom('FREQ=DAILY;BYDAY=MO,TU,WE,TH,FR'),
    ),
    byTime,
    zone,
  )
  .map(([freq, at, timezone]) => ({ kind: 'RECURRENCE' as const, rule: `${freq};${at}`, timezone }));

const timing: fc.Arbitrary<Timing> = fc.oneof(
  fc
    .tuple(
      fc.integer({ min: 2027, max: 2030 }),
      fc.integer({ min: 1, max: 12 }),
      fc.integer({ min: 1, max: 28 }),
      clock,
      zone,
    )
    .map(([y, mo, d, t, timezone]) => ({
      kind: 'ONE_TIME' as const,
      at: `${y}-${pad(mo)}-${pad(d)}T${pad(t.h)}:${pad(t.m)}:00`,
      timezone,
    })),
  fc
    .tuple(
      amount,
      fc.constantFrom('M', 'H', 'D'),
      fc.option(fc.constant('2026-12-01T08:00:00Z'), { nil: undefined }),
    )
    .map(([n, u, anchor]) => ({
      kind: 'DELAY' as const,
      delay: u === 'D' ? `P${n}D` : `PT${n}${u}`,
      ...(anchor ? { anchor } : {}),
    })),
  fc
    .tuple(amount, fc.constantFrom('S', 'M', 'H'), fc.constantFrom('FIXED_RATE', 'FIXED_DELAY'))
    .map(([n, u, mode]) => ({
      kind: 'INTERVAL' as const,
      every: `PT${u === 'S' ? n + 29 : n}${u}`,
      ...(mode === 'FIXED_DELAY' ? { mode } : {}),
    })),
  recurrence,
  fc
    .tuple(
      clock,
      fc.oneof(
        fc.constant('*'),
        days.map((d) => d.map((x) => DAYS.indexOf(x) + 1).join(',')),
      ),
      zone,
    )
    .map(([t, dow, timezone]) => ({
      kind: 'CRON' as const,
      expression: `${t.m} ${t.h} * * ${dow}`,
      timezone,
    })),
  fc
    .tuple(
      fc.integer({ min: 1, max: 12 }),
      fc.integer({ min: 1, max: 28 }),
      clock,
      zone,
      fc.uniqueArray(fc.constantFrom('P1D', 'PT1H', 'P7D', 'PT30M', 'P2DT3H'), { maxLength: 3 }),
    )
    .map(([mo, d, t, timezone, reminders]) => ({
      kind: 'DEADLINE' as const,
      at: `2027-${pad(mo)}-${pad(d)}T${pad(t.h)}:${pad(t.m)}:00`,
      timezone,
      ...(reminders.length > 0 ? { reminders } : {}),
    })),
);

const options: fc.Arbitrary<CalendarOptions> = fc.record(
  {
    ends_at: fc.constantFrom('2027-06-30T21:00:00Z', '2028-01-15T00:00:00+02:00'),
    max_count: fc.integer({ min: 1, max: 50 }),
  },
  { requiredKeys: [] },
);

const window = fc
  .tuple(
    fc.integer({ min: 0, max: 20 }),
    fc.integer({ min: 1, max: 4 }),
    fc.option(days, { nil: undefined }),
    fc.constantFrom('SKIP', 'DEFER'),
  )
  .map(([from, hours, d, outside]) => ({
    from: `${pad(from)}:00`,
    to: `${pad(Math.min(24, from + hours))}:00`,
    ...(d ? { days: d } : {}),
    outside: outside as 'SKIP' | 'DEFER',
  }));

const runsOf = (t: Timing, o: CalendarOptions) =>
  previewSlots({ scheduleId: 'round-trip', timing: t, options: o, from: NOW, count: 8 }).slots.map(
    (s) => s.fireAt,
  );

/**
 * The property: the words explainSpec says of `spec`, read back, give its runs. A spec with no runs to say
 * back is not a case. `ambiguousAllowed`: a one-time wall clock in a DST change is read as a question
 * (AMBIGUOUS), one of whose readings must then be the original.
 */
function expectReadBackSameRuns(
  spec: { timing: Timing } & CalendarOptions,
  { ambiguousAllowed = false } = {},
): void {
  const { timing, ...options } = spec;
  let expected: string[];
  try {
    expected = runsOf(timing, options);
  } catch (e) {
    // a generated window or calendar that closes every run, a count that ended, a period with fewer
    // business days than asked
    if (e instanceof CalendarError) {
      fc.pre(false);
      return;
    }
    throw e;
  }
  const words = explainSpec(spec);
  let read: ReturnType<typeof interpret>;
  try {
    read = interpret({ text: words, now: NOW, count: 8 }, new Date(NOW));
  } catch (e) {
    if (ambiguousAllowed && e instanceof InterpretError && e.problem.code === 'AMBIGUOUS') {
      const readings = e.problem.readings.map((r) => r.next_runs.map((n) => n.fire_at));
      expect(readings).toContainEqual(expected);
      return;
    }
    throw new Error(`${JSON.stringify(spec)} → "${words}": ${(e as Error).message}`);
  }
  expect({ words, runs: read.next_runs.map((n) => n.fire_at) }).toEqual({ words, runs: expected });
}

describe('rule → words → rule', () => {
  it('reading an explanation back gives the same runs', () => {
    fc.assert(
      fc.property(timing, options, fc.option(window, { nil: undefined, freq: 3 }), zone, (t, o, w, z) => {
        const bounds: CalendarOptions =
          t.kind === 'ONE_TIME' || t.kind === 'DEADLINE' || t.kind === 'DELAY'
            ? {}
            : // a window over a yearly or monthly rule mostly removes every run, after a long search
              w === undefined || (t.kind === 'RECURRENCE' && /YEARLY|MONTHLY/.test(t.rule))
              ? o
              : { ...o, window: w, ...(t.kind === 'INTERVAL' ? { timezone: z } : {}) };
        expectReadBackSameRuns({ timing: t, ...bounds }, { ambiguousAllowed: true });
      }),
      { numRuns: 400, seed: 2412 },
    );
  });

  it('reading a business-day definition explained back gives the same runs (issue 43)', () => {
    const region = fc.constantFrom('LV', 'DE', 'DE-BY', 'US', 'GB', 'FR');
    const regionZone: Record<string, string> = {
      LV: 'Europe/Riga',
      DE: 'Europe/Berlin',
      'DE-BY': 'Europe/Berlin',
      US: 'America/New_York',
      GB: 'Europe/London',
      FR: 'Europe/Paris',
    };
    const time = fc
      .tuple(clock, fc.constantFrom(0, 0, 30))
      .map(([t, s]) => `${pad(t.h)}:${pad(t.m)}${s ? `:${pad(s)}` : ''}`);
    const date = fc
      .tuple(
        fc.integer({ min: 2026, max: 2027 }),
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 1, max: 28 }),
      )
      .map(([y, mo, d]) => `${y}-${pad(mo)}-${pad(d)}`);
    const calendar = fc.record(
      {
        weekend: fc.constantFrom<Weekday[][]>([], ['FR', 'SA'], ['SU'], ['SA', 'SU']),
        closed: fc.uniqueArray(date, { minLength: 1, maxLength: 3 }),
        open: fc.uniqueArray(date, { minLength: 1, maxLength: 2 }),
      },
      { requiredKeys: [] },
    );
    const businessDay = fc
      .tuple(
        fc.constantFrom<'MONTH' | 'QUARTER'>('MONTH', 'MONTH', 'QUARTER'),
        fc.oneof(fc.integer({ min: 1, max: 12 }), fc.integer({ min: -12, max: -1 })),
        fc.option(fc.uniqueArray(fc.integer({ min: 1, max: 12 }), { minLength: 1, maxLength: 4 }), {
          nil: undefined,
        }),
        time,
      )
      .map(([period, n, months, t]) => ({ period, n, months: period === 'MONTH' ? months : undefined, t }));
    const other = fc.oneof(
      recurrence.filter((t) => t.kind === 'RECURRENCE' && !/YEARLY/.test(t.rule)),
      fc.tuple(clock, fc.constantFrom('*', '1-5', '1,3,5')).map(([t, dow]) => ({ m: t.m, h: t.h, dow })),
    );
    fc.assert(
      fc.property(
        region,
        calendar,
        fc.oneof(
          businessDay.map((b) => ({ b })),
          other.map((o) => ({ o })),
        ),
        fc.constantFrom<Array<'FORWARD' | 'BACKWARD' | undefined>>(undefined, 'FORWARD', 'BACKWARD'),
        fc.option(options, { nil: undefined }),
        (r, cal, shape, roll, bounds) => {
          const zoneOf = regionZone[r]!;
          let t: Timing;
          if ('b' in shape) {
            const { period, n, months, t: at } = shape.b;
            t = {
              kind: 'BUSINESS_DAY',
              period,
              n,
              ...(months ? { months } : {}),
              time: at,
              timezone: zoneOf,
            };
          } else if ('kind' in shape.o) t = shape.o as Timing;
          else
            t = {
              kind: 'CRON',
              expression: `${shape.o.m} ${shape.o.h} * * ${shape.o.dow}`,
              timezone: zoneOf,
            };
          const business_days = {
            region: r,
            ...cal,
            ...(roll && t.kind !== 'BUSINESS_DAY' ? { roll } : {}),
          };
          expectReadBackSameRuns({ timing: t, ...(bounds ?? {}), business_days });
        },
      ),
      { numRuns: 150, seed: 4343 },
    );
  });

  it('explains the rules people write in the words they would say', () => {
    expect(
      explainSpec({
        timing: {
          kind: 'RECURRENCE' as const,
          rule: 'FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR;BYHOUR=9;BYMINUTE=0',
          timezone: 'Europe/Riga',
        },
      }),
    ).toBe('every weekday at 09:00 in Europe/Riga');
    expect(
      explainSpec({
        timing: {
          kind: 'RECURRENCE' as const,
          rule: 'FREQ=DAILY;BYHOUR=3;BYMINUTE=30',
          timezone: 'Europe/Riga',
        },
      }),
    ).toBe(
      'every day at 03:30 in Europe/Riga; 03:30 on spring-forward days runs at 04:30; 03:30 on fall-back days runs once, at the first',
    );
    expect(
      explainSpec({ timing: { kind: 'CRON' as const, expression: '*/15 * * * *', timezone: 'UTC' } }),
    ).toBe('cron */15 * * * * in UTC');
    expect(explainSpec({ timing: { kind: 'INTERVAL' as const, every: 'PT1H' } })).toBe('every hour');
    expect(
      explainSpec({
        timing: {
          kind: 'DEADLINE' as const,
          at: '2026-12-31T17:00:00',
          timezone: 'Europe/Riga',
          reminders: ['P1D', 'PT1H'],
        },
      }),
    ).toBe('deadline at 17:00 on 31 December 2026 in Europe/Riga, remind me 1 day and 1 hour before');
    expect(
      explainSpec({
        timing: { kind: 'RECURRENCE' as const, rule: 'FREQ=MINUTELY;INTERVAL=7;BYSETPOS=2', timezone: 'UTC' },
      }),
    ).toBe('FREQ=MINUTELY;INTERVAL=7;BYSETPOS=2 in UTC');
  });
});
