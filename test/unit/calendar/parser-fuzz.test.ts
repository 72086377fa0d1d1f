/**
 * Parser fuzzing (issue 10, "bad input"): the RRULE, cron, duration and zone parsers, called directly and
 * through the whole calendar, on arbitrary strings and on near-valid inputs (valid ones mutated: a
 * character inserted, dropped or replaced, a number blown up, a part repeated, case and space changed).
 * Every input must answer with a value or a CalendarError — never another exception — and answer at
 * all. property.test.ts already throws random strings and token soups at compileCalendar; this file adds
 * the direct parser calls and the mutations of valid inputs.
 *
 * No input is timed: a clock bound fails on a busy machine. A runaway loop or a catastrophic regex is
 * caught by each test's timeout (HANG_TIMEOUT_MS), a hang detector only: a normal input answers in well
 * under a millisecond, and a whole test of 1,500 runs in under a second. The seeds are fixed, so a hang
 * found here is found again. Performance goals live in bench/calendar.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseCron } from '../../../src/calendar/cron.js';
import { parseDuration } from '../../../src/calendar/duration.js';
import { CalendarError, compileCalendar, type Timing } from '../../../src/calendar/index.js';
import { isBlock, parseBlock, parseRecur } from '../../../src/calendar/rrule-parse.js';
import { checkZone } from '../../../src/calendar/zone.js';

/** A test that runs this long is hung, not slow: see the top of the file. */
const HANG_TIMEOUT_MS = 30_000;

/** Runs `fn` on `input`: it returns, or throws a CalendarError. */
function answers(what: string, input: unknown, fn: () => unknown): 'value' | 'error' {
  let outcome: 'value' | 'error' = 'value';
  try {
    fn();
  } catch (e) {
    if (!(e instanceof CalendarError)) {
      throw new Error(`${what}(${JSON.stringify(input)}) threw ${(e as Error)?.stack ?? String(e)}`);
    }
    expect(e.reason.length).toBeGreaterThan(0);
    outcome = 'error';
  }
  return outcome;
}

/** The whole path a schedule's timing takes: validate, compile, compute a few slots. */
function throughCalendar(timing: unknown): 'value' | 'error' {
  return answers('compileCalendar', timing, () =>
    compileCalendar({
      scheduleId: 'fuzz',
      timing: timing as Timing,
      createdAt: '2027-01-01T00:00:00Z',
    }).nextSlots('2027-06-01T00:00:00Z', 3),
  );
}

// ---- near-valid inputs: valid seeds and mutations of them ----

const HUGE_NUMBERS = ['0', '-1', '00', '999', '2147483648', '99999999999999999999', '1e9', '1.5', '-0', '٣'];

type Mutation =
  | { op: 'insert'; at: number; text: string }
  | { op: 'delete'; at: number; length: number }
  | { op: 'replace'; at: number; text: string }
  | { op: 'number'; which: number; text: string }
  | { op: 'repeat'; at: number; length: number }
  | { op: 'case'; upper: boolean }
  | { op: 'space'; at: number; text: string };

function mutation(alphabet: string[]): fc.Arbitrary<Mutation> {
  const at = fc.nat({ max: 200 });
  const piece = fc.oneof(
    fc.constantFrom(...alphabet),
    fc.string({ maxLength: 4 }),
    fc.string({ unit: 'grapheme', maxLength: 3 }),
  );
  return fc.oneof(
    fc.record({ op: fc.constant('insert' as const), at, text: piece }),
    fc.record({ op: fc.constant('delete' as const), at, length: fc.integer({ min: 1, max: 6 }) }),
    fc.record({ op: fc.constant('replace' as const), at, text: piece }),
    fc.record({
      op: fc.constant('number' as const),
      which: fc.nat({ max: 12 }),
      text: fc.constantFrom(...HUGE_NUMBERS),
    }),
    fc.record({ op: fc.constant('repeat' as const), at, length: fc.integer({ min: 1, max: 30 }) }),
    fc.record({ op: fc.constant('case' as const), upper: fc.boolean() }),
    fc.record({
      op: fc.constant('space' as const),
      at,
      text: fc.constantFrom(' ', '\t', '\n', '\r\n', '  '),
    }),
  );
}

