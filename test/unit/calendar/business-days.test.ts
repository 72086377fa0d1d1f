/** Business-day calendars (issue 43): the pure module, its date-holidays source, and a differential check. */
import { readFileSync } from 'node:fs';
import Holidays from 'date-holidays';
import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import {
  type BusinessCalendar,
  businessCalendar,
  businessDaySource,
  type HolidaySource,
  humanDate,
  type Region,
} from '../../../src/calendar/business-days.js';
import { CalendarError } from '../../../src/calendar/errors.js';
import {
  DATE_HOLIDAYS_VERSION,
  dateHolidaysSource,
  HOLIDAY_DATA_VERSION,
} from '../../../src/calendar/holiday-data.js';
import type { Weekday } from '../../../src/calendar/timing.js';
import { BusinessDaysOptions, BusinessDayTiming, ScheduleSpec } from '../../../src/model/contracts.js';

/** A hand-written source: the module's logic without the package. */
const fake: HolidaySource = {
  version: 'fake@1',
  hasRegion: (r: Region) => r.country === 'XL' && (r.subdivision === undefined || r.subdivision === 'N'),
  holidays: (r: Region, year: number) =>
    year === 2026
      ? [
          { date: '2026-01-01', name: 'New Year' },
          { date: '2026-06-01', name: 'Feast' },
          { date: '2026-06-01', name: 'Other Feast' },
          ...(r.subdivision === 'N' ? [{ date: '2026-06-02', name: 'North Day' }] : []),
          { date: '2026-12-31', name: 'Long Feast' },
        ]
      : year === 2027
        ? [{ date: '2027-01-01', name: 'New Year' }]
        : [],
};

const code = (f: () => unknown): string => {
  try {
    f();
  } catch (e) {
    if (e instanceof CalendarError) return `${e.code} ${e.field}`;
    throw e;
  }
  return 'no error';
};

