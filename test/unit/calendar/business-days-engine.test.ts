/**
 * Business days through the engine (issue 43): BUSINESS_DAY timings and `business_days` on other kinds, as
 * the slot activity and the API compute them (src/model/slots.ts with the pinned holiday data). Expected
 * business days come from an independent computation over the data package's isHoliday, not from the module.
 */
import { describe, expect, it } from 'vitest';
import { CalendarError } from '../../../src/calendar/errors.js';
import { HOLIDAY_DATA_VERSION } from '../../../src/calendar/holiday-data.js';
import { computeSlots, type SlotSpec } from '../../../src/model/slots.js';
import { businessDaysByIsHoliday, localInstant } from '../../helpers/business-days.js';

const AFTER = '2026-12-01T00:00:00Z';

function slotsOf(spec: SlotSpec, count = 40, after = AFTER) {
  return computeSlots({ scheduleId: 'bd', spec, createdAt: after, after, count });
}
const local = (spec: SlotSpec, count = 40, after = AFTER) =>
  slotsOf(spec, count, after).slots.map((s) => s.scheduledFor);

const BUSINESS = businessDaysByIsHoliday('LV', 'Europe/Riga', '2026-12-01', '2030-12-31');
const riga = (date: string, time: string) => localInstant('Europe/Riga', date, time);

function thrown(f: () => unknown): CalendarError {
  try {
    f();
  } catch (e) {
    if (e instanceof CalendarError) return e;
    throw e;
  }
  throw new Error('expected a CalendarError');
}

describe('BUSINESS_DAY timing', () => {
  const timing = (n: number, period: 'MONTH' | 'QUARTER' = 'MONTH', months?: number[]) => ({
    kind: 'BUSINESS_DAY' as const,
    period,
    n,
    time: '09:00',
    timezone: 'Europe/Riga',
    ...(months ? { months } : {}),
  });

  it('the first, third and last business day of each month at 09:00 Riga, 2026-12 to 2030', () => {
    const months = [...new Set(BUSINESS.map((d) => d.slice(0, 7)))];
    expect(months).toHaveLength(49);
    for (const [n, pick] of [
      [1, (ds: string[]) => ds[0]],
      [3, (ds: string[]) => ds[2]],
      [-1, (ds: string[]) => ds.at(-1)],
    ] as const) {
      const expected = months.map((m) => riga(pick(BUSINESS.filter((d) => d.startsWith(m)))!, '09:00'));
      expect(local({ timing: timing(n), business_days: { region: 'LV' } }, 49)).toEqual(expected);
    }
  });

  it('the second to last business day of each quarter, and the first of January and July only', () => {
    const quarters = ['2027-01', '2027-04', '2027-07', '2027-10'].map((start) => {
      const m0 = Number(start.slice(5));
      const months = [m0, m0 + 1, m0 + 2].map((m) => `2027-${String(m).padStart(2, '0')}`);
      return BUSINESS.filter((d) => months.includes(d.slice(0, 7))).at(-2)!;
    });
    expect(
      local({ timing: timing(-2, 'QUARTER'), business_days: { region: 'LV' } }, 4, '2027-01-01T00:00:00Z'),
    ).toEqual(quarters.map((d) => riga(d, '09:00')));
    const janJul = local({ timing: timing(1, 'MONTH', [1, 7]), business_days: { region: 'LV' } }, 4);
    expect(janJul).toEqual(
      ['2027-01', '2027-07', '2028-01', '2028-07'].map((m) =>
        riga(BUSINESS.find((d) => d.startsWith(m))!, '09:00'),
      ),
    );
  });

  it('records the holiday data release with every slot and batch; a definition without business days records none', () => {
    const batch = slotsOf({ timing: timing(1), business_days: { region: 'LV' } }, 3);
    expect(batch.holidays).toBe(HOLIDAY_DATA_VERSION);
    expect(batch.slots.map((s) => s.holidays)).toEqual([
      HOLIDAY_DATA_VERSION,
      HOLIDAY_DATA_VERSION,
      HOLIDAY_DATA_VERSION,
    ]);
    const plain = slotsOf({ timing: { kind: 'CRON', expression: '0 9 * * *', timezone: 'Europe/Riga' } }, 3);
    expect(plain.holidays).toBeUndefined();
    expect(plain.slots.every((s) => !('holidays' in s))).toBe(true);
  });

  it('extra closed and open dates move the first business day', () => {
    // 2027-02-01 is a Monday: closed, the first is Tuesday; Saturday 2027-05-01 (a holiday) opened: it is the first
    const spec = {
      timing: timing(1),
      business_days: { region: 'LV', closed: ['2027-02-01'], open: ['2027-05-01'] },
    };
    const runs = local(spec, 6, '2027-01-15T00:00:00Z');
    expect(runs).toContain(riga('2027-02-02', '09:00'));
    expect(runs).toContain(riga('2027-05-01', '09:00'));
  });

  it('refusals name the field: no business_days, an unknown region, a roll, months with QUARTER, an impossible n, a bad time', () => {
    const cases: Array<[SlotSpec, string, string]> = [
      [{ timing: timing(1) }, 'options.business_days', 'INVALID_OPTION'],
      [
        { timing: timing(1), business_days: { region: 'XX' } },
        'options.business_days.region',
        'INVALID_OPTION',
      ],
      [
        { timing: timing(1), business_days: { region: 'LV', roll: 'FORWARD' } },
        'options.business_days.roll',
        'INVALID_OPTION',
      ],
      [
        { timing: timing(1, 'QUARTER', [1]), business_days: { region: 'LV' } },
        'timing.months',
        'INVALID_FIELD',
      ],
      [{ timing: timing(24), business_days: { region: 'LV' } }, 'timing.n', 'NEVER_FIRES'],
      [
        { timing: { ...timing(1), time: '24:00' }, business_days: { region: 'LV' } },
        'timing.time',
        'INVALID_DATETIME',
      ],
    ];
    for (const [spec, field, code] of cases) {
      const err = thrown(() => slotsOf(spec, 1));
      expect({ field: err.field, code: err.code }).toEqual({ field, code });
    }
  });
});

