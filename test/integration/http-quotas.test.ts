// The tenant quotas of the policy file (`quotas`), through the real HTTP API (a dev server, the scheduler's
// worker, the API on a port): each one refused with 403 QUOTA_EXCEEDED naming the field, with `limit` and
// `current`; the payload cap (400 naming target.payload); and the rate limit, per tenant and weighted by
// cost, where two backfills spend what a hundred reads would not. Every answer is checked against the served
// OpenAPI document by the harness.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TenantPolicy } from '../../src/model/tenant-policy.js';
import { TestClock } from '../helpers/clock.js';
import { type ApiResponse, type ApiStack, startApiStack } from '../helpers/http-api.js';
import { eventually } from './support.js';

const FEW = 'key-few-ops-0123456789abcd';
const SLOW = 'key-slow-ops-0123456789abc';
const BACKFILL = 'key-backfill-ops-012345678';
const RATED = 'key-rated-ops-0123456789ab';
const READS = 'key-reads-ops-0123456789ab';
const APPLIED = 'key-applied-ops-012345678';
const KEYS = [
  `${FEW}=few:ops`,
  `${SLOW}=slow:ops`,
  `${BACKFILL}=bf:ops`,
  `${RATED}=rated:ops`,
  `${READS}=reads:ops`,
  `${APPLIED}=applied:ops`,
].join(',');
const jobs = { job_task_queues: ['*'], job_types: ['*'] };

let api: ApiStack;
/** The API's own windows (each tenant's rate-limit minute) run on it: the rate test holds it still. */
const clock = new TestClock();

beforeAll(async () => {
  api = await startApiStack('http-quotas', {
    keys: KEYS,
    tenantPolicy: TenantPolicy.fromTenants({
      few: { ...jobs, quotas: { max_schedules: 2 } },
      slow: { ...jobs, quotas: { min_interval_s: 60 } },
      bf: { ...jobs, quotas: { max_backfill_slots: 5, max_backfill_slots_per_hour: 8 } },
      rated: { ...jobs, quotas: { api_units_per_minute: 120 } },
      reads: { ...jobs, quotas: { api_units_per_minute: 120 } },
      applied: { ...jobs, quotas: { max_schedules: 3 } },
    }),
    now: clock.now,
  });
});
afterAll(async () => {
  await api?.stop();
});

const job = { type: 'JOB', job_type: 'recordedJob' } as const;
const hourly = { kind: 'CRON', expression: '0 * * * *', timezone: 'UTC' } as const;
const everyMinute = { kind: 'CRON', expression: '* * * * *', timezone: 'UTC' } as const;

function expectQuota(response: ApiResponse, field: string | null, limit: number, current: number) {
  expect(response.status, JSON.stringify(response.body)).toBe(403);
  expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(response.body).toMatchObject({
    type: '/problems/quota-exceeded',
    code: 'QUOTA_EXCEEDED',
    field,
    limit,
    current,
  });
  expect(response.body.detail).toMatch(/quotas\./);
  expect(response.body.detail).toContain(String(limit));
}