describe('business calendar (injected source)', () => {
  const xl = businessCalendar({ region: 'XL' }, fake);

  it('weekends and holidays are closed, with the reason', () => {
    expect(xl.isBusinessDay('2026-01-02')).toBe(true); // Fri
    expect(xl.isBusinessDay('2026-01-03')).toBe(false); // Sat
    expect(xl.closure('2026-01-04')).toEqual({ kind: 'WEEKEND', note: 'Sun 4 Jan 2026, weekend' });
    expect(xl.closure('2026-01-01')).toEqual({
      kind: 'HOLIDAY',
      name: 'New Year',
      note: 'Thu 1 Jan 2026, New Year, XL',
    });
    // two names on one day are both said; a holiday on a weekend is named, not "weekend"
    expect(xl.closure('2026-06-01')?.name).toBe('Feast / Other Feast');
    expect(xl.closure('2026-12-31')?.kind).toBe('HOLIDAY');
    expect(xl.dataVersion).toBe('fake@1');
  });

  it('a subdivision adds its own holidays', () => {
    const north = businessCalendar({ region: 'XL-N' }, fake);
    expect(north.isBusinessDay('2026-06-02')).toBe(false);
    expect(xl.isBusinessDay('2026-06-02')).toBe(true);
  });

  it('open dates win over weekends and holidays; closed dates close', () => {
    const cal = businessCalendar(
      { region: 'XL', open: ['2026-01-01', '2026-01-03'], closed: ['2026-01-02'] },
      fake,
    );
    expect(cal.isBusinessDay('2026-01-01')).toBe(true);
    expect(cal.isBusinessDay('2026-01-03')).toBe(true);
    expect(cal.closure('2026-01-02')).toEqual({ kind: 'CLOSED', note: 'Fri 2 Jan 2026, closed (options)' });
  });

  it('weekend days can be set (Fri+Sat)', () => {
    const cal = businessCalendar({ region: 'XL', weekend: ['SA', 'FR'] }, fake);
    expect(cal.weekend).toEqual(['FR', 'SA']);
    expect(cal.isBusinessDay('2026-01-02')).toBe(false); // Fri
    expect(cal.isBusinessDay('2026-01-04')).toBe(true); // Sun
  });

  it('nthBusinessDay counts from the start or the end of a month or quarter', () => {
    expect(xl.nthBusinessDay(2026, { month: 1 }, 1)).toBe('2026-01-02');
    expect(xl.nthBusinessDay(2026, { month: 1 }, 2)).toBe('2026-01-05');
    expect(xl.nthBusinessDay(2026, { month: 1 }, -1)).toBe('2026-01-30'); // Sat 31
    expect(xl.nthBusinessDay(2026, { month: 12 }, -1)).toBe('2026-12-30'); // 31 is a holiday
    expect(xl.nthBusinessDay(2026, { quarter: 2 }, 1)).toBe('2026-04-01');
    expect(xl.nthBusinessDay(2026, { quarter: 2 }, -1)).toBe('2026-06-30');
    // January 2026 has 21 business days (22 weekdays, one holiday)
    expect(xl.nthBusinessDay(2026, { month: 1 }, 21)).toBe('2026-01-30');
    expect(xl.nthBusinessDay(2026, { month: 1 }, 22)).toBeNull();
    expect(xl.nthBusinessDay(2026, { month: 1 }, -21)).toBe('2026-01-02');
    expect(code(() => xl.nthBusinessDay(2026, { month: 1 }, 0))).toBe('INVALID_OPTION n');
    expect(code(() => xl.nthBusinessDay(2026, { month: 13 }, 1))).toBe('INVALID_OPTION month');
    expect(code(() => xl.nthBusinessDay(2026, { quarter: 5 }, 1))).toBe('INVALID_OPTION quarter');
  });

  it('roll: FORWARD, BACKWARD, SKIP, each saying why', () => {
    expect(xl.roll('2026-01-02', 'FORWARD')).toEqual({ date: '2026-01-02', rolled: false });
    expect(xl.roll('2026-12-31', 'FORWARD')).toMatchObject({
      date: '2027-01-04', // over New Year (a holiday of the next year's data) and a weekend
      rolled: true,
      note: 'rolled from Thu 31 Dec 2026, Long Feast, XL to Mon 4 Jan 2027',
    });
    expect(xl.roll('2026-01-03', 'BACKWARD')).toMatchObject({
      date: '2026-01-02',
      note: 'rolled from Sat 3 Jan 2026, weekend to Fri 2 Jan 2026',
    });
    expect(xl.roll('2026-01-01', 'SKIP')).toEqual({
      date: null,
      rolled: true,
      closure: { kind: 'HOLIDAY', name: 'New Year', note: 'Thu 1 Jan 2026, New Year, XL' },
      note: 'skipped Thu 1 Jan 2026, New Year, XL',
    });
  });

  it('a roll through more than a year of closed days is NEVER_FIRES, not a hang', () => {
    const cal = businessCalendar({ region: 'XL', weekend: ['MO', 'TU', 'WE', 'TH', 'FR', 'SA'] }, fake);
    const sundays = Array.from(
      { length: 60 },
      (_, i) => DateTime.fromISO('2026-01-04').plus({ weeks: i }).toISODate()!,
    );
    const shut = businessCalendar(
      { region: 'XL', weekend: ['MO', 'TU', 'WE', 'TH', 'FR', 'SA'], closed: sundays },
      fake,
    );
    expect(cal.roll('2026-01-05', 'FORWARD').date).toBe('2026-01-11');
    expect(code(() => shut.roll('2026-01-05', 'FORWARD'))).toBe('NEVER_FIRES roll');
  });

  it('refuses a bad spec, naming the field', () => {
    expect(code(() => businessCalendar({ region: 'lv' }, fake))).toBe(
      'INVALID_OPTION options.business_days.region',
    );
    expect(code(() => businessCalendar({ region: 'ZZ' }, fake))).toBe(
      'INVALID_OPTION options.business_days.region',
    );
    expect(code(() => businessCalendar({ region: 'XL-S' }, fake))).toBe(
      'INVALID_OPTION options.business_days.region',
    );
    expect(code(() => businessCalendar({ region: 'XL', closed: ['2026-02-30'] }, fake))).toBe(
      'INVALID_DATETIME options.business_days.closed.0',
    );
    expect(
      code(() => businessCalendar({ region: 'XL', closed: ['2026-02-03'], open: ['2026-02-03'] }, fake)),
    ).toBe('INVALID_OPTION options.business_days.open.0');
    const all: Weekday[] = ['MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU'];
    expect(code(() => businessCalendar({ region: 'XL', weekend: all }, fake))).toBe(
      'INVALID_OPTION options.business_days.weekend',
    );
    expect(code(() => xl.isBusinessDay('2026-1-1'))).toBe('INVALID_DATETIME date');
  });

  it('is immutable', () => {
    expect(Object.isFrozen(xl)).toBe(true);
    expect(Object.isFrozen(xl.holidays(2026))).toBe(true);
    expect(Object.isFrozen(xl.weekend)).toBe(true);
  });

  it('humanDate', () => {
    expect(humanDate('2029-01-01')).toBe('Mon 1 Jan 2029');
  });
});

