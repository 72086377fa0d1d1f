/** Bad input gets a typed CalendarError naming the field, the reason and a stable code. */
import rrulePkg from 'rrule';
import { describe, expect, it, vi } from 'vitest';
import { SEARCH_BUDGET_STRIDE } from '../../../src/calendar/engine.js';
import {
  CalendarError,
  type CalendarOptions,
  compileCalendar,
  type SearchBudget,
  type Timing,
} from '../../../src/calendar/index.js';

const { RRule } = (rrulePkg as unknown as { RRule?: unknown }).RRule
  ? (rrulePkg as unknown as typeof import('rrule'))
  : (rrulePkg as unknown as { default: typeof import('rrule') }).default;

// The calendar bounds its searches by counts, not by time, so the tests below count the work a search does
// instead of timing it (a timed bound fails on a busy machine and passes a slow regression on a fast one).

/** Periods in one 400-year Gregorian cycle, after which the calendar repeats. */
const PERIODS_IN_400_YEARS: Record<string, number> = {
  YEARLY: 400,
  MONTHLY: 4_800,
  WEEKLY: 20_871,
  DAILY: 146_097,
};
/** Set members the compile-time probe examines for a first occurrence (recurrence.ts). */
const PROBE_MEMBERS = 20_000;
/** Candidates one nextSlots examines before SEARCH_LIMIT (engine.ts). */
const SEARCH_FUEL = 200_000;

/** Occurrences every rule's expander has yielded, summed. */
const expansion = vi.hoisted(() => ({ yielded: 0 }));
vi.mock('../../../src/calendar/rrule-expand.js', async (importOriginal) => {
  const { countingExpanders } = await import('./expansion-counter.js');
  return countingExpanders(await importOriginal(), expansion);
});

/**
 * The work `fn` made the RRULE expansion do: `yielded`, the occurrences every rule's expander produced, and
 * `periods`, the days, weeks, months or years rrule.js stepped through for DAILY…YEARLY rules. rrule.js reads
 * `options.interval` once per search and twice per period (the reads the expander's own fuel counts), so
 * counting the reads counts the periods.
 */
function expansionWork(fn: () => unknown): { yielded: number; periods: number } {
  const before = expansion.yielded;
  let reads = 0;
  let searches = 0;
  const all = RRule.prototype.all;
  const spy = vi.spyOn(RRule.prototype, 'all').mockImplementation(function (
    this: InstanceType<typeof RRule>,
    iterator,
  ) {
    searches++;
    const options = this.options;
    const fuel = Object.getOwnPropertyDescriptor(options, 'interval')!;
    Object.defineProperty(options, 'interval', {
      configurable: true,
      get: () => {
        reads++;
        return fuel.get ? fuel.get.call(options) : fuel.value;
      },
    });
    try {
      return all.call(this, iterator);
    } finally {
      Object.defineProperty(options, 'interval', fuel);
    }
  });
  try {
    fn();
  } finally {
    spy.mockRestore();
  }
  return { yielded: expansion.yielded - before, periods: (reads - searches) / 2 };
}

function errorOf(timing: unknown, options?: unknown, createdAt = '2027-01-01T00:00:00Z'): CalendarError {
  try {
    compileCalendar({
      scheduleId: 's',
      timing: timing as Timing,
      options: options as CalendarOptions,
      createdAt,
    });
  } catch (e) {
    expect(e).toBeInstanceOf(CalendarError);
    return e as CalendarError;
  }
  throw new Error('expected a CalendarError');
}
const rec = (rule: string, timezone = 'Europe/Riga') => ({ kind: 'RECURRENCE', rule, timezone });

