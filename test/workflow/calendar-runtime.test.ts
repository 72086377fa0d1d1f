import { DateTime } from 'luxon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SchedulerHarness } from '../helpers/scheduler-harness.js';

const DAY = 24 * 3_600_000;
const job = { type: 'JOB' as const, job_type: 'recordedJob' };

// Expected instants are derived here with luxon from the wall-clock rule, independently of the calendar.
describe('schedules advanced across months, DST and a zone change (time-skipping server)', () => {
  let h: SchedulerHarness;
  beforeAll(async () => {
    h = await SchedulerHarness.start();
  });
  afterAll(async () => {
    await h?.teardown();
  });

  it('weekly 03:30 Europe/Riga across the spring-forward gap, then moved to America/New_York', async () => {
    const sdk = h.sdk();
    // The last Sunday of March in Riga: the spring-forward gap (03:00 → 04:00).
    const lastSundayOfMarchIn = (year: number) => {
      const march31 = DateTime.fromObject({ year, month: 3, day: 31 }, { zone: 'Europe/Riga' });
      return march31.minus({ days: march31.weekday % 7 });
    };
    // The case needs winter-time (+02:00) Sundays before the gap: started from the week before the gap until
    // the autumn change back, it first skips (server time, free) to 1 November.
    let start = await h.now();
    const startYear = DateTime.fromMillis(start, { zone: 'Europe/Riga' }).year;
    const november = DateTime.fromObject({ year: startYear, month: 11, day: 1 }, { zone: 'Europe/Riga' });
    if (
      start >= lastSundayOfMarchIn(startYear).minus({ days: 7 }).toMillis() &&
      start < november.toMillis()
    ) {
      await h.env.sleep(november.toMillis() - start);
      start = await h.now();
    }
    const { schedule } = await sdk.create({
      schedule_id: 'riga-weekly',
      target: job,
      timing: {
        kind: 'RECURRENCE',
        rule: 'DTSTART;TZID=Europe/Riga:20260104T033000\nRRULE:FREQ=WEEKLY;BYDAY=SU',
        timezone: 'Europe/Riga',
      },
    });
    // Run until a week past the next spring-forward in Riga.
    const lastSundayOfMarch = lastSundayOfMarchIn(
      start < lastSundayOfMarchIn(startYear).toMillis() ? startYear : startYear + 1,
    );
    await h.env.sleep(lastSundayOfMarch.toMillis() + 8 * DAY - start);

    const sundays: number[] = [];
    for (
      let d = DateTime.fromMillis(start, { zone: 'Europe/Riga' }).startOf('day');
      d <= lastSundayOfMarch.plus({ days: 7 });
      d = d.plus({ days: 1 })
    ) {
      if (d.weekday !== 7) continue;
      // On the transition day 03:30 does not exist; luxon, like RFC 5545, reads it with the offset
      // before the gap (04:30 EEST).
      const at = d.set({ hour: 3, minute: 30 }).toMillis();
      if (at > Date.parse(schedule.created_at)) sundays.push(at);
    }
    const { recent_occurrences } = await sdk.describe('riga-weekly');
    expect(recent_occurrences.map((o) => Date.parse(o.scheduled_for))).toEqual(sundays);
    const gapDay = recent_occurrences.find((o) =>
      o.scheduled_for.startsWith(lastSundayOfMarch.toISODate()!),
    )!;
    expect(gapDay.scheduled_for).toBe(`${lastSundayOfMarch.toISODate()}T04:30:00+03:00`);
    expect(gapDay.reason).toMatch(/does not exist/);
    expect(recent_occurrences.at(0)!.scheduled_for).toMatch(/T03:30:00\+02:00$/);
    expect(recent_occurrences.at(-1)!.scheduled_for).toMatch(/T03:30:00\+03:00$/);

    // Change the zone: the version goes up and only future runs move.
    const edited = await sdk.update('riga-weekly', {
      expected_version: 1,
      spec: {
        target: job,
        timing: {
          kind: 'RECURRENCE',
          rule: 'DTSTART;TZID=America/New_York:20260104T033000\nRRULE:FREQ=WEEKLY;BYDAY=SU',
          timezone: 'America/New_York',
        },
      },
    });
    expect(edited.version).toBe(2);
    expect(edited.next_runs[0]!.scheduled_for).toMatch(/T03:30:00-04:00$/);
    await h.env.sleep(14 * DAY);
    const after = await sdk.describe('riga-weekly');
    const moved = after.recent_occurrences.filter((o) => o.schedule_version === 2);
    expect(moved).toHaveLength(2);
    for (const o of moved) expect(o.scheduled_for).toMatch(/T03:30:00-04:00$/);
    expect(
      after.recent_occurrences.filter((o) => o.schedule_version === 1).map((o) => o.scheduled_for),
    ).toEqual(recent_occurrences.map((o) => o.scheduled_for));
    await sdk.cancel('riga-weekly');
  });

  it('monthly on the last day of the month at 12:00 Asia/Kolkata, over five months', async () => {
    const sdk = h.sdk();
    const start = await h.now();
    await sdk.create({
      schedule_id: 'month-end',
      target: job,
      timing: {
        kind: 'RECURRENCE',
        rule: 'DTSTART;TZID=Asia/Kolkata:20260131T120000\nRRULE:FREQ=MONTHLY;BYMONTHDAY=-1',
        timezone: 'Asia/Kolkata',
      },
    });
    await h.env.sleep(152 * DAY);
    const expected: string[] = [];
    for (
      let m = DateTime.fromMillis(start, { zone: 'Asia/Kolkata' }).startOf('month');
      ;
      m = m.plus({ months: 1 })
    ) {
      const at = m.endOf('month').set({ hour: 12, minute: 0, second: 0, millisecond: 0 });
      if (at.toMillis() <= start) continue;
      if (at.toMillis() > start + 152 * DAY) break;
      expected.push(at.toISO({ suppressMilliseconds: true })!);
    }
    const { recent_occurrences } = await sdk.describe('month-end');
    expect(recent_occurrences.map((o) => o.scheduled_for)).toEqual(expected);
    expect(expected.length).toBeGreaterThanOrEqual(4);
    await sdk.cancel('month-end');
  });

  it('a bare RRULE without starts_at fires on the minute, not at the second the schedule was created', async () => {
    const sdk = h.sdk();
    await h.env.sleep(37_000); // make "now" fall mid-minute
    const { schedule } = await sdk.create({
      schedule_id: 'bare-rule',
      target: job,
      timing: { kind: 'RECURRENCE', rule: 'FREQ=DAILY;BYHOUR=9;BYMINUTE=0', timezone: 'Europe/Riga' },
    });
    const next = DateTime.fromISO(schedule.next_run_at!, { zone: 'Europe/Riga' });
    expect([next.hour, next.minute, next.second, next.millisecond]).toEqual([9, 0, 0, 0]);
    const { next_runs } = await sdk.describe('bare-rule');
    expect(next_runs[0]!.scheduled_for).toMatch(/T09:00:00\+0[23]:00$/);
    await sdk.cancel('bare-rule');
  });
});
