// A tenant hammering the tenant-wide recompute (security review N3): each one asks every running schedule of
// the tenant, an update and a workflow task each on the worker every tenant shares. It runs once per tenant
// every 10 minutes (429 with Retry-After and a problem saying why), is charged per schedule it asks, and the
// flood cannot disturb another tenant's every-2-s schedule: its hand-offs stay in order and none is missed.
// Real dev server, the real scheduler worker, real HTTP, a real event sink.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TENANT_RECOMPUTE_INTERVAL_MS } from '../../src/api/http/tenant-rate-limit.js';
import type { Occurrence, RecomputeSummary } from '../../src/model/contracts.js';
import type { Problem } from '../../src/model/http.js';
import { hourHalfADayAway, TestClock } from '../helpers/clock.js';
import { type ApiResponse, type ApiStack, startApiStack, startEventSink } from '../helpers/http-api.js';
import { eventually } from './support.js';

const A = 'key-flood-a-ops-0123456789abcdef';
const B = 'key-flood-b-ops-0123456789abcdef';
/** The hammering tenant's running schedules: what each of its recomputes would ask. */
const SCHEDULES = 30;
/** Tenant-wide recomputes the hammering tenant sends, at least; ten at a time. */
const HAMMER = 60;
/** And at most this many: 2 units each, within the tenant's 600 a minute with the schedules asked. */
const MAX_HAMMER = 200;
/** Of the other tenant's slots, at least this many come due while the hammer lasts. */
const SLOTS_DURING = 5;

let api: ApiStack;
let sink: Awaited<ReturnType<typeof startEventSink>>;
const clock = new TestClock();
beforeAll(async () => {
  sink = await startEventSink();
  api = await startApiStack('recompute-flood', {
    keys: `${A}=tenant_a:ops,${B}=tenant_b:ops`,
    // The API's windows (rate limit, recompute turns) on a clock the test holds still through the hammer.
    now: clock.now,
  });
});
afterAll(async () => {
  await api?.stop();
  await sink?.close();
});

