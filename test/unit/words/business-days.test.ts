/**
 * Issue 43, business days in words: where the region comes from (the words' country, the request's
 * `region`, the zone's one country), the refusal when none says it (REGION_REQUIRED, field `region`), and
 * the explanation of each kind of business-day reading, read back to the same definition.
 */
import { describe, expect, it } from 'vitest';
import { CalendarError } from '../../../src/calendar/errors.js';
import type { CalendarOptions, Timing } from '../../../src/calendar/timing.js';
import { explainSpec, readSchedule } from '../../../src/calendar/words/index.js';
import { holidayRegions, InterpretError, interpret } from '../../../src/model/interpret.js';
import { previewSlots } from '../../../src/model/slots.js';

const NOW = '2026-12-02T10:00:00Z';

const read = (text: string, extra: { timezone?: string; region?: string } = {}) =>
  interpret({ text, now: NOW, count: 4, ...extra }, new Date(NOW));

function problemOf(text: string, extra: { timezone?: string; region?: string } = {}) {
  try {
    read(text, extra);
  } catch (e) {
    if (e instanceof InterpretError) return e.problem;
    throw e;
  }
  throw new Error(`"${text}" was read`);
}

describe('the region of business days', () => {
  it('is the country the words name, in English and in Russian, a name of the holiday data or a code', () => {
    expect(read('every business day at 9:00 in Germany', { timezone: 'Europe/Riga' })).toMatchObject({
      timing: { timezone: 'Europe/Berlin' },
      business_days: { region: 'DE' },
    });
    expect(read('первый рабочий день месяца в 9:00 в Латвии')).toMatchObject({
      timing: { kind: 'BUSINESS_DAY', timezone: 'Europe/Riga' },
      business_days: { region: 'LV' },
    });
    expect(read('every business day at 9:00 in Munich (DE-BY)').business_days).toEqual({ region: 'DE-BY' });
    expect(read('first business day of the month at 9:00 in the United Kingdom').business_days).toEqual({
      region: 'GB',
    });
    // a name of the data is not a typo of another word
    expect(read('every business day at 9:00 in Germany').notes.join(' ')).not.toMatch(/read "Germany" as/);
  });

  it('takes the zone of a country named as a place, the request zone when it is one of the country’s', () => {
    expect(read('the last business day of the month at 17:00 in Latvia').timing).toMatchObject({
      timezone: 'Europe/Riga',
    });
    expect(
      read('first business day of the month at 9:00 in the United States', { timezone: 'America/Chicago' })
        .timing,
    ).toMatchObject({ timezone: 'America/Chicago' });
    const several = problemOf('first business day of the month at 9:00 in the United States', {
      timezone: 'Europe/Riga',
    });
    expect(several).toMatchObject({ code: 'UNREADABLE' });
    expect(several.reason).toMatch(/time zones: name one/);
  });

  it('is the request region when the words name no country, before the zone’s country', () => {
    const r = read('every business day at 9:00', { timezone: 'Europe/Riga', region: 'DE-BY' });
    expect(r.business_days).toEqual({ region: 'DE-BY' });
    expect(r.notes).toContain("public holidays of DE-BY (the request's region)");
    // the words win over the request
    expect(read('every business day at 9:00 (LV)', { timezone: 'UTC', region: 'DE' }).business_days).toEqual({
      region: 'LV',
    });
  });

  it('is the zone’s country when exactly one country uses the zone', () => {
    const r = read('every business day at 9:00', { timezone: 'Europe/Riga' });
    expect(r.business_days).toEqual({ region: 'LV' });
    expect(r.notes).toContain('public holidays of LV (the country of Europe/Riga)');
    expect(holidayRegions().byZone('Europe/Riga')).toBe('LV');
    expect(holidayRegions().byZone('Europe/Zurich')).toBeUndefined(); // CH and LI
    expect(holidayRegions().byZone('UTC')).toBeUndefined();
  });

  it.each([
    ['every business day at 9:00', 'UTC'],
    ['first business day of the month at 9:00', 'Europe/Zurich'],
    ['every weekday except public holidays at 9:00', 'Europe/Zurich'],
    ['по рабочим дням в 9:00', 'UTC'],
  ])('refuses "%s" in %s with REGION_REQUIRED naming the field region, never a guess', (text, timezone) => {
    const problem = problemOf(text, { timezone });
    expect(problem).toMatchObject({ code: 'REGION_REQUIRED', field: 'region' });
    expect(problem.reason).toMatch(/pass region/);
  });

  it('refuses a region the holiday data lacks, in the words or in the request (naming the field)', () => {
    expect(problemOf('every business day at 9:00 (XX)', { timezone: 'Europe/Riga' })).toMatchObject({
      code: 'UNREADABLE',
      unread: [{ word: 'XX', offset: 28 }],
    });
    expect(problemOf('every business day at 9:00 in Atlantis', { timezone: 'Europe/Riga' })).toMatchObject({
      code: 'UNREADABLE',
      unread: [{ word: 'Atlantis', offset: 30 }],
    });
    expect(() => read('every business day at 9:00', { timezone: 'UTC', region: 'XX' })).toThrow(
      CalendarError,
    );
    try {
      read('every business day at 9:00', { timezone: 'UTC', region: 'XX' });
    } catch (e) {
      expect((e as CalendarError).field).toBe('region');
    }
  });

  it.each([
    ['every business day at 9:00 (AT)', 'AT'],
    ['every business day at 9:00 in the US', 'US'],
    ['the first business day of each month at 9:00 in IT', 'IT'],
  ])('never passes over a code in capitals that spells a word ("at", "us", "it"): %s', (text, region) => {
    expect(read(text, { timezone: 'Europe/Riga' }).business_days).toEqual({ region });
  });

  it('keeps the reader pure: with no lookup, a code is taken as written and the zone decides nothing', () => {
    const out = readSchedule('every business day at 9:00 (LV)', { now: NOW, timezone: 'UTC' });
    expect(out).toMatchObject({ kind: 'read', readings: [{ options: { business_days: { region: 'LV' } } }] });
    expect(readSchedule('every business day at 9:00', { now: NOW, timezone: 'Europe/Riga' }).kind).toBe(
      'region-required',
    );
  });
});

