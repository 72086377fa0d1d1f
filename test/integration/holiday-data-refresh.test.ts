// A newer holiday data release (a holiday declared after the schedules were made) reaches running business-day
// schedules through the worker's own check and through the API: real dev server, the real scheduler worker in
// this process (its holiday data is replaced through src/model/slots.ts `useHolidaySource`, as deploying a
// scheduler with a newer date-holidays would), real HTTP. Expected dates come from the data package's own
// isHoliday (test/helpers/business-days.ts). A schedule without business days is never touched.
import { DateTime } from 'luxon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { amendedHolidaySource } from '../../src/calendar/business-days.js';
import { dateHolidaysSource, HOLIDAY_DATA_VERSION } from '../../src/calendar/holiday-data.js';
import { useHolidaySource } from '../../src/model/slots.js';
import { checkHolidayData } from '../../src/runtime/release-watch.js';
import { businessDaysByIsHoliday, localInstant } from '../helpers/business-days.js';
import { type ApiStack, startApiStack } from '../helpers/http-api.js';
import { eventually } from './support.js';

const A = 'key-tenant-a-ops-0123456789abcdef';
const NEWER = 'date-holidays@99.0.0';
const ZONE = 'Europe/Riga';
const job = { type: 'JOB', job_type: 'recordedJob' };

let api: ApiStack;
beforeAll(async () => {
  api = await startApiStack('holiday-refresh', { keys: `${A}=tenant_A:ops` });
});
afterAll(async () => {
  useHolidaySource();
  await api?.stop();
});

const describeAs = async (id: string) => {
  const answer = await api.call('GET', `/v1/schedules/${id}/describe`, { key: A });
  expect(answer.status).toBe(200);
  return answer.body;
};

describe('holiday data refresh', () => {
  it('a worker with newer holiday data tells the business-day schedules behind it, then recomputes them', async () => {
    const now = DateTime.now().setZone(ZONE);
    const business = businessDaysByIsHoliday(
      'LV',
      ZONE,
      now.startOf('month').toISODate()!,
      now.plus({ months: 3 }).toISODate()!,
    );
    const firstOfMonth = [...new Set(business.map((d) => d.slice(0, 7)))]
      .map((m) => business.find((d) => d.startsWith(m))!)
      .filter((d) => Date.parse(localInstant(ZONE, d, '09:00')) > Date.now() + 60_000);
    const declared = firstOfMonth[0]!;
    const moved = business.find((d) => d > declared)!;

    for (const [id, body] of [
      [
        'payroll',
        {
          timing: { kind: 'BUSINESS_DAY', period: 'MONTH', n: 1, time: '09:00', timezone: ZONE },
          business_days: { region: 'LV' },
        },
      ],
      ['plain', { timing: { kind: 'CRON', expression: '0 9 * * *', timezone: ZONE } }],
    ] as const) {
      const created = await api.call('POST', '/v1/schedules', {
        key: A,
        body: { schedule_id: id, target: job, ...body },
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
    }
    const before = await describeAs('payroll');
    expect(before.next_runs[0].scheduled_for).toBe(localInstant(ZONE, declared, '09:00'));
    expect(before.holidays).toMatchObject({
      region: 'LV',
      computed_with: [HOLIDAY_DATA_VERSION],
      newer_seen: null,
    });
    expect((await describeAs('plain')).holidays).toBeUndefined();

    // Bad input names the field.
    const bad = await api.call('POST', '/v1/schedules/payroll/recompute', {
      key: A,
      body: { if_holiday_data_older_than: 'soon' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.field).toBe('if_holiday_data_older_than');

    // The worker's check, by visibility: one schedule behind (the plain one has no holiday data).
    const client = api.stack.client;
    const told = await eventually(
      'the business-day schedule listed behind the newer data',
      async () => {
        const r = await checkHolidayData(client, { version: NEWER, mode: 'notify', asked: new Map() });
        return r.behind === 1 ? r : undefined;
      },
      20_000,
    );
    expect(told).toMatchObject({ behind: 1, asked: 1, failed: 0 });
    expect((await describeAs('payroll')).holidays.newer_seen).toMatchObject({ version: NEWER });

    // The newer release declares a holiday on the next run's day; recompute moves it to the next business day.
    useHolidaySource(
      amendedHolidaySource(dateHolidaysSource(), NEWER, [
        { region: 'LV', date: declared, name: 'Declared Day' },
      ]),
    );
    const asked = new Map<string, number>();
    const recomputed = await checkHolidayData(client, { version: NEWER, mode: 'recompute', asked });
    expect(recomputed).toMatchObject({ behind: 1, recomputed: 1, failed: 0 });
    expect(recomputed.moved).toBeGreaterThanOrEqual(1);
    const after = await describeAs('payroll');
    expect(after.next_runs[0].scheduled_for).toBe(localInstant(ZONE, moved, '09:00'));
    expect(after.holidays).toMatchObject({ computed_with: [NEWER], newer_seen: null });
    expect(after.tz.last_recompute.reason).toContain(NEWER);
    expect((await describeAs('plain')).tz.recomputes).toBe(0);

    // Nothing is behind any more; a worker with the older data finds nothing to do either.
    const settled = await eventually(
      'no schedule behind the newer data',
      async () => {
        const r = await checkHolidayData(client, { version: NEWER, mode: 'recompute', asked });
        return r.behind === 0 ? r : undefined;
      },
      20_000,
    );
    expect(settled).toMatchObject({ behind: 0, asked: 0 });
    expect(
      await checkHolidayData(client, { version: HOLIDAY_DATA_VERSION, mode: 'recompute', asked: new Map() }),
    ).toMatchObject({ behind: 0, asked: 0 });
  });
});