function apply(text: string, m: Mutation): string {
  const at = text.length === 0 ? 0 : m.op === 'case' ? 0 : (m as { at?: number }).at! % (text.length + 1);
  switch (m.op) {
    case 'insert':
    case 'space':
      return text.slice(0, at) + m.text + text.slice(at);
    case 'delete':
      return text.slice(0, at) + text.slice(at + m.length);
    case 'replace':
      return text.slice(0, at) + m.text + text.slice(at + m.text.length);
    case 'repeat':
      return text.slice(0, at + m.length) + text.slice(at, at + m.length) + text.slice(at + m.length);
    case 'number': {
      let n = 0;
      return text.replace(/\d+/g, (d) => (n++ === m.which ? m.text : d));
    }
    case 'case':
      return m.upper ? text.toUpperCase() : text.toLowerCase();
  }
}

/** A valid seed with up to `max` mutations applied. */
function nearValid(seeds: string[], alphabet: string[], max = 4): fc.Arbitrary<string> {
  return fc
    .tuple(fc.constantFrom(...seeds), fc.array(mutation(alphabet), { maxLength: max }))
    .map(([seed, ms]) => ms.reduce(apply, seed));
}

const RRULES = [
  'FREQ=DAILY;BYHOUR=9;BYMINUTE=0',
  'FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR;BYHOUR=9;BYMINUTE=0',
  'FREQ=MONTHLY;BYDAY=-1FR;BYHOUR=17',
  'FREQ=MONTHLY;BYMONTHDAY=31;COUNT=12',
  'FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=29;INTERVAL=4',
  'FREQ=YEARLY;BYWEEKNO=53;BYDAY=SU;WKST=MO',
  'FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1',
  'FREQ=HOURLY;INTERVAL=7;UNTIL=20281231T235959Z',
  'FREQ=MINUTELY;INTERVAL=15;BYHOUR=9,10,11',
  'FREQ=SECONDLY;INTERVAL=30;COUNT=5',
  'FREQ=YEARLY;BYYEARDAY=1,100,-1',
  'DTSTART;TZID=Europe/Riga:20270329T023000\nRRULE:FREQ=DAILY;COUNT=3',
  'DTSTART;TZID=America/New_York:20271107T013000\nRRULE:FREQ=DAILY\nEXDATE;TZID=America/New_York:20271108T013000\nRDATE;TZID=America/New_York:20271109T120000',
  'DTSTART:20270101T000000Z\nRRULE:FREQ=WEEKLY;BYDAY=SA,SU',
];
const RRULE_ALPHABET = [
  ';',
  '=',
  ',',
  ':',
  '-',
  '+',
  'FREQ',
  'BYDAY',
  'COUNT',
  'UNTIL',
  'Z',
  'T',
  '\n',
  'RRULE:',
];

const CRONS = [
  '0 9 * * 1-5',
  '*/15 9-17 * * MON-FRI',
  '0 0 L * *',
  '0 12 15W * *',
  '0 18 * * 5L',
  '0 9 * * MON#2',
  '30 0 9 LW * ?',
  '0 0 1 1,4,7,10 *',
  '@daily',
  '@hourly',
  '5 4 * * SUN',
  '0 0 29 2 *',
];
const CRON_ALPHABET = ['*', '/', ',', '-', 'L', 'W', '#', '?', 'MON', 'JAN', '@', ' '];

const DURATIONS = [
  'PT10M',
  'P1D',
  'P1DT12H',
  'PT0.5S',
  'P2W',
  'P1Y2M3DT4H5M6S',
  'PT1H',
  'P3D',
  'PT6H',
  'PT20M',
];
const DURATION_ALPHABET = ['P', 'T', 'Y', 'M', 'W', 'D', 'H', 'S', '.', ',', '-', '+'];