describe('tenant-wide recompute, hammered', () => {
  it("gets 429s with Retry-After after the first, is charged per schedule asked, and another tenant's every-2-s schedule keeps every hand-off in order", async () => {
    const heartbeat = await api.call('POST', '/v1/schedules', {
      key: B,
      body: {
        schedule_id: 'heartbeat',
        timing: { kind: 'INTERVAL', every: 'PT2S' },
        target: { type: 'EVENT', event_type: 'heartbeat.tick', sink_url: sink.url },
      },
    });
    expect(heartbeat.status).toBe(201);
    const hour = hourHalfADayAway('Europe/Riga');
    for (let i = 0; i < SCHEDULES; i++) {
      const created = await api.call('POST', '/v1/schedules', {
        key: A,
        body: {
          schedule_id: `daily-${i}`,
          timing: { kind: 'CRON', expression: `${i} ${hour} * * *`, timezone: 'Europe/Riga' },
          target: { type: 'JOB', job_type: 'recordedJob' },
        },
      });
      expect(created.status).toBe(201);
    }
    // Visibility trails starts by about a second: the first recompute should find all of them.
    await eventually(
      `${SCHEDULES} schedules of tenant_a listed`,
      async () => {
        const page = await api.call('GET', '/v1/schedules?limit=100', { key: A });
        return page.body.items?.length === SCHEDULES ? true : undefined;
      },
      30_000,
    );

    // Held, and a minute on: the hammer starts a window of its own and stays in it.
    clock.hold();
    clock.advance(60_000);
    try {
      const remaining = async () =>
        Number(
          (await api.call('GET', '/v1/schedules/daily-0', { key: A })).headers.get('x-ratelimit-remaining'),
        );
      const before = await remaining();
      const startedAt = Date.now();
      const answers: ApiResponse<RecomputeSummary & Problem>[] = [];
      const eventsSince = () => sink.events.filter((e) => e.at >= startedAt).length;
      // The hammer lasts until it sent HAMMER requests and the other tenant had SLOTS_DURING slots meanwhile
      // (a hang detector, not a speed goal, bounds it); it stops sending at MAX_HAMMER, which the tenant's
      // budget covers (2 units each), so every refusal below is the recompute's own.
      while (answers.length < HAMMER || eventsSince() < SLOTS_DURING) {
        expect(Date.now() - startedAt, 'the hammer ends').toBeLessThan(120_000);
        if (answers.length >= MAX_HAMMER) {
          await new Promise((r) => setTimeout(r, 250));
          continue;
        }
        answers.push(
          ...(await Promise.all(
            Array.from({ length: 10 }, () =>
              api.call<RecomputeSummary & Problem>('POST', '/v1/recompute', { key: A, body: {} }),
            ),
          )),
        );
      }
      const after = await remaining();

      // One ran; every other one was refused before it listed or asked anything.
      const ran = answers.filter((a) => a.status === 200);
      expect(ran).toHaveLength(1);
      expect(ran[0]!.body).toMatchObject({ matched: SCHEDULES, failed: [] });
      const refused = answers.filter((a) => a.status !== 200);
      expect(refused.length).toBe(answers.length - 1);
      for (const answer of refused) {
        expect(answer.status).toBe(429);
        const retryAfter = Number(answer.headers.get('retry-after'));
        expect(retryAfter).toBeGreaterThan(0);
        expect(retryAfter).toBeLessThanOrEqual(TENANT_RECOMPUTE_INTERVAL_MS / 1000);
        expect(answer.body).toMatchObject({ code: 'RATE_LIMITED', type: '/problems/rate-limited' });
        expect(answer.body.detail).toMatch(
          /a tenant-wide recompute runs at most once every 10 minutes for tenant tenant_a .*POST \/v1\/schedules\/\{id\}\/recompute/,
        );
      }
      // Charged, in one held minute: 2 units per recompute asked for (refused ones too), 2 per schedule the
      // one that ran asked, and 1 for the read that measures it.
      expect(before - after).toBe(2 * answers.length + 2 * SCHEDULES + 1);

      // The other tenant: every slot from its first to its last handed off, 2 s apart, in order, none skipped.
      const occurrences = await eventually(
        'the heartbeat slots of the hammer, handed off',
        async () => {
          const page = await api.call<{ items: Occurrence[] }>(
            'GET',
            '/v1/schedules/heartbeat/occurrences?limit=200',
            { key: B },
          );
          const handedOff = page.body.items.filter((o) => o.status === 'HANDED_OFF');
          const during = handedOff.filter((o) => Date.parse(o.scheduled_for) >= startedAt);
          return during.length >= SLOTS_DURING ? page.body.items : undefined;
        },
        30_000,
      );
      const bySlot = [...occurrences].sort(
        (x, y) => Date.parse(x.scheduled_for) - Date.parse(y.scheduled_for),
      );
      for (const occurrence of bySlot) {
        expect(occurrence.trigger).toBe('SCHEDULE');
        expect(['HANDED_OFF', 'DISPATCHING'], occurrence.occurrence_id).toContain(occurrence.status);
      }
      for (let i = 1; i < bySlot.length; i++) {
        const [previous, next] = [bySlot[i - 1]!, bySlot[i]!];
        expect(Date.parse(next.scheduled_for) - Date.parse(previous.scheduled_for), next.scheduled_for).toBe(
          2000,
        );
        expect(Date.parse(next.emitted_at!), next.scheduled_for).toBeGreaterThanOrEqual(
          Date.parse(previous.emitted_at!),
        );
      }
      // And the sink got each handed-off one, once.
      const handedOff = bySlot.filter((o) => o.status === 'HANDED_OFF').map((o) => o.occurrence_id);
      const received = sink.events.map((e) => e.body.id as string);
      for (const id of handedOff)
        expect(
          received.filter((r) => r === id),
          id,
        ).toHaveLength(1);
    } finally {
      clock.release();
    }
  });
});
