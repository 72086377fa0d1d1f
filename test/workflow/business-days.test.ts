/**
 * Business days end to end (issue 43) on the time-skipping server: schedules created through the SDK fire on
 * the business day an independent computation names (the data package's isHoliday, test/helpers), describe
 * explains a roll, occurrences record the holiday data release, and a newer release (a holiday declared
 * after the schedule was made) reaches a running schedule: at once when asked, within the horizon when not.
 * The newer release is installed through the same seam a deploy changes (src/model/slots.ts
 * `useHolidaySource`; the worker runs in this process), as tz-rules-change.test.ts installs zone rules.
 */
import { DateTime } from 'luxon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { amendedHolidaySource, humanDate } from '../../src/calendar/business-days.js';
import { dateHolidaysSource, HOLIDAY_DATA_VERSION } from '../../src/calendar/holiday-data.js';
import { useHolidaySource } from '../../src/model/slots.js';
import { businessDaysByIsHoliday, localInstant } from '../helpers/business-days.js';
import { SchedulerHarness } from '../helpers/scheduler-harness.js';

const MINUTE = 60_000;
const ZONE = 'Europe/Riga';
const job = { type: 'JOB' as const, job_type: 'recordedJob' };
const NEWER = 'date-holidays@99.0.0-test';

describe('business days end to end (time-skipping server)', () => {
  let h: SchedulerHarness;
  beforeAll(async () => {
    h = await SchedulerHarness.start();
  });
  afterAll(async () => {
    useHolidaySource();
    await h?.teardown();
  });
  const runsOf = (id: string) => h.runs.filter((r) => r.occurrenceId.includes(`/${id}/`));

  it('create → fire on the right business day → describe explains the roll; a declared holiday reaches running schedules', async () => {
    const sdk = h.sdk();
    const start = await h.now();
    const monthStart = DateTime.fromMillis(start, { zone: ZONE }).startOf('month').toISODate()!;
    const until = DateTime.fromMillis(start, { zone: ZONE }).plus({ months: 5 }).toISODate()!;
    const business = businessDaysByIsHoliday('LV', ZONE, monthStart, until);
    const at = (date: string, time: string) => localInstant(ZONE, date, time);
    const firstOfEachMonth = [...new Set(business.map((d) => d.slice(0, 7)))].map(
      (m) => business.find((d) => d.startsWith(m))!,
    );
    const payrollDays = firstOfEachMonth.filter((d) => Date.parse(at(d, '09:00')) > start);

    const payroll = {
      target: job,
      timing: {
        kind: 'BUSINESS_DAY' as const,
        period: 'MONTH' as const,
        n: 1,
        time: '09:00',
        timezone: ZONE,
      },
      business_days: { region: 'LV' },
    };
    const created = await sdk.create({ schedule_id: 'payroll', ...payroll });
    expect(Date.parse(created.schedule.next_run_at!)).toBe(Date.parse(at(payrollDays[0]!, '09:00')));
    await sdk.create({ schedule_id: 'payroll-asked', ...payroll });
    // The same calendar with instants in UTC, whose rules never change: its holidays still can.
    await sdk.create({
      schedule_id: 'payroll-utc',
      ...payroll,
      timing: { ...payroll.timing, time: '12:00', timezone: 'UTC' },
    });

    // Saturdays at 10:00, rolled to the next business day: every run is moved, and says why.
    let saturday = DateTime.fromMillis(start, { zone: ZONE }).startOf('day').set({ hour: 10 });
    while (saturday.weekday !== 6 || saturday.toMillis() <= start) saturday = saturday.plus({ days: 1 });
    const nextSaturday = saturday.toISODate()!;
    const rolledTo = business.find((d) => d > nextSaturday)!;
    await sdk.create({
      schedule_id: 'saturday-report',
      target: job,
      timing: { kind: 'CRON', expression: '0 10 * * 6', timezone: ZONE },
      business_days: { region: 'LV', roll: 'FORWARD' },
    });
    const described = await sdk.describe('saturday-report');
    const next = described.next_runs[0]!;
    expect(next.scheduled_for).toBe(at(rolledTo, '10:00'));
    expect(next.adjustments).toHaveLength(1);
    expect(next.adjustments[0]!.kind).toBe('BUSINESS_DAY_ROLL');
    expect(next.adjustments[0]!.note).toMatch(
      new RegExp(`^rolled from ${humanDate(nextSaturday)}, .+ to ${humanDate(rolledTo)}$`),
    );
    expect(described.holidays).toMatchObject({ region: 'LV', computed_with: [HOLIDAY_DATA_VERSION] });
    expect(described.holidays?.trusted_until).toEqual(expect.any(String));

    // It fires there, and the occurrence says why and with which data.
    await h.env.sleep(Date.parse(at(rolledTo, '10:00')) - (await h.now()) + MINUTE);
    expect(runsOf('saturday-report')).toHaveLength(1);
    const [fired] = (await sdk.describe('saturday-report')).recent_occurrences;
    expect(fired).toMatchObject({
      scheduled_for: at(rolledTo, '10:00'),
      holiday_data_version: HOLIDAY_DATA_VERSION,
    });
    expect(fired!.reason).toContain(`rolled from ${humanDate(nextSaturday)}`);

    // The first business day of the month fires on it.
    await h.env.sleep(Date.parse(at(payrollDays[0]!, '09:00')) - (await h.now()) + MINUTE);
    expect(runsOf('payroll')).toHaveLength(1);
    expect((await sdk.describe('payroll')).recent_occurrences[0]).toMatchObject({
      scheduled_for: at(payrollDays[0]!, '09:00'),
      holiday_data_version: HOLIDAY_DATA_VERSION,
    });

    // A holiday is declared on next month's first business day, and workers get the data release carrying it.
    const declared = payrollDays[1]!;
    const moved = business.find((d) => d > declared)!;
    useHolidaySource(
      amendedHolidaySource(dateHolidaysSource(), NEWER, [
        { region: 'LV', date: declared, name: 'Declared Day' },
      ]),
    );
    // Asked: the buffered slot moves at once.
    const asked = await sdk.recomputeSchedule('payroll-asked', { reason: 'holiday data 99.0.0' });
    expect(asked.recomputed).toBe(true);
    expect(asked.record?.moved).toBeGreaterThanOrEqual(1);
    const askedView = await sdk.describe('payroll-asked');
    expect(askedView.next_runs[0]!.scheduled_for).toBe(at(moved, '09:00'));
    expect(askedView.holidays?.computed_with).toEqual([NEWER]);
    // Not asked: the old slot is trusted only for the horizon, and computed again before it fires.
    expect((await sdk.describe('payroll')).next_runs[0]!.scheduled_for).toBe(at(declared, '09:00'));
    await h.env.sleep(Date.parse(at(moved, '09:00')) - (await h.now()) + MINUTE);
    expect(runsOf('payroll')).toHaveLength(2);
    const second = (await sdk.describe('payroll')).recent_occurrences.at(-1)!;
    expect(second).toMatchObject({ scheduled_for: at(moved, '09:00'), holiday_data_version: NEWER });
    expect(runsOf('payroll-asked')).toHaveLength(2);
    await h.env.sleep(Date.parse(`${moved}T12:00:00Z`) - (await h.now()) + MINUTE);
    expect(
      (await sdk.describe('payroll-utc')).recent_occurrences.map((o) => Date.parse(o.scheduled_for)),
    ).toEqual([payrollDays[0], moved].map((d) => Date.parse(`${d}T12:00:00Z`)));
  });
});
