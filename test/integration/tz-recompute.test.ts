// A tz database upgrade reaches running schedules through the API and through the worker's own check: real
// dev server, the real scheduler worker in this process (whose zone rules the test amends, as upgrading its
// Node would), real HTTP. A tenant recomputes only its own schedules; a worker with a newer release finds
// every schedule behind it by visibility, tells them, or has them recompute.
import { DateTime } from 'luxon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { amendedZoneRules, useRuntimeZoneRules, useZoneRules, zoneRules } from '../../src/calendar/index.js';
import { checkTzVersions } from '../../src/runtime/release-watch.js';
import { type ApiStack, startApiStack } from '../helpers/http-api.js';
import { eventually } from './support.js';

const A = 'key-tenant-a-ops-0123456789abcdef';
const B = 'key-tenant-b-ops-0123456789abcdef';
const HOUR = 3_600_000;
const job = { type: 'JOB', job_type: 'recordedJob' };
const dailyIn = (timezone: string) => ({ kind: 'CRON', expression: '0 9 * * *', timezone });

let api: ApiStack;
const runtime = zoneRules().version;
beforeAll(async () => {
  api = await startApiStack('tz-recompute', { keys: `${A}=tenant_A:ops,${B}=tenant_B:ops` });
});
afterAll(async () => {
  useRuntimeZoneRules();
  await api?.stop();
});

const describeAs = async (key: string, id: string) => {
  const answer = await api.call('GET', `/v1/schedules/${id}/describe`, { key });
  expect(answer.status).toBe(200);
  return answer.body;
};

/** `read` once `holds` (visibility trails a workflow's upsert by a moment). */
const once = <T>(what: string, read: () => Promise<T>, holds: (value: T) => boolean) =>
  eventually(
    what,
    async () => {
      const value = await read();
      return holds(value) ? value : undefined;
    },
    20_000,
  );