describe('date-holidays source', () => {
  const source = dateHolidaysSource();

  it('records the pinned package version (a package upgrade must change the constant)', () => {
    const pkg = JSON.parse(readFileSync('node_modules/date-holidays/package.json', 'utf8')) as {
      version: string;
    };
    const ours = JSON.parse(readFileSync('package.json', 'utf8')) as { dependencies: Record<string, string> };
    expect(DATE_HOLIDAYS_VERSION).toBe(pkg.version);
    expect(ours.dependencies['date-holidays']).toBe(DATE_HOLIDAYS_VERSION); // exact pin, no range
    expect(HOLIDAY_DATA_VERSION).toBe(`date-holidays@${pkg.version}`);
  });

  it('the issue examples, in Latvia', () => {
    const lv = businessCalendar({ region: 'LV' }, source);
    // the first business day of January 2027: Fri 1 Jan is New Year's Day
    expect(lv.nthBusinessDay(2027, { month: 1 }, 1)).toBe('2027-01-04');
    // the last working day before the 25th of December 2026: the 24th is Christmas Eve in LV
    expect(lv.roll('2026-12-24', 'BACKWARD')).toMatchObject({
      date: '2026-12-23',
      note: 'rolled from Thu 24 Dec 2026, Christmas Eve, LV to Wed 23 Dec 2026',
    });
    expect(lv.roll('2029-01-01', 'FORWARD').note).toBe(
      "rolled from Mon 1 Jan 2029, New Year's Day, LV to Tue 2 Jan 2029",
    );
    // Republic Day 2029 is a Sunday: the data's substitute Monday is closed too
    expect(lv.closure('2029-11-19')?.name).toBe('Republic Day (substitute day)');
  });

  it('subdivisions, substitute days and holidays of several days', () => {
    expect(businessCalendar({ region: 'DE-BY' }, source).isBusinessDay('2026-01-06')).toBe(false);
    expect(businessCalendar({ region: 'DE' }, source).isBusinessDay('2026-01-06')).toBe(true);
    expect(businessCalendar({ region: 'US' }, source).closure('2026-07-03')?.name).toBe(
      'Independence Day (substitute day)',
    );
    const ae = businessCalendar({ region: 'AE' }, source);
    expect(['2026-03-20', '2026-03-21', '2026-03-22'].map((d) => ae.closure(d)?.kind)).toEqual([
      'HOLIDAY',
      'HOLIDAY',
      'HOLIDAY',
    ]);
    expect(ae.isBusinessDay('2026-03-23')).toBe(true);
  });

  it('is deterministic: two sources, same answers', () => {
    const a = dateHolidaysSource().holidays({ country: 'IL' }, 2027);
    const b = dateHolidaysSource().holidays({ country: 'IL' }, 2027);
    expect(a).toEqual(b);
    expect(a.length).toBeGreaterThan(0);
  });
});