describe('tenant quotas through the HTTP API', () => {
  it('max_schedules and apply: a plan that would pass the quota is refused whole; its deletes count', async () => {
    const docs = (...ids: string[]) =>
      ids.map((id) => ({ schedule_id: id, timing: hourly, target: job, labels: { 'managed-by': 'repo' } }));
    const apply = (body: object) => api.call('POST', '/v1/apply', { key: APPLIED, body });
    expectQuota(await apply({ schedules: docs('a', 'b', 'c', 'd') }), 'schedules', 3, 0);
    expect((await api.call('GET', '/v1/schedules/a', { key: APPLIED })).status).toBe(404);

    expect((await apply({ schedules: docs('a', 'b', 'c') })).status).toBe(200);
    await eventually(
      'three schedules in visibility',
      async () =>
        (await api.call('GET', '/v1/schedules', { key: APPLIED })).body.items.length === 3 ? true : undefined,
      15_000,
    );
    expectQuota(await apply({ schedules: docs('a', 'b', 'c', 'd') }), 'schedules', 3, 3);
    // c leaves as d comes: three live either way.
    const swapped = await apply({ schedules: docs('a', 'b', 'd'), prune: 'managed-by=repo' });
    expect(swapped.status, JSON.stringify(swapped.body)).toBe(200);
    expect(
      swapped.body.changes.map((c: { schedule_id: string; action: string; outcome: string }) => [
        c.schedule_id,
        c.action,
        c.outcome,
      ]),
    ).toEqual([
      ['a', 'UNCHANGED', 'NOTHING_TO_DO'],
      ['b', 'UNCHANGED', 'NOTHING_TO_DO'],
      ['d', 'CREATE', 'APPLIED'],
      ['c', 'DELETE', 'APPLIED'],
    ]);
  });

  it('max_schedules: the third live schedule is refused; an idempotent re-create and a create after a delete are not', async () => {
    const create = (id: string) =>
      api.call('POST', '/v1/schedules', { key: FEW, body: { schedule_id: id, timing: hourly, target: job } });
    expect((await create('one')).status).toBe(201);
    expect((await create('two')).status).toBe(201);
    // The count is a visibility query: wait until visibility shows both.
    await eventually(
      'both schedules in visibility',
      async () =>
        (await api.call('GET', '/v1/schedules', { key: FEW })).body.items.length === 2 ? true : undefined,
      15_000,
    );
    expectQuota(await create('three'), null, 2, 2);
    const again = await create('one');
    expect(again.status).toBe(200);
    expect(again.body.schedule_id).toBe('one');

    expect((await api.call('DELETE', '/v1/schedules/two', { key: FEW })).status).toBe(204);
    await eventually(
      'the delete in visibility',
      async () => ((await create('three')).status === 201 ? true : undefined),
      15_000,
    );
  });

  it('min_interval_s: a 30 s interval and a 6-field cron every 10 s are refused at create and at edit', async () => {
    const refused = await api.call('POST', '/v1/schedules', {
      key: SLOW,
      body: { timing: { kind: 'INTERVAL', every: 'PT30S' }, target: job },
    });
    expectQuota(refused, 'timing', 60, 30);
    expectQuota(
      await api.call('POST', '/v1/schedules', {
        key: SLOW,
        body: {
          timing: { kind: 'RECURRENCE', rule: 'FREQ=SECONDLY;INTERVAL=20', timezone: 'UTC' },
          target: job,
        },
      }),
      'timing',
      60,
      20,
    );
    const ok = await api.call('POST', '/v1/schedules', {
      key: SLOW,
      body: { schedule_id: 'minutely', timing: everyMinute, target: job },
    });
    expect(ok.status).toBe(201);
    const edit = await api.call('PATCH', '/v1/schedules/minutely', {
      key: SLOW,
      body: { expected_version: 1, timing: { kind: 'CRON', expression: '*/10 * * * * *', timezone: 'UTC' } },
    });
    expectQuota(edit, 'timing', 60, 10);
    // An edit that leaves the timing alone is not judged on it.
    const note = await api.call('PATCH', '/v1/schedules/minutely', {
      key: SLOW,
      body: { expected_version: 1, target: { ...job, payload: { n: 1 } } },
    });
    expect(note.status).toBe(200);
  });

  it('max_backfill_slots and max_backfill_slots_per_hour: counted with the slot function before the update', async () => {
    expect(
      (
        await api.call('POST', '/v1/schedules', {
          key: BACKFILL,
          body: { schedule_id: 'minutely', timing: everyMinute, target: job },
        })
      ).status,
    ).toBe(201);
    const minute = Math.floor(Date.now() / 60_000) * 60_000;
    // Slots on whole minutes: [from, to] covers the minutes -k..-j before this one.
    const range = (k: number, j: number) => ({
      from: new Date(minute - k * 60_000 - 30_000).toISOString(),
      to: new Date(minute - j * 60_000 + 1_000).toISOString(),
    });
    const backfill = (body: object) =>
      api.call('POST', '/v1/schedules/minutely/backfill', { key: BACKFILL, body });
    expectQuota(await backfill(range(10, 1)), 'to', 5, 6);
    const first = await backfill(range(20, 17)); // 4 slots
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.emitted).toHaveLength(4);
    const second = await backfill(range(30, 27)); // 4 more: 8 in the hour
    expect(second.status).toBe(200);
    expectQuota(await backfill(range(40, 40)), 'from', 8, 9);
  });

  it('the payload cap: a 17 KiB payload is 400 naming target.payload; 16 KiB is accepted', async () => {
    const sized = (bytes: number) => ({ blob: 'x'.repeat(bytes - 11) });
    expect(JSON.stringify(sized(16 * 1024))).toHaveLength(16 * 1024);
    const big = await api.call('POST', '/v1/schedules', {
      key: READS,
      body: { timing: hourly, target: { ...job, payload: sized(17 * 1024) } },
    });
    expect(big.status).toBe(400);
    expect(big.body).toMatchObject({ code: 'VALIDATION', field: 'target.payload' });
    expect(big.body.detail).toMatch(/16 KiB/);
    const fits = await api.call('POST', '/v1/schedules', {
      key: READS,
      body: { schedule_id: 'sixteen', timing: hourly, target: { ...job, payload: sized(16 * 1024) } },
    });
    expect(fits.status).toBe(201);
  });
});

describe('rate limit per tenant, weighted by cost', () => {
  it('two backfills (50 units each) leave no room for a third; a hundred reads of another tenant fit in the same budget', async () => {
    // Held still from here: every request below falls in one minute of each tenant, however long this
    // machine takes to send them (on the real clock, a minute that ended among the hundred reads started
    // the count again and left more than 20 units).
    clock.hold();
    try {
      const created = await api.call('POST', '/v1/schedules', {
        key: RATED,
        body: { schedule_id: 'hourly', timing: hourly, target: job },
      });
      expect(created.status).toBe(201); // 2 units
      const past = {
        from: new Date(Date.now() - 3 * 3_600_000).toISOString(),
        to: new Date(Date.now() - 3_600_000).toISOString(),
      };
      const backfill = () => api.call('POST', '/v1/schedules/hourly/backfill', { key: RATED, body: past });
      expect((await backfill()).status).toBe(200);
      expect((await backfill()).status).toBe(200); // 102 units spent
      const limited = await backfill();
      expect(limited.status).toBe(429);
      expect(limited.body).toMatchObject({ code: 'RATE_LIMITED', type: '/problems/rate-limited' });
      expect(limited.body.detail).toMatch(/120 request units per minute for tenant rated.*costs 50/);
      // The minute opened by the create above, on a clock that has not moved since.
      expect(Number(limited.headers.get('retry-after'))).toBe(60);
      // A read (1 unit) still fits the 18 left.
      expect((await api.call('GET', '/v1/schedules/hourly', { key: RATED })).status).toBe(200);

      // The same budget, spent on reads: a hundred of them are served.
      for (let i = 0; i < 100; i++) {
        const response = await api.call('GET', '/v1/schedules/sixteen', { key: READS });
        expect(response.status).toBe(200);
      }
      expect(
        Number(
          (await api.call('GET', '/v1/schedules/sixteen', { key: READS })).headers.get(
            'x-ratelimit-remaining',
          ),
        ),
      ).toBeLessThan(20);
    } finally {
      clock.release();
    }
  });
});