describe('business_days on other kinds', () => {
  const daily = { kind: 'CRON' as const, expression: '0 9 * * *', timezone: 'Europe/Riga' };

  it('SKIP (the default): a daily 09:00 fires on business days only', () => {
    const runs = local({ timing: daily, business_days: { region: 'LV' } }, 60);
    expect(runs).toEqual(BUSINESS.slice(0, 60).map((d) => riga(d, '09:00')));
  });

  it('FORWARD: the 1st of each month, or the next business day, with the reason on the slot', () => {
    const spec = {
      timing: {
        kind: 'RECURRENCE' as const,
        rule: 'FREQ=MONTHLY;BYMONTHDAY=1;BYHOUR=9;BYMINUTE=0;BYSECOND=0',
        timezone: 'Europe/Riga',
      },
      business_days: { region: 'LV', roll: 'FORWARD' as const },
    };
    const batch = slotsOf(spec, 12);
    const months = [...new Set(BUSINESS.map((d) => d.slice(0, 7)))].slice(0, 12);
    expect(batch.slots.map((s) => s.scheduledFor)).toEqual(
      months.map((m) => riga(BUSINESS.find((d) => d >= `${m}-01`)!, '09:00')),
    );
    const jan = batch.slots.find((s) => s.scheduledFor.startsWith('2027-01'))!;
    expect(jan.adjustments).toEqual([
      { kind: 'BUSINESS_DAY_ROLL', note: "rolled from Fri 1 Jan 2027, New Year's Day, LV to Mon 4 Jan 2027" },
    ]);
  });

  it('BACKWARD: the last business day before the 25th', () => {
    const spec = {
      timing: {
        kind: 'RECURRENCE' as const,
        rule: 'FREQ=MONTHLY;BYMONTHDAY=24;BYHOUR=10;BYMINUTE=0;BYSECOND=0',
        timezone: 'Europe/Riga',
      },
      business_days: { region: 'LV', roll: 'BACKWARD' as const },
    };
    const months = [...new Set(BUSINESS.map((d) => d.slice(0, 7)))].slice(0, 24);
    const expected = months.map((m) => riga(BUSINESS.filter((d) => d <= `${m}-24`).at(-1)!, '10:00'));
    expect(local(spec, 24)).toEqual(expected);
  });

  it('a roll onto a day with its own slot at that time is one slot', () => {
    // every day at 09:00 rolled FORWARD: the weekend's slots are Monday's own, once
    const dailyForward = local({ timing: daily, business_days: { region: 'LV', roll: 'FORWARD' } }, 60);
    expect(dailyForward).toEqual(BUSINESS.slice(0, 60).map((d) => riga(d, '09:00')));
  });

  // Blocks of RRULEs rolled together: the first runs (the slots in time order) are `expected`.
  it.each([
    {
      name: "FORWARD: Saturday 17:00 lands on Monday after Monday's own 09:00, and keeps order",
      rules: [
        'RRULE:FREQ=WEEKLY;BYDAY=SA;BYHOUR=17;BYMINUTE=0;BYSECOND=0',
        'RRULE:FREQ=WEEKLY;BYDAY=MO;BYHOUR=9;BYMINUTE=0;BYSECOND=0',
      ],
      roll: 'FORWARD' as const,
      count: 6,
      after: '2027-03-01T00:00:00Z',
      expected: [
        riga('2027-03-01', '09:00'),
        riga('2027-03-08', '09:00'),
        riga('2027-03-08', '17:00'),
        riga('2027-03-15', '09:00'),
      ],
    },
    {
      name: 'BACKWARD from two closed days: Sunday 08:00 and Saturday 09:00 both land on Friday, in order',
      rules: [
        'RRULE:FREQ=WEEKLY;BYDAY=SA;BYHOUR=9;BYMINUTE=0;BYSECOND=0',
        'RRULE:FREQ=WEEKLY;BYDAY=SU;BYHOUR=8;BYMINUTE=0;BYSECOND=0',
      ],
      roll: 'BACKWARD' as const,
      count: 4,
      after: '2027-03-01T00:00:00Z',
      expected: [
        riga('2027-03-05', '08:00'),
        riga('2027-03-05', '09:00'),
        riga('2027-03-12', '08:00'),
        riga('2027-03-12', '09:00'),
      ],
    },
    {
      // LV 2026: Thu 24 (Christmas Eve), Fri 25, Sat 26 December are closed; Wed 23 is the business day before
      name: 'BACKWARD across a run of holidays: three closed days land on the Wednesday before, in time order',
      rules: ['BYMONTHDAY=24;BYHOUR=9', 'BYMONTHDAY=25;BYHOUR=10', 'BYMONTHDAY=26;BYHOUR=7'].map(
        (r) => `RRULE:FREQ=YEARLY;BYMONTH=12;${r};BYMINUTE=0;BYSECOND=0`,
      ),
      roll: 'BACKWARD' as const,
      count: 3,
      after: AFTER,
      expected: [riga('2026-12-23', '07:00'), riga('2026-12-23', '09:00'), riga('2026-12-23', '10:00')],
    },
  ])('$name', ({ rules, roll, count, after, expected }) => {
    const runs = local(
      {
        timing: { kind: 'RECURRENCE', rule: rules.join('\n'), timezone: 'Europe/Riga' },
        business_days: { region: 'LV', roll },
      },
      count,
      after,
    );
    expect(runs.slice(0, expected.length)).toEqual(expected);
    expect([...runs].sort()).toEqual(runs);
  });

  it("FORWARD asked from inside a closed run: the slot rolled out of it is not lost; one from before creation is not the schedule's", () => {
    const spec = {
      timing: { kind: 'CRON' as const, expression: '0 9 * * 6', timezone: 'Europe/Riga' },
      business_days: { region: 'LV', roll: 'FORWARD' as const },
    };
    // made on 1 December; asked on Sunday 6 December, noon: Saturday's 09:00 has passed, but rolled it is Monday's
    const resumed = computeSlots({
      scheduleId: 'bd',
      spec,
      createdAt: '2026-12-01T00:00:00Z',
      after: '2026-12-06T10:00:00Z',
      count: 2,
    });
    expect(resumed.slots.map((s) => s.scheduledFor)).toEqual([
      riga('2026-12-07', '09:00'),
      riga('2026-12-14', '09:00'),
    ]);
    // made on that Sunday: the Saturday before it never was its run
    expect(local(spec, 1, '2026-12-06T10:00:00Z')).toEqual([riga('2026-12-14', '09:00')]);
  });

  it('the schedule resumes the same sequence from any instant: one slot at a time equals one batch (FORWARD, BACKWARD, SKIP)', () => {
    for (const roll of ['FORWARD', 'BACKWARD', 'SKIP'] as const) {
      const spec = {
        timing: { kind: 'CRON' as const, expression: '30 8,17 * * *', timezone: 'Europe/Riga' },
        business_days: { region: 'LV', roll },
      };
      const whole = local(spec, 80);
      const stepwise: string[] = [];
      let after = AFTER;
      for (let i = 0; i < 80; i++) {
        const [next] = local(spec, 1, after);
        stepwise.push(next!);
        after = next!;
      }
      expect(stepwise).toEqual(whole);
      expect(new Set(whole).size).toBe(whole.length);
    }
  });

  it('a timing that only names closed days never fires under SKIP; a COUNT rule refuses FORWARD', () => {
    const saturdays = { kind: 'CRON' as const, expression: '0 9 * * 6', timezone: 'Europe/Riga' };
    const never = thrown(() => slotsOf({ timing: saturdays, business_days: { region: 'LV' } }, 1));
    expect({ field: never.field, code: never.code }).toEqual({
      field: 'options.business_days',
      code: 'NEVER_FIRES',
    });
    // moved to Monday, they do fire
    expect(local({ timing: saturdays, business_days: { region: 'LV', roll: 'FORWARD' } }, 1)).toEqual([
      riga('2026-12-07', '09:00'),
    ]);
    const counted = thrown(() =>
      slotsOf(
        {
          timing: {
            kind: 'RECURRENCE',
            rule: 'FREQ=DAILY;COUNT=5;BYHOUR=9;BYMINUTE=0',
            timezone: 'Europe/Riga',
          },
          business_days: { region: 'LV', roll: 'FORWARD' },
        },
        1,
      ),
    );
    expect(counted.field).toBe('options.business_days.roll');
  });
});