/**
 * Differential: the module's business days against an independent computation written here from the
 * package's other entry point (isHoliday at local noon in the country's zone, per day) and the weekend rule.
 */
describe('differential vs date-holidays isHoliday, 2026–2029', () => {
  const source = dateHolidaysSource();
  const cases: { region: string; country: string; state?: string; zone: string; weekend?: Weekday[] }[] = [
    { region: 'LV', country: 'LV', zone: 'Europe/Riga' },
    { region: 'DE-BY', country: 'DE', state: 'BY', zone: 'Europe/Berlin' },
    { region: 'US', country: 'US', zone: 'America/New_York' },
    { region: 'AE', country: 'AE', zone: 'Asia/Dubai' }, // Sat+Sun since 2022; Hijri holidays of 1–3 days
    { region: 'IL', country: 'IL', zone: 'Asia/Jerusalem', weekend: ['FR', 'SA'] },
  ];
  const WEEKDAY_CODE: Weekday[] = ['MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU'];

  for (const c of cases) {
    it(c.region, () => {
      const hd = c.state ? new Holidays(c.country, c.state) : new Holidays(c.country);
      const weekend = new Set<Weekday>(c.weekend ?? ['SA', 'SU']);
      const expected: string[] = [];
      for (
        let d = DateTime.fromISO('2026-01-01', { zone: c.zone });
        d.year <= 2029;
        d = d.plus({ days: 1 })
      ) {
        const noon = d.set({ hour: 12 }).toJSDate();
        const hit = hd.isHoliday(noon);
        const holiday = hit !== false && hit.some((h) => h.type === 'public');
        if (!holiday && !weekend.has(WEEKDAY_CODE[d.weekday - 1]!)) expected.push(d.toISODate()!);
      }
      const cal: BusinessCalendar = businessCalendar(
        c.weekend ? { region: c.region, weekend: c.weekend } : { region: c.region },
        source,
      );
      const actual = cal.businessDaysBetween('2026-01-01', '2029-12-31');
      expect(actual).toEqual(expected);
      // not vacuous: every year loses working days to holidays (4 × 52 weeks of 5 days is 1040)
      expect(expected.length).toBeGreaterThan(950);
      expect(expected.length).toBeLessThan(1040);
      // LV 2026 by hand: 261 weekdays less 11 holidays on weekdays
      if (c.region === 'LV') expect(expected.filter((d) => d.startsWith('2026')).length).toBe(250);
      // and nthBusinessDay agrees with the list, every month, from both ends
      for (let y = 2026; y <= 2029; y++)
        for (let m = 1; m <= 12; m++) {
          const inMonth = expected.filter((d) => d.startsWith(`${y}-${String(m).padStart(2, '0')}`));
          expect(cal.nthBusinessDay(y, { month: m }, 1)).toBe(inMonth[0]);
          expect(cal.nthBusinessDay(y, { month: m }, -1)).toBe(inMonth.at(-1));
          expect(cal.nthBusinessDay(y, { month: m }, 3)).toBe(inMonth[2]);
        }
    });
  }
});