describe('recompute after a tz database upgrade', () => {
  it("a tenant's recompute reaches its own schedules that follow the zone, and nothing else", async () => {
    const createdAt: Record<string, string> = {};
    for (const [key, id, timing] of [
      [A, 'riga', dailyIn('Europe/Riga')],
      [A, 'paris', dailyIn('Europe/Paris')],
      [A, 'utc', { kind: 'INTERVAL', every: 'PT1H' }],
      [B, 'riga-b', dailyIn('Europe/Riga')],
    ] as const) {
      const created = await api.call('POST', '/v1/schedules', {
        key,
        body: { schedule_id: id, target: job, timing },
      });
      expect(created.status).toBe(201);
      createdAt[id] = created.body.created_at;
    }
    // Riga drops to a fixed +05:00 two days from now (the worker's Node upgraded to a release with it).
    const changeAt = Date.now() + 48 * HOUR;
    useZoneRules(
      amendedZoneRules(zoneRules(), '2099a', [{ zone: 'Europe/Riga', from: changeAt, offsetMs: 5 * HOUR }]),
    );
    // A new schedule buffers the SDK's first batch, its next FIRST_SLOT_BATCH (5) runs: those after the change move.
    let day = DateTime.fromISO(createdAt.riga!, { zone: 'Europe/Riga' }).set({
      hour: 9,
      minute: 0,
      second: 0,
      millisecond: 0,
    });
    if (day.toMillis() <= Date.parse(createdAt.riga!)) day = day.plus({ days: 1 });
    const buffered = [0, 1, 2, 3, 4].map((k) => day.plus({ days: k }).toMillis());
    const movedInRiga = buffered.filter((at) => at >= changeAt).length;

    // Bad input names the field; nothing is recomputed.
    const badZone = await api.call('POST', '/v1/recompute', { key: A, body: { zone: 'Mars/Olympus' } });
    expect(badZone.status).toBe(422);
    expect(badZone.body).toMatchObject({ code: 'VALIDATION', field: 'zone' });
    expect(badZone.body.detail).toMatch(/unknown time zone "Mars\/Olympus"/);
    const badRelease = await api.call('POST', '/v1/recompute', { key: A, body: { if_older_than: 'soon' } });
    expect(badRelease.status).toBe(400);
    expect(badRelease.body.field).toBe('if_older_than');
    // Another tenant's schedule is not there for B.
    const foreign = await api.call('POST', '/v1/schedules/riga/recompute', { key: B, body: {} });
    expect(foreign.status).toBe(404);

    const summary = await once(
      'the Riga schedule listed by its zone',
      async () => (await api.call('POST', '/v1/recompute', { key: A, body: { zone: 'Europe/Riga' } })).body,
      (body) => body.matched > 0,
    );
    expect(summary).toMatchObject({ matched: 1, recomputed: 1, failed: [] });
    expect(summary.moved).toEqual([{ schedule_id: 'riga', moved: summary.moved_slots, tz_version: '2099a' }]);
    expect(summary.moved_slots).toBe(movedInRiga);
    expect(movedInRiga).toBeGreaterThanOrEqual(2);

    const riga = await describeAs(A, 'riga');
    expect(riga.tz).toMatchObject({ computed_with: ['2099a'], recomputes: 1 });
    expect(riga.next_runs.at(-1).scheduled_for).toMatch(/T09:00:00\+05:00$/);
    for (const [key, id] of [
      [A, 'paris'],
      [A, 'utc'],
      [B, 'riga-b'],
    ] as const)
      expect((await describeAs(key, id)).tz.recomputes, id).toBe(0);

    // At once again: 409, a schedule recomputes at most once a minute (each costs an activity); a tenant-wide
    // recompute runs once per tenant every 10 minutes (security review N3: it asks every running schedule),
    // whatever its zone (the ones that found nothing, above, did not count).
    const again = await api.call('POST', '/v1/schedules/riga/recompute', { key: A, body: {} });
    expect(again.status).toBe(409);
    expect(again.body.detail).toMatch(/at most once a minute/);
    const bulkAgain = await api.call('POST', '/v1/recompute', { key: A, body: { zone: 'Europe/Riga' } });
    expect(bulkAgain.status).toBe(429);
    expect(Number(bulkAgain.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(bulkAgain.body.detail).toMatch(/tenant-wide recompute runs at most once every 10 minutes/);
    // Another tenant's turn is its own.
    const otherTenant = await api.call('POST', '/v1/recompute', { key: B, body: { zone: 'Europe/Paris' } });
    expect(otherTenant.status).toBe(200);
  });

  it('a worker with the newer release tells the schedules behind it, then recomputes them', async () => {
    const client = api.stack.client;
    // Behind 2099a: Paris (in tenant A) and Riga (in tenant B); A's Riga is at 2099a, A's UTC interval follows
    // no zone.
    const told = await once(
      'two schedules behind 2099a',
      () => checkTzVersions(client, { version: '2099a', mode: 'notify', asked: new Map() }),
      (r) => r.behind === 2,
    );
    expect(told).toMatchObject({ behind: 2, asked: 2, failed: 0 });
    expect((await describeAs(A, 'paris')).tz.newer_seen).toMatchObject({ version: '2099a' });
    expect((await describeAs(B, 'riga-b')).tz.computed_with).toEqual([runtime]);

    const asked = new Map<string, number>();
    const recomputed = await checkTzVersions(client, { version: '2099a', mode: 'recompute', asked });
    expect(recomputed).toMatchObject({ behind: 2, recomputed: 2, failed: 0 });
    // B's Riga moved like A's; Paris did not (its rules did not change), but it is computed with 2099a now.
    expect(recomputed.moved).toBeGreaterThanOrEqual(2);
    const paris = await describeAs(A, 'paris');
    expect(paris.tz).toMatchObject({ computed_with: ['2099a'], newer_seen: null, recomputes: 1 });
    expect(paris.tz.last_recompute).toMatchObject({ moved: 0, reason: expect.stringContaining('2099a') });
    expect((await describeAs(B, 'riga-b')).next_runs.at(-1).scheduled_for).toMatch(/\+05:00$/);

    // Nothing is behind any more; an older worker's check finds nothing to do either.
    const after = await once(
      'no schedule behind 2099a',
      () => checkTzVersions(client, { version: '2099a', mode: 'recompute', asked }),
      (r) => r.behind === 0,
    );
    expect(after).toMatchObject({ behind: 0, asked: 0 });
    expect(
      await checkTzVersions(client, { version: runtime, mode: 'recompute', asked: new Map() }),
    ).toMatchObject({ behind: 0, asked: 0 });
  });
});