describe('zones', () => {
  it.each([
    ['Mars/Olympus_Mons', 'UNKNOWN_ZONE'],
    ['Europe/Rigaa', 'UNKNOWN_ZONE'],
    ['+02:00', 'FIXED_OFFSET_ZONE'],
    ['UTC+2', 'FIXED_OFFSET_ZONE'],
    ['GMT-05:00', 'FIXED_OFFSET_ZONE'],
    ['Etc/GMT-2', 'FIXED_OFFSET_ZONE'],
    ['EST', 'FIXED_OFFSET_ZONE'],
    ['', 'INVALID_FIELD'],
  ])('%s → %s', (zone, code) => {
    const e = errorOf(rec('FREQ=DAILY', zone));
    expect(e.code).toBe(code);
    expect(e.field).toBe('timing.timezone');
  });

  it('UTC and IANA aliases of it are accepted', () => {
    for (const z of ['UTC', 'Etc/UTC']) {
      expect(() =>
        compileCalendar({
          scheduleId: 's',
          timing: rec('FREQ=DAILY', z) as Timing,
          createdAt: '2027-01-01T00:00:00Z',
        }),
      ).not.toThrow();
    }
  });

  it('window and options zones are validated too', () => {
    expect(
      errorOf(rec('FREQ=DAILY'), { window: { from: '09:00', to: '18:00', timezone: 'UTC+3' } }),
    ).toMatchObject({
      field: 'options.window.timezone',
      code: 'FIXED_OFFSET_ZONE',
    });
    expect(errorOf({ kind: 'INTERVAL', every: 'PT1H' }, { timezone: 'Nowhere/City' })).toMatchObject({
      field: 'options.timezone',
      code: 'UNKNOWN_ZONE',
    });
  });
});

