import { DateTime } from 'luxon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { amendedZoneRules, useRuntimeZoneRules, useZoneRules, zoneRules } from '../../src/calendar/index.js';
import type { Occurrence } from '../../src/model/contracts.js';
import { scheduleWorkflowId } from '../../src/model/ids.js';
import { newerTzSignal } from '../../src/workflows/definitions.js';
import { TZ_HORIZON_MS } from '../../src/workflows/schedule/state.js';
import { SchedulerHarness } from '../helpers/scheduler-harness.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const job = { type: 'JOB' as const, job_type: 'recordedJob' };
const dailyInRiga = { kind: 'CRON' as const, expression: '0 9 * * *', timezone: 'Europe/Riga' };

// A government changes Riga's rules: from `changeAt` on, the zone keeps UTC+05:00 (an offset Riga never had,
// so no real rule can produce the new instants). The calendar's zone rules come through one seam
// (src/calendar/zone.ts `useZoneRules`); the worker here runs in this process, so installing the amended
// rules is what upgrading the worker's Node (and its tz database) to a release carrying the change does.
// Expected instants are derived here with luxon (the runtime's rules) and by hand (the new ones).
describe('a zone rule change reaches running schedules (time-skipping server)', () => {
  let h: SchedulerHarness;
  const runtime = zoneRules().version;
  beforeAll(async () => {
    h = await SchedulerHarness.start();
  });
  afterAll(async () => {
    useRuntimeZoneRules();
    await h?.teardown();
  });

  const oldInstant = (day: DateTime) => day.set({ hour: 9, minute: 0 }).toMillis();
  const newInstant = (day: DateTime) => Date.UTC(day.year, day.month - 1, day.day, 9 - 5, 0);

  it('recompute moves the buffered slots after the change; the horizon bounds the schedule nobody asked for', async () => {
    const sdk = h.sdk();
    // Start right after 09:00 Riga time, so that day k's slot is k days after creation, on a day whose next 30
    // keep one offset (skipping, in server time, past a DST change within them): no real DST change muddles
    // the instants, in any season (a start from late February or late September did).
    const first = await h.now();
    const rigaNow = DateTime.fromMillis(first, { zone: 'Europe/Riga' });
    let start = rigaNow.set({ hour: 9, minute: 30, second: 0, millisecond: 0 });
    if (start.toMillis() < first) start = start.plus({ days: 1 });
    const oneOffsetFor30Days = (from: DateTime) =>
      from.startOf('day').plus({ days: 30 }).offset === from.startOf('day').offset;
    while (!oneOffsetFor30Days(start)) start = start.plus({ days: 1 });
    await h.env.sleep(start.toMillis() - first);
    const day = (k: number) => start.startOf('day').plus({ days: k });
    expect(day(30).offset).toBe(day(0).offset);

    await sdk.create({ schedule_id: 'riga-asked', target: job, timing: dailyInRiga });
    await sdk.create({ schedule_id: 'riga-left-alone', target: job, timing: dailyInRiga });
    const notified = await sdk.create({ schedule_id: 'riga-notified', target: job, timing: dailyInRiga });
    expect(Date.parse(notified.schedule.next_run_at!)).toBe(oldInstant(day(1)));

    // Day 6, 12:00: each schedule computed its second batch (100 slots) on day 5, with the runtime's rules.
    await h.env.sleep(day(6).set({ hour: 12 }).toMillis() - (await h.now()));
    const changeAt = day(8).toMillis();
    useZoneRules(
      amendedZoneRules(zoneRules(), '2099a', [{ zone: 'Europe/Riga', from: changeAt, offsetMs: 5 * HOUR }]),
    );

    // A worker with the newer release says so: describe shows it until the schedule is recomputed.
    await h.env.client.workflow
      .getHandle(scheduleWorkflowId('acme', 'riga-notified'))
      .signal(newerTzSignal, { version: '2099a' });
    const told = await sdk.describe('riga-notified');
    expect(told.tz?.newer_seen?.version).toBe('2099a');
    expect(told.tz?.computed_with).toEqual([runtime]);

    // Another zone's recompute leaves Riga's schedules alone; Riga's moves every slot after the change.
    expect(await sdk.recomputeSchedule('riga-asked', { zone: 'Europe/Paris' })).toMatchObject({
      recomputed: false,
      reason: 'its instants do not depend on Europe/Paris',
    });
    const asked = await sdk.recomputeSchedule('riga-asked', { zone: 'Europe/Riga', reason: 'tzdata 2099a' });
    expect(asked.recomputed).toBe(true);
    // The day-5 batch buffered days 6 … 105; day 7 on are still ahead: day 7 keeps its instant, days 8 …
    // 105 moved.
    expect(asked.record).toMatchObject({
      reason: 'tzdata 2099a',
      tz_version: '2099a',
      dropped: 99,
      moved: 98,
    });
    // Asked again at once: refused before it enters history (a recompute costs an activity; once a minute).
    await expect(sdk.recomputeSchedule('riga-asked', { reason: 'again' })).rejects.toMatchObject({
      code: 'INVALID_STATE',
      reason: expect.stringMatching(/at most once a minute/),
    });
    const notifiedRecomputed = await sdk.recomputeSchedule('riga-notified', { if_older_than: '2099a' });
    expect(notifiedRecomputed.recomputed).toBe(true);
    expect((await sdk.describe('riga-notified')).tz?.newer_seen).toBeNull();

    await h.env.sleep(day(16).set({ hour: 12 }).toMillis() - (await h.now()));

    const fired = async (id: string) =>
      (await sdk.describe(id)).recent_occurrences.filter((o) => o.trigger === 'SCHEDULE');
    const at = (o: Occurrence) => Date.parse(o.scheduled_for);
    const expected = (lastOld: number) =>
      Array.from({ length: 16 }, (_, i) => i + 1).map((k) =>
        k <= lastOld ? oldInstant(day(k)) : newInstant(day(k)),
      );

    // Asked: the change reaches every slot from day 8 on; before it, the old instants stay.
    const askedRuns = await fired('riga-asked');
    expect(askedRuns.map(at)).toEqual(expected(7));
    // Which release computed each: days 1–6 the runtime's, day 7 on (recomputed on day 6) the new one.
    expect(askedRuns.map((o) => o.tz_version)).toEqual([
      ...Array(6).fill(runtime),
      ...Array(10).fill('2099a'),
    ]);

    // Left alone: its instants were computed on day 5 and are trusted for TZ_HORIZON_MS (7 days): day 12 still
    // fires on the old rules, then the horizon recomputes and day 13 on follows the new ones.
    expect(TZ_HORIZON_MS).toBe(7 * DAY);
    const aloneRuns = await fired('riga-left-alone');
    expect(aloneRuns.map(at)).toEqual(expected(12));
    expect(aloneRuns.at(-1)!.tz_version).toBe('2099a');
    const alone = await sdk.describe('riga-left-alone');
    expect(alone.tz?.horizon_refreshes).toBeGreaterThanOrEqual(1);
    expect(alone.tz?.recomputes).toBe(0);
    expect(alone.tz?.computed_with).toEqual(['2099a']);
    // Its refresh moved the slots: the record says how many, and that it was the horizon's.
    expect(alone.tz?.last_recompute).toMatchObject({ reason: 'horizon', tz_version: '2099a' });

    // Exactly once: one job run per occurrence, and no occurrence on a day's old instant after the move.
    for (const id of ['riga-asked', 'riga-left-alone', 'riga-notified']) {
      const occurrences = await fired(id);
      expect(new Set(occurrences.map((o) => o.occurrence_id)).size).toBe(occurrences.length);
      for (const o of occurrences)
        expect(h.runs.filter((r) => r.occurrenceId === o.occurrence_id)).toHaveLength(1);
    }
    // Later, asked with the release it already has: nothing to do.
    expect(await sdk.recomputeSchedule('riga-asked', { if_older_than: '2099a' })).toMatchObject({
      recomputed: false,
      reason: 'its slots are computed with 2099a, not older than 2099a',
    });
    const askedDescription = await sdk.describe('riga-asked');
    expect(askedDescription.tz).toMatchObject({ recomputes: 1, computed_with: ['2099a'] });
    expect(askedDescription.tz?.last_recompute?.reason).toMatch(/tzdata 2099a|horizon/);
  });

  it('a recompute that cannot compute keeps the slots it had: the schedule never dies of it', async () => {
    useRuntimeZoneRules();
    const sdk = h.sdk();
    await sdk.create({ schedule_id: 'riga-broken-rules', target: job, timing: dailyInRiga });
    const before = await sdk.describe('riga-broken-rules');
    // Rules that fail for Riga (a broken tz database): every attempt of the slot activity throws.
    const runtimeRules = zoneRules();
    useZoneRules({
      version: '2099z',
      offsetAt: (zone, t) => {
        if (zone === 'Europe/Riga') throw new Error('no rules for Europe/Riga');
        return runtimeRules.offsetAt(zone, t);
      },
    });
    const answer = await sdk.recomputeSchedule('riga-broken-rules', { zone: 'Europe/Riga' });
    expect(answer).toMatchObject({ recomputed: false, record: null });
    expect(answer.reason).toMatch(
      /could not be computed again \(they stay as they were\): .*no rules for Europe\/Riga/,
    );
    useRuntimeZoneRules();
    const after = await sdk.describe('riga-broken-rules');
    expect(after.schedule.status).toBe('ACTIVE');
    expect(after.next_runs).toEqual(before.next_runs);
    expect(after.tz?.computed_with).toEqual([runtime]);
    // And it goes on firing.
    await h.env.sleep(2 * DAY);
    expect((await sdk.describe('riga-broken-rules')).counters.fired).toBe(2);
  });
});