describe('the contract (src/calendar/timing.ts, re-exported by src/model/contracts.ts)', () => {
  it('parses the issue examples', () => {
    expect(
      BusinessDayTiming.parse({
        kind: 'BUSINESS_DAY',
        period: 'MONTH',
        n: 1,
        time: '09:00',
        timezone: 'Europe/Riga',
      }),
    ).toMatchObject({ n: 1 });
    expect(BusinessDaysOptions.parse({ region: 'LV' })).toEqual({ region: 'LV' });
    expect(
      BusinessDaysOptions.parse({
        region: 'IL',
        weekend: ['FR', 'SA'],
        closed: ['2026-12-28'],
        roll: 'BACKWARD',
      }),
    ).toMatchObject({ roll: 'BACKWARD' });
  });

  it('refuses n = 0, a lower-case region, unknown fields', () => {
    const base = { kind: 'BUSINESS_DAY', period: 'QUARTER', time: '09:00', timezone: 'Europe/Riga' };
    expect(BusinessDayTiming.safeParse({ ...base, n: 0 }).success).toBe(false);
    expect(BusinessDayTiming.safeParse({ ...base, n: -1 }).success).toBe(true);
    expect(BusinessDaysOptions.safeParse({ region: 'de-by' }).success).toBe(false);
    expect(BusinessDaysOptions.safeParse({ region: 'LV', roll: 'NEAREST' }).success).toBe(false);
    expect(BusinessDaysOptions.safeParse({ region: 'LV', extra: 1 }).success).toBe(false);
  });

  it('is part of a schedule: business_days and BUSINESS_DAY parse, an existing definition parses unchanged', () => {
    const spec = {
      target: { type: 'JOB', job_type: 'payroll' },
      timing: { kind: 'CRON', expression: '0 9 1 * *', timezone: 'Europe/Riga' },
    };
    expect(ScheduleSpec.parse(spec)).not.toHaveProperty('business_days');
    expect(ScheduleSpec.parse({ ...spec, business_days: { region: 'LV' } }).business_days).toEqual({
      region: 'LV',
    });
    const timing = { kind: 'BUSINESS_DAY', period: 'MONTH', n: 1, time: '09:00', timezone: 'Europe/Riga' };
    expect(ScheduleSpec.parse({ ...spec, timing, business_days: { region: 'LV' } }).timing).toEqual(timing);
  });
});

describe('businessDaySource (the BUSINESS_DAY timing, for the engine)', () => {
  const lv = businessCalendar({ region: 'LV' }, dateHolidaysSource());
  const take = (it: Iterator<{ wall: number; removed?: true }>, k: number) =>
    Array.from({ length: k }, () => {
      const r = it.next();
      return r.done
        ? 'done'
        : `${new Date(r.value.wall).toISOString().slice(0, 16)}${r.value.removed ? ' removed' : ''}`;
    });
  const wall = (iso: string) => Date.parse(`${iso}Z`);

  it('the first business day of every month at 09:00, in wall order from `from`', () => {
    const src = businessDaySource(
      lv,
      { period: 'MONTH', n: 1, timeOfDay: 9 * 3_600_000 },
      wall('2026-09-01T10:00'),
    );
    expect(take(src.iterate(wall('2026-12-01T09:00')), 3)).toEqual([
      '2026-12-01T09:00',
      '2027-01-04T09:00', // Fri 1 Jan is New Year's Day, then a weekend
      '2027-02-01T09:00',
    ]);
    // a slot of the period holding `from` but before it is not yielded
    expect(take(src.iterate(wall('2026-12-01T09:01')), 1)).toEqual(['2027-01-04T09:00']);
    // from -Infinity: from `begin`'s period
    expect(take(src.iterate(-Infinity), 1)).toEqual(['2026-09-01T09:00']);
  });

  it('quarters from the end, and only some months', () => {
    const q = businessDaySource(lv, { period: 'QUARTER', n: -1, timeOfDay: 0 }, wall('2026-05-10T00:00'));
    expect(take(q.iterate(-Infinity), 3)).toEqual([
      '2026-06-30T00:00',
      '2026-09-30T00:00',
      '2026-12-30T00:00',
    ]);
    const m = businessDaySource(
      lv,
      { period: 'MONTH', n: 2, months: [1, 7], timeOfDay: 0 },
      wall('2026-01-01T00:00'),
    );
    expect(take(m.iterate(-Infinity), 3)).toEqual([
      '2026-01-05T00:00',
      '2026-07-02T00:00',
      '2027-01-05T00:00',
    ]);
  });

  it('a period without an n-th business day is a removed item (counted by the engine), not a hang', () => {
    const src = businessDaySource(lv, { period: 'MONTH', n: 23, timeOfDay: 0 }, wall('2026-01-01T00:00'));
    // no month of 2026 has 23 business days in LV (January 21, March 22)
    expect(take(src.iterate(-Infinity), 3)).toEqual([
      '2026-01-31T00:00 removed',
      '2026-02-28T00:00 removed',
      '2026-03-31T00:00 removed',
    ]);
  });
});