const ZONES = Intl.supportedValuesOf('timeZone').concat([
  'UTC',
  'Etc/UTC',
  'GMT',
  'America/Argentina/Buenos_Aires',
]);
const ZONE_ALPHABET = ['/', '_', '-', '+', ':', 'GMT', 'UTC', 'Etc', '0', '2', ' '];

/** Structured durations: every part present or not, with any number (huge, fractional, zero). */
const structuredDuration = fc
  .tuple(
    fc.array(
      fc.tuple(
        fc.oneof(
          fc.constantFrom(...HUGE_NUMBERS),
          fc.nat().map(String),
          fc.double({ noNaN: true }).map(String),
        ),
        fc.constantFrom('Y', 'M', 'W', 'D'),
      ),
      { maxLength: 4 },
    ),
    fc.boolean(),
    fc.array(
      fc.tuple(
        fc.oneof(
          fc.constantFrom(...HUGE_NUMBERS),
          fc.nat().map(String),
          fc.double({ noNaN: true }).map(String),
        ),
        fc.constantFrom('H', 'M', 'S'),
      ),
      { maxLength: 3 },
    ),
  )
  .map(
    ([date, t, time]) =>
      `P${date.map(([n, u]) => n + u).join('')}${t ? 'T' : ''}${time.map(([n, u]) => n + u).join('')}`,
  );