describe('RRULE', () => {
  it.each([
    ['BYHOUR=9', 'INVALID_RRULE', /FREQ is required/],
    ['FREQ=FORTNIGHTLY', 'INVALID_RRULE', /FREQ=FORTNIGHTLY/],
    ['FREQ=DAILY;BYHOUR=24', 'INVALID_RRULE', /BYHOUR: 24 is out of range/],
    ['FREQ=DAILY;BYMINUTE=-1', 'INVALID_RRULE', /BYMINUTE/],
    ['FREQ=DAILY;BYDAY=XX', 'INVALID_RRULE', /BYDAY/],
    ['FREQ=DAILY;BYDAY=1MO', 'INVALID_RRULE', /only valid with FREQ=MONTHLY or YEARLY/],
    ['FREQ=YEARLY;BYWEEKNO=1;BYDAY=1MO', 'INVALID_RRULE', /BYWEEKNO/],
    ['FREQ=WEEKLY;BYMONTHDAY=1', 'INVALID_RRULE', /BYMONTHDAY is not valid with FREQ=WEEKLY/],
    ['FREQ=MONTHLY;BYYEARDAY=1', 'INVALID_RRULE', /BYYEARDAY/],
    ['FREQ=MONTHLY;BYWEEKNO=1', 'INVALID_RRULE', /BYWEEKNO/],
    ['FREQ=DAILY;BYSETPOS=1', 'INVALID_RRULE', /BYSETPOS needs another/],
    ['FREQ=DAILY;COUNT=3;UNTIL=20300101T000000Z', 'INVALID_RRULE', /COUNT and UNTIL/],
    ['FREQ=DAILY;COUNT=0', 'INVALID_RRULE', /COUNT/],
    ['FREQ=DAILY;INTERVAL=-2', 'INVALID_RRULE', /INTERVAL/],
    ['FREQ=DAILY;FREQ=WEEKLY', 'INVALID_RRULE', /twice/],
    ['FREQ=DAILY;BYHOUR', 'INVALID_RRULE', /KEY=VALUE/],
    ['FREQ=DAILY;FOO=1', 'INVALID_RRULE', /unknown rule part/],
    ['FREQ=DAILY;UNTIL=2030-13-01', 'INVALID_RRULE', /UNTIL/],
    ['FREQ=DAILY;BYSECOND=60', 'UNSUPPORTED_RRULE', /leap second/],
    ['RSCALE=GREGORIAN;FREQ=YEARLY', 'UNSUPPORTED_RRULE', /RFC 7529/],
  ])('%s → %s', (rule, code, reason) => {
    const e = errorOf(rec(rule));
    expect(e.code).toBe(code);
    expect(e.field).toBe('timing.rule');
    expect(e.reason).toMatch(reason);
  });

  it('blocks: bad lines, different TZID, nothing to expand', () => {
    expect(errorOf(rec('DTSTART;TZID=Europe/Paris:20270101T090000\nRRULE:FREQ=DAILY')).reason).toMatch(
      /differs from timing.timezone/,
    );
    expect(errorOf(rec('DTSTART;TZID=Mars/Base:20270101T090000\nRRULE:FREQ=DAILY')).code).toBe(
      'UNKNOWN_ZONE',
    );
    expect(errorOf(rec('DTSTART:20270101T090000')).reason).toMatch(/neither an RRULE nor an RDATE/);
    expect(errorOf(rec('DTSTART:20270230T090000\nRRULE:FREQ=DAILY')).code).toBe('INVALID_DATETIME');
    expect(errorOf(rec('DTSTART:20270101T090000\nRRULE:FREQ=DAILY\nX-FOO:1')).reason).toMatch(
      /unknown property "X-FOO"/,
    );
  });

  it('UNTIL before DTSTART', () => {
    const e = errorOf(
      rec('DTSTART;TZID=Europe/Riga:20270101T090000\nRRULE:FREQ=DAILY;UNTIL=20261231T000000Z'),
    );
    expect(e).toMatchObject({ code: 'UNTIL_BEFORE_DTSTART', field: 'timing.rule' });
    expect(
      errorOf(rec('DTSTART;TZID=Europe/Riga:20270101T090000\nRRULE:FREQ=DAILY;UNTIL=20261231T235959')).code,
    ).toBe('UNTIL_BEFORE_DTSTART');
  });

  it.each([
    'FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30',
    'FREQ=MONTHLY;BYMONTH=4,6,9,11;BYMONTHDAY=31',
    'FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=-30',
    'FREQ=HOURLY;INTERVAL=24;BYHOUR=5', // DTSTART 00:00 + 24 h steps never reach 05:00
    'FREQ=MINUTELY;INTERVAL=60;BYMINUTE=30',
    'FREQ=DAILY;INTERVAL=7;BYDAY=TU', // DTSTART is a Friday: every 7th day is a Friday
    'FREQ=MONTHLY;INTERVAL=12;BYMONTHDAY=31;BYMONTH=1,4', // only Januaries and Aprils… fires in January
    'FREQ=DAILY;BYMINUTE=45;BYSETPOS=3,-2', // one time a day: BYSETPOS keeps none (searched to 9999 before)
    'FREQ=WEEKLY;INTERVAL=3;BYDAY=MO;BYSETPOS=2',
  ])('never fires: %s (bounded search, no hang)', (rule) => {
    const text = `DTSTART;TZID=UTC:20270101T000000\nRRULE:${rule}`; // 2027-01-01 is a Friday
    let code: string | undefined;
    const work = expansionWork(() => {
      try {
        compileCalendar({
          scheduleId: 's',
          timing: rec(text, 'UTC') as Timing,
          createdAt: '2027-01-01T00:00:00Z',
        });
      } catch (e) {
        code = (e as CalendarError).code;
      }
    });
    // A first occurrence is searched for over one 400-year cycle of the rule's periods (the chunk the search
    // ends in may run a little past it); on to the year 9999 would be twenty cycles. Sub-daily rules are our
    // own walker's: rrule.js steps through none of their periods.
    const cycle = PERIODS_IN_400_YEARS[/FREQ=(\w+)/.exec(rule)![1]!] ?? 0;
    expect(work.periods).toBeLessThanOrEqual(2 * cycle);
    if (rule.includes('BYMONTH=1,4')) expect(code).toBeUndefined();
    else expect(code).toBe('NEVER_FIRES');
  });

  it('the search for a first occurrence ends after one 400-year cycle of periods', () => {
    // Every 7th day from a Friday is a Friday: 146,097 / 7 = 20,871 of its periods make the cycle.
    const work = expansionWork(() =>
      errorOf(rec('DTSTART;TZID=UTC:20270101T000000\nRRULE:FREQ=DAILY;INTERVAL=7;BYDAY=TU', 'UTC')),
    );
    const cycle = PERIODS_IN_400_YEARS.DAILY! / 7;
    expect(work.periods).toBeGreaterThanOrEqual(cycle);
    expect(work.periods).toBeLessThan(cycle + 10);
  });

  it('YEARLY;INTERVAL=4 on Feb 29 from a non-leap year never fires', () => {
    const e = errorOf(
      rec('DTSTART;TZID=UTC:20250101T000000\nRRULE:FREQ=YEARLY;INTERVAL=4;BYMONTH=2;BYMONTHDAY=29', 'UTC'),
    );
    expect(e.code).toBe('NEVER_FIRES');
  });

  it('COUNT exhausted by EXDATE has no occurrence', () => {
    expect(
      errorOf(
        rec(
          'DTSTART;TZID=UTC:20270101T000000\nRRULE:FREQ=DAILY;COUNT=1\nEXDATE;TZID=UTC:20270101T000000',
          'UTC',
        ),
      ).code,
    ).toBe('NEVER_FIRES');
  });
});