describe('weekday is not a business day', () => {
  it('reads "every weekday" as Monday to Friday with no business_days, and "business hours" as hours', () => {
    expect(read('every weekday at 9:00', { timezone: 'Europe/Riga' }).business_days).toBeUndefined();
    expect(read('по будням в 9:00', { timezone: 'Europe/Riga' }).business_days).toBeUndefined();
    expect(
      read('every hour during business hours', { timezone: 'Europe/Riga' }).business_days,
    ).toBeUndefined();
  });
});

const RIGA = 'Europe/Riga';
const SPECS: Array<{ timing: Timing } & CalendarOptions> = [
  {
    timing: { kind: 'BUSINESS_DAY', period: 'MONTH', n: 1, time: '09:00', timezone: RIGA },
    business_days: { region: 'LV' },
  },
  {
    timing: { kind: 'BUSINESS_DAY', period: 'MONTH', n: -1, time: '17:30', timezone: RIGA },
    business_days: { region: 'LV' },
  },
  {
    timing: { kind: 'BUSINESS_DAY', period: 'MONTH', n: -3, time: '08:00:30', timezone: RIGA },
    business_days: { region: 'LV' },
  },
  {
    timing: { kind: 'BUSINESS_DAY', period: 'QUARTER', n: 10, time: '12:00', timezone: 'Europe/Berlin' },
    business_days: { region: 'DE-BY' },
  },
  {
    timing: {
      kind: 'BUSINESS_DAY',
      period: 'MONTH',
      n: 2,
      months: [7, 1],
      time: '06:15',
      timezone: 'America/New_York',
    },
    business_days: { region: 'US', weekend: ['FR', 'SA'] },
  },
  {
    timing: { kind: 'BUSINESS_DAY', period: 'MONTH', n: 1, time: '09:00', timezone: RIGA },
    business_days: { region: 'LV', closed: ['2027-01-04'], open: ['2027-02-06'] },
    max_count: 5,
  },
  {
    timing: {
      kind: 'RECURRENCE',
      rule: 'FREQ=MONTHLY;BYMONTHDAY=24;BYHOUR=10;BYMINUTE=0;BYSECOND=0',
      timezone: RIGA,
    },
    business_days: { region: 'LV', roll: 'BACKWARD' },
  },
  {
    timing: { kind: 'RECURRENCE', rule: 'FREQ=DAILY;BYHOUR=9;BYMINUTE=0;BYSECOND=0', timezone: RIGA },
    business_days: { region: 'LV', weekend: [] },
  },
  { timing: { kind: 'CRON', expression: '0 9 * * 1-5', timezone: RIGA }, business_days: { region: 'LV' } },
  {
    timing: { kind: 'CRON', expression: '*/30 9-17 * * *', timezone: RIGA },
    business_days: { region: 'LV', roll: 'FORWARD' },
  },
  {
    timing: {
      kind: 'RECURRENCE',
      rule: 'FREQ=WEEKLY;BYDAY=MO;BYHOUR=8;BYMINUTE=0;BYSECOND=0',
      timezone: RIGA,
    },
    business_days: { region: 'LV', roll: 'FORWARD', closed: ['2026-12-07'] },
  },
  {
    timing: { kind: 'ONE_TIME', at: '2027-01-01T09:00:00', timezone: RIGA },
    business_days: { region: 'LV', roll: 'FORWARD' },
  },
];

const runsOf = (spec: { timing: Timing } & CalendarOptions) => {
  const { timing, ...options } = spec;
  return previewSlots({ scheduleId: 'bd', timing, options, from: NOW, count: 6 }).slots.map((s) => s.fireAt);
};

describe('business days said back in words', () => {
  it('says the n-th business day and the calendar in words', () => {
    expect(explainSpec(SPECS[0]!)).toBe(
      'on the first business day of every month at 09:00 in Europe/Riga; business days of LV',
    );
    expect(explainSpec(SPECS[2]!)).toBe(
      'on the third to last business day of every month at 08:00:30 in Europe/Riga; business days of LV',
    );
    expect(explainSpec(SPECS[4]!)).toBe(
      'on the second business day of January and July at 06:15 in America/New_York; business days of US, weekend Friday and Saturday',
    );
    expect(explainSpec(SPECS[6]!)).toBe(
      'on the 24th of every month at 10:00 in Europe/Riga; business days of LV: a run on a closed day moves to the previous business day',
    );
  });

  it.each(SPECS.map((s) => [explainSpec(s), s] as const))(
    'reads "%s" back to the same runs',
    (words, spec) => {
      const back = interpret({ text: words, now: NOW, count: 6 }, new Date(NOW));
      expect(back.business_days).toEqual(spec.business_days);
      expect(back.next_runs.map((r) => r.fire_at)).toEqual(runsOf(spec));
    },
  );
});