describe('parser fuzzing: a value or a CalendarError, within a hang bound, for every input', {
  timeout: HANG_TIMEOUT_MS,
}, () => {
  it('RRULE bodies and blocks: arbitrary strings and mutations of valid rules', () => {
    const outcomes = { value: 0, error: 0 };
    fc.assert(
      fc.property(fc.oneof(fc.string({ maxLength: 120 }), nearValid(RRULES, RRULE_ALPHABET)), (rule) => {
        answers(isBlock(rule) ? 'parseBlock' : 'parseRecur', rule, () =>
          isBlock(rule) ? parseBlock('timing.rule', rule) : parseRecur('timing.rule', rule),
        );
        outcomes[throughCalendar({ kind: 'RECURRENCE', rule, timezone: 'Europe/Riga' })]++;
      }),
      { numRuns: 1500, seed: 101 },
    );
    // The mutations keep a good share valid, so the expansion behind the parser is exercised too.
    expect(outcomes.value).toBeGreaterThan(100);
    expect(outcomes.error).toBeGreaterThan(100);
  });

  it('cron expressions: arbitrary strings and mutations of valid ones', () => {
    const outcomes = { value: 0, error: 0 };
    fc.assert(
      fc.property(fc.oneof(fc.string({ maxLength: 60 }), nearValid(CRONS, CRON_ALPHABET)), (expression) => {
        answers('parseCron', expression, () => parseCron('timing.expression', expression));
        outcomes[throughCalendar({ kind: 'CRON', expression, timezone: 'America/New_York' })]++;
      }),
      { numRuns: 1500, seed: 102 },
    );
    expect(outcomes.value).toBeGreaterThan(100);
    expect(outcomes.error).toBeGreaterThan(100);
  });

  it('durations: arbitrary strings, structured parts with any number, mutations of valid ones', () => {
    const outcomes = { value: 0, error: 0 };
    fc.assert(
      fc.property(
        fc.oneof(fc.string({ maxLength: 40 }), structuredDuration, nearValid(DURATIONS, DURATION_ALPHABET)),
        fc.record({ allowZero: fc.boolean(), fixedOnly: fc.boolean() }),
        (text, opts) => {
          answers('parseDuration', text, () => parseDuration('timing.every', text, opts));
          outcomes[throughCalendar({ kind: 'INTERVAL', every: text })]++;
          throughCalendar({ kind: 'DELAY', delay: text, anchor: '2027-05-01T00:00:00Z' });
          throughCalendar({ kind: 'DEADLINE', at: '2027-09-01T12:00:00Z', reminders: [text, 'PT1H'] });
        },
      ),
      { numRuns: 1500, seed: 103 },
    );
    expect(outcomes.value).toBeGreaterThan(50);
    expect(outcomes.error).toBeGreaterThan(100);
  });

  it('zones: arbitrary strings, fixed offsets, and mutations of every IANA id the runtime knows', () => {
    const offsets = fc
      .tuple(
        fc.constantFrom('', 'UTC', 'GMT', 'Etc/GMT', 'UT'),
        fc.constantFrom('+', '-', ''),
        fc.integer({ min: 0, max: 99 }),
        fc.constantFrom('', ':00', ':30', '00'),
      )
      .map(([p, s, h, m]) => `${p}${s}${h}${m}`);
    const outcomes = { value: 0, error: 0 };
    fc.assert(
      fc.property(
        fc.oneof(fc.string({ maxLength: 40 }), offsets, nearValid(ZONES, ZONE_ALPHABET, 2)),
        (zone) => {
          answers('checkZone', zone, () => checkZone('timing.timezone', zone));
          outcomes[throughCalendar({ kind: 'CRON', expression: '0 9 * * *', timezone: zone })]++;
          throughCalendar({ kind: 'ONE_TIME', at: '2027-09-05T14:00:00', timezone: zone });
        },
      ),
      { numRuns: 1500, seed: 104 },
    );
    expect(outcomes.value).toBeGreaterThan(50);
    expect(outcomes.error).toBeGreaterThan(100);
  });

  it('a DELAY, INTERVAL or reminder beyond the calendar’s years has no slot (found by this fuzzing: was a RangeError)', () => {
    for (const timing of [
      { kind: 'DELAY', delay: 'P273733Y', anchor: '2027-05-01T00:00:00Z' },
      { kind: 'DELAY', delay: 'PT99999999999999999999S' },
      { kind: 'INTERVAL', every: 'PT99999999999999999999S' },
    ] as Timing[]) {
      const result = compileCalendar({
        scheduleId: 'far',
        timing,
        createdAt: '2027-01-01T00:00:00Z',
      }).nextSlots('2027-06-01T00:00:00Z', 3);
      expect(result).toMatchObject({ slots: [], exhausted: true });
    }
    // A reminder that far before its deadline is long past: only the deadline is left.
    const deadline = compileCalendar({
      scheduleId: 'far',
      timing: { kind: 'DEADLINE', at: '2027-09-01T12:00:00Z', reminders: ['P273848Y', 'PT1H'] },
      createdAt: '2027-01-01T00:00:00Z',
    }).nextSlots('2027-06-01T00:00:00Z', 3);
    expect(deadline.slots.map((s) => s.label)).toEqual(['reminder:PT1H', 'deadline']);
  });

  it('big inputs: a block with 10,000 EXDATE lines and one of 10,000 RDATEs answer', () => {
    const start = Date.UTC(2027, 0, 1);
    const dates = Array.from({ length: 10_000 }, (_, i) =>
      new Date(start + i * 86_400_000)
        .toISOString()
        .replace(/[-:]/g, '')
        .replace(/\.\d+Z$/, 'Z'),
    );
    const exdates = `DTSTART:20270101T000000Z\nRRULE:FREQ=DAILY\n${dates.map((d) => `EXDATE:${d}`).join('\n')}`;
    const rdates = `DTSTART:20270101T000000Z\nRDATE:${dates.join(',')}`;
    // Either answer is fine (a size limit is a CalendarError); what matters is that it answers.
    throughCalendar({ kind: 'RECURRENCE', rule: exdates, timezone: 'UTC' });
    throughCalendar({ kind: 'RECURRENCE', rule: rdates, timezone: 'UTC' });
    answers('parseRecur', 'BYDAY×10000', () =>
      parseRecur('timing.rule', `FREQ=DAILY;BYDAY=${Array(10_000).fill('MO').join(',')}`),
    );
    answers('parseCron', 'list×10000', () =>
      parseCron('timing.expression', `${Array.from({ length: 10_000 }, (_, i) => i % 60).join(',')} * * * *`),
    );
  });
});