describe('recurrence sets: each refusal names the field, the line and the reason', () => {
  const D = 'DTSTART;TZID=Europe/Riga:20270104T090000';
  it.each([
    // what an EXRULE could remove from
    [
      `${D}\nEXRULE:FREQ=DAILY`,
      'INVALID_RRULE',
      /^EXRULE only removes occurrences: the block has no RRULE or RDATE/,
    ],
    // RDATE;VALUE=PERIOD
    [
      `${D}\nRRULE:FREQ=DAILY\nRDATE;VALUE=PERIOD:20270105T100000/20270105T090000`,
      'INVALID_RRULE',
      /RDATE;VALUE=PERIOD:20270105T100000\/20270105T090000: the period must end after it starts/,
    ],
    [
      `${D}\nRRULE:FREQ=DAILY\nRDATE;VALUE=PERIOD:20270105T100000/20270105T100000`,
      'INVALID_RRULE',
      /the period must end after it starts/,
    ],
    [
      `${D}\nRRULE:FREQ=DAILY\nRDATE;VALUE=PERIOD:20270105T100000Z/20270105T090000Z`,
      'INVALID_RRULE',
      /must end after it starts/,
    ],
    [
      `${D}\nRRULE:FREQ=DAILY\nRDATE;VALUE=PERIOD:20270105T100000/-PT1H`,
      'INVALID_RRULE',
      /the duration must be positive/,
    ],
    [
      `${D}\nRRULE:FREQ=DAILY\nRDATE;VALUE=PERIOD:20270105T100000/PT0S`,
      'INVALID_RRULE',
      /must be longer than zero/,
    ],
    [`${D}\nRRULE:FREQ=DAILY\nRDATE;VALUE=PERIOD:20270105T100000/P1M`, 'INVALID_RRULE', /years or months/],
    [
      `${D}\nRRULE:FREQ=DAILY\nRDATE;VALUE=PERIOD:20270105T100000/PT1X`,
      'INVALID_RRULE',
      /is not an ISO 8601 duration/,
    ],
    [
      `${D}\nRRULE:FREQ=DAILY\nRDATE;VALUE=PERIOD:20270105T100000`,
      'INVALID_RRULE',
      /a period is start\/end or start\/duration/,
    ],
    [
      `${D}\nRRULE:FREQ=DAILY\nRDATE;VALUE=PERIOD:20270105/PT1H`,
      'INVALID_RRULE',
      /a period starts at a date-time, not a date/,
    ],
    [
      `${D}\nRRULE:FREQ=DAILY\nRDATE;VALUE=PERIOD:20270105T100000/20270106`,
      'INVALID_RRULE',
      /a period ends at a date-time, not a date/,
    ],
    [
      `${D}\nRRULE:FREQ=DAILY\nRDATE;VALUE=PERIOD:20270105T100000Z/20270105T110000`,
      'INVALID_RRULE',
      /start and end must both be UTC \(…Z\) or both local/,
    ],
    [
      `${D}\nRRULE:FREQ=DAILY\nRDATE;VALUE=PERIOD:20271305T100000/PT1H`,
      'INVALID_DATETIME',
      /is not a valid calendar date/,
    ],
    // VALUE types
    [
      `${D}\nRRULE:FREQ=DAILY\nRDATE;VALUE=TEXT:tomorrow`,
      'INVALID_RRULE',
      /RDATE: VALUE=TEXT is not a value type of RDATE \(DATE-TIME, DATE, PERIOD\)/,
    ],
    [
      `${D}\nRRULE:FREQ=DAILY\nEXDATE;VALUE=PERIOD:20270105T090000/PT1H`,
      'INVALID_RRULE',
      /EXDATE: VALUE=PERIOD is not a value type of EXDATE \(DATE-TIME, DATE\)/,
    ],
    [
      'DTSTART;VALUE=PERIOD:20270104T090000/PT1H\nRRULE:FREQ=DAILY',
      'INVALID_RRULE',
      /DTSTART: VALUE=PERIOD is not a value type/,
    ],
    // rule lines are named when there are several, an EXRULE always
    [
      `${D}\nRRULE:FREQ=DAILY\nRRULE:FREQ=DAILY;BYHOUR=24`,
      'INVALID_RRULE',
      /^RRULE 2 of 2: BYHOUR: 24 is out of range/,
    ],
    [`${D}\nRRULE:FREQ=DAILY\nEXRULE:FREQ=DAILY;FOO=1`, 'INVALID_RRULE', /^EXRULE: unknown rule part "FOO"/],
    [
      `${D}\nRRULE:FREQ=DAILY\nEXRULE;TZID=Europe/Riga:FREQ=DAILY`,
      'INVALID_RRULE',
      /^EXRULE takes no parameters/,
    ],
    [
      `${D}\nRRULE:FREQ=DAILY\nRRULE;VALUE=DATE:FREQ=DAILY`,
      'INVALID_RRULE',
      /^RRULE 2 of 2 takes no parameters/,
    ],
    [
      `${D}\nRRULE:FREQ=DAILY\nEXRULE:FREQ=DAILY;UNTIL=20261231T000000Z`,
      'UNTIL_BEFORE_DTSTART',
      /^EXRULE: UNTIL 2026-12-31T00:00:00Z is before DTSTART/,
    ],
    [
      `${D}\nRRULE:FREQ=DAILY\nRRULE:FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30`,
      'NEVER_FIRES',
      /^RRULE 2 of 2: the rule can never fire: no month/,
    ],
    [
      `${D}\nRRULE:FREQ=DAILY\nRRULE:FREQ=DAILY;BYSETPOS=2;BYHOUR=9`,
      'NEVER_FIRES',
      /^RRULE 2 of 2: the rule can never fire \(no occurrence found .* 400-year/,
    ],
    [
      `${D}\nRDATE:20270110T090000\nRRULE:FREQ=DAILY\nRRULE:FREQ=DAILY;INTERVAL=7;BYDAY=TU`,
      'NEVER_FIRES',
      /^RRULE 2 of 2: the rule can never fire \(no occurrence found/,
    ],
    [
      `${D}\nRRULE:FREQ=DAILY\nEXRULE:FREQ=YEARLY;BYMONTH=4;BYMONTHDAY=31`,
      'INVALID_RRULE',
      /^EXRULE: never matches: no month in BYMONTH=4/,
    ],
    [
      `${D}\nRRULE:FREQ=DAILY\nEXRULE:FREQ=HOURLY;INTERVAL=24;BYHOUR=5`,
      'INVALID_RRULE',
      /^EXRULE: never matches: FREQ=HOURLY;INTERVAL=24 from DTSTART never reaches/,
    ],
    // what is left
    [
      `${D}\nRRULE:FREQ=DAILY;COUNT=3\nEXRULE:FREQ=DAILY`,
      'NEVER_FIRES',
      /no occurrence between DTSTART and its end \(UNTIL\/COUNT\/EXDATE\/EXRULE\)/,
    ],
    [
      `${D}\nRRULE:FREQ=DAILY;BYHOUR=9\nRRULE:FREQ=WEEKLY\nEXRULE:FREQ=DAILY`,
      'NEVER_FIRES',
      /EXRULE\/EXDATE remove every occurrence: none is left among the first 20000 the set examined/,
    ],
    [
      `${D}\nRRULE:FREQ=YEARLY\nEXRULE:FREQ=SECONDLY;BYHOUR=9;BYMINUTE=0;BYSECOND=0,1`,
      'NEVER_FIRES',
      /^EXRULE\/EXDATE remove every occurrence$/,
    ],
    [
      // a COUNT EXRULE is counted through, and each step counts: a million seconds before 2028
      `${D}\nRRULE:FREQ=YEARLY\nEXRULE:FREQ=SECONDLY;COUNT=1000000`,
      'NEVER_FIRES',
      /none is left among the first 20000 the set examined/,
    ],
    [
      `${D}\nRDATE;TZID=America/New_York:20270105T020000\nEXDATE;TZID=Europe/Riga:20270105T090000`,
      'NEVER_FIRES',
      /no occurrence between DTSTART and its end/,
    ],
    [
      `${D}\n${Array.from({ length: 65 }, () => 'RRULE:FREQ=DAILY').join('\n')}`,
      'INVALID_RRULE',
      /too many RRULE and EXRULE lines \(max 64\)/,
    ],
  ])('%s → %s', (text, code, reason) => {
    let e: CalendarError | undefined;
    const work = expansionWork(() => {
      e = errorOf(rec(text));
    });
    expect(e).toMatchObject({ field: 'timing.rule', code });
    expect(e!.reason).toMatch(reason);
    // Bounded, never a hang: a step of each of the (at most 3) rules per member the probe examines, and at most
    // one cycle of periods searched for a rule that never fires.
    expect(work.yielded).toBeLessThanOrEqual(3 * PROBE_MEMBERS);
    expect(work.periods).toBeLessThanOrEqual(2 * PERIODS_IN_400_YEARS.DAILY!);
  });

  it('an EXRULE that removes everything after the first occurrences ends in SEARCH_LIMIT, not a loop', () => {
    // the RDATE fires, so the set compiles; after it the EXRULE removes every RRULE occurrence
    const cal = compileCalendar({
      scheduleId: 's',
      timing: rec(
        'DTSTART;TZID=UTC:20270104T090000\nRDATE:20270101T090000Z\nRRULE:FREQ=HOURLY\nEXRULE:FREQ=HOURLY',
        'UTC',
      ) as Timing,
      createdAt: '2027-01-01T00:00:00Z',
    });
    expect(cal.nextSlots('2026-12-31T00:00:00Z', 1).slots.map((s) => s.fireAt)).toEqual([
      '2027-01-01T09:00:00Z',
    ]);
    // The engine asks a budget once per SEARCH_BUDGET_STRIDE candidates: this one counts the questions, and
    // stops a search ten times past the calendar's own fuel so that a loop fails here instead of hanging.
    let questions = 0;
    const meter: SearchBudget = {
      exceeded: () => ++questions * SEARCH_BUDGET_STRIDE > 10 * SEARCH_FUEL,
      reason: 'stopped by the test: ten times the calendar’s own fuel',
    };
    let e: unknown;
    try {
      cal.nextSlots('2027-01-02T00:00:00Z', 1, undefined, { budget: meter });
    } catch (err) {
      e = err;
    }
    expect(questions * SEARCH_BUDGET_STRIDE, 'candidates examined').toBeLessThanOrEqual(SEARCH_FUEL);
    expect(e).toBeInstanceOf(CalendarError);
    expect(e).toMatchObject({ field: 'timing.rule', code: 'SEARCH_LIMIT' });
    expect((e as CalendarError).reason).toMatch(/the EXRULEs remove every occurrence/);
  });

  it('a cursor of a set holds one position per COUNT rule', () => {
    const cal = compileCalendar({
      scheduleId: 's',
      timing: rec(`${D}\nRRULE:FREQ=DAILY;COUNT=5\nRRULE:FREQ=WEEKLY;COUNT=5`) as Timing,
      createdAt: '2027-01-01T00:00:00Z',
    });
    const last = '2027-01-05T09:00:00+02:00';
    expect(() =>
      cal.nextSlots(last, 1, { v: 1, last, emitted: 2, rules: [{ wall: '2027-01-05T09:00:00', n: 2 }] }),
    ).toThrow(/one position per COUNT rule \(2\)/);
    expect(() =>
      cal.nextSlots(last, 1, {
        v: 1,
        last,
        emitted: 2,
        rules: [{ wall: '2027-01-05T09:30:00', n: 2 }, null],
      }),
    ).toThrow(/does not point at an occurrence of RRULE 1 of 2/);
    expect(() =>
      cal.nextSlots(last, 1, {
        v: 1,
        last,
        emitted: 2,
        rules: [{ wall: '2027-01-05T09:00:00', n: 0 }, null],
      }),
    ).toThrow(CalendarError);
  });
});

describe('cron', () => {
  it.each([
    ['0 9 * *', /expected 5 fields/],
    ['0 9 * * * * *', /expected 5 fields/],
    ['60 9 * * *', /minute: 60 is out of range/],
    ['0 24 * * *', /hour/],
    ['0 9 0 * *', /day-of-month/],
    ['0 9 * 13 *', /month/],
    ['0 9 * * 8', /day-of-week/],
    ['0 9 * FOO *', /month/],
    ['0 9 5-1 * *', /starts after it ends/],
    ['*/0 * * * *', /step/],
    ['0 9 * * L', /ambiguous/],
    ['0 9 * * MON#6', /1-5/],
    ['0 9 ? ? ?', /only allowed in the day fields|\?/],
    ['@fortnightly', /unknown macro/],
    ['0 0 30 2 *', /never fires/],
    ['0 0 31 4,6,9,11 *', /never fires/],
  ])('%s', (expression, reason) => {
    const e = errorOf({ kind: 'CRON', expression, timezone: 'UTC' });
    expect(e.field).toBe('timing.expression');
    expect(e.reason).toMatch(reason);
    expect(['INVALID_CRON', 'NEVER_FIRES']).toContain(e.code);
  });
});

describe('other kinds and options', () => {
  it('ONE_TIME / DEADLINE local time without a zone', () => {
    expect(errorOf({ kind: 'ONE_TIME', at: '2026-09-05T14:00:00' })).toMatchObject({
      field: 'timing.timezone',
      code: 'TIMEZONE_REQUIRED',
    });
    expect(errorOf({ kind: 'DEADLINE', at: '2026-09-05T14:00:00' })).toMatchObject({
      field: 'timing.timezone',
      code: 'TIMEZONE_REQUIRED',
    });
    expect(errorOf({ kind: 'ONE_TIME', at: '2026-02-30T14:00:00', timezone: 'UTC' })).toMatchObject({
      field: 'timing.at',
      code: 'INVALID_DATETIME',
    });
    expect(errorOf({ kind: 'ONE_TIME', at: 'next tuesday 9am', timezone: 'UTC' })).toMatchObject({
      field: 'timing.at',
      code: 'INVALID_DATETIME',
    });
  });

  it('durations', () => {
    expect(errorOf({ kind: 'DELAY', delay: '20 minutes' })).toMatchObject({
      field: 'timing.delay',
      code: 'INVALID_DURATION',
    });
    expect(errorOf({ kind: 'INTERVAL', every: 'P1M' })).toMatchObject({
      field: 'timing.every',
      code: 'INVALID_DURATION',
    });
    expect(errorOf({ kind: 'INTERVAL', every: 'PT0S' })).toMatchObject({
      field: 'timing.every',
      code: 'INVALID_DURATION',
    });
    expect(errorOf({ kind: 'INTERVAL', every: 'PT' })).toMatchObject({
      field: 'timing.every',
      code: 'INVALID_DURATION',
    });
    expect(
      errorOf({ kind: 'DEADLINE', at: '2026-09-05T14:00:00Z', reminders: ['PT1H', 'PT60M'] }),
    ).toMatchObject({
      field: 'timing.reminders.1',
      code: 'INVALID_DURATION',
    });
    expect(errorOf({ kind: 'DELAY', delay: 'PT1M', anchor: '2026-09-05T14:00:00' })).toMatchObject({
      field: 'timing.anchor',
      code: 'INVALID_DATETIME',
    });
  });

  it('shape errors name the path', () => {
    expect(errorOf({ kind: 'SOMETIMES' })).toMatchObject({ field: 'timing.kind', code: 'INVALID_FIELD' });
    expect(errorOf({ kind: 'CRON', expression: '0 9 * * *' })).toMatchObject({
      field: 'timing.timezone',
      code: 'INVALID_FIELD',
    });
    expect(errorOf({ kind: 'CRON', expression: '0 9 * * *', timezone: 'UTC', extra: 1 })).toMatchObject({
      code: 'INVALID_FIELD',
    });
    expect(errorOf(rec('FREQ=DAILY'), { max_count: 0 })).toMatchObject({
      field: 'options.max_count',
      code: 'INVALID_FIELD',
    });
    expect(errorOf(rec('FREQ=DAILY'), { window: { from: '9am', to: '18:00' } })).toMatchObject({
      field: 'options.window.from',
    });
  });

  it('options that need more than shape', () => {
    expect(errorOf(rec('FREQ=DAILY'), { window: { from: '09:00', to: '09:00' } })).toMatchObject({
      field: 'options.window.to',
      code: 'INVALID_WINDOW',
    });
    expect(errorOf(rec('FREQ=DAILY'), { window: { from: '25:00', to: '09:00' } })).toMatchObject({
      field: 'options.window.from',
      code: 'INVALID_WINDOW',
    });
    expect(
      errorOf(rec('FREQ=DAILY'), { starts_at: '2027-02-01T00:00:00Z', ends_at: '2027-01-01T00:00:00Z' }),
    ).toMatchObject({ field: 'options.ends_at' });
    expect(errorOf(rec('FREQ=DAILY'), { exclusions: ['2027-02-30'] })).toMatchObject({
      field: 'options.exclusions.0',
      code: 'INVALID_DATETIME',
    });
    expect(errorOf({ kind: 'ONE_TIME', at: '2026-09-05T14:00:00Z' }, { jitter: 'PT1M' })).toMatchObject({
      field: 'options.jitter',
      code: 'INVALID_OPTION',
    });
    expect(errorOf(rec('FREQ=DAILY'), { jitter: 'P2D' })).toMatchObject({
      field: 'options.jitter',
      code: 'INVALID_OPTION',
    });
    // a window that skips everything a 03:00 cron produces
    expect(
      errorOf(
        { kind: 'CRON', expression: '0 3 * * *', timezone: 'UTC' },
        { window: { from: '09:00', to: '18:00', outside: 'SKIP' } },
      ),
    ).toMatchObject({
      field: 'options.window',
      code: 'NEVER_FIRES',
    });
  });

  it('createdAt and after must be instants', () => {
    expect(() =>
      compileCalendar({
        scheduleId: 's',
        timing: rec('FREQ=DAILY') as Timing,
        createdAt: '2027-01-01T00:00:00',
      }),
    ).toThrow(expect.objectContaining({ field: 'createdAt', code: 'INVALID_DATETIME' }));
    const cal = compileCalendar({
      scheduleId: 's',
      timing: rec('FREQ=DAILY') as Timing,
      createdAt: '2027-01-01T00:00:00Z',
    });
    expect(() => cal.nextSlots('yesterday', 1)).toThrow(expect.objectContaining({ field: 'after' }));
    expect(() => cal.nextSlots('2027-01-01T00:00:00Z', -1)).toThrow(
      expect.objectContaining({ field: 'count' }),
    );
  });
});
