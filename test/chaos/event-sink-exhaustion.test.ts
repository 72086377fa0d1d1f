// `npm run chaos` only (minutes of real backoff): EVENT sinks that never recover. Each schedule's first
// occurrence meets a sink that answers 500, answers 429, or holds the POST past its timeout, on every
// attempt; a fourth schedule's sink refuses every connection. SPEC: transient failures are retried with
// bounded exponential backoff under the same idempotency key; when the retries are exhausted the
// failure is recorded on the occurrence, and the schedule goes on (its later slots are handed off).
// The fast variants (the sink recovers, a 400) are in test/integration/event-sink-faults.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Occurrence, ScheduleDescription } from '../../src/model/contracts.js';
import { freePort } from '../../src/runtime/ports.js';
import { type FaultSink, startFaultSink } from '../integration/fault-sink.js';
import { eventually, type Stack, startStack, startWorker, stopStack } from '../integration/support.js';

/** The hand-off activity's retry policy (src/workflows/schedule/hand-off.ts `handOff`): at most 8 attempts. */
const MAX_ATTEMPTS = 8;

describe('EVENT sinks that never recover: retries exhausted under one key, failure recorded, schedule goes on', () => {
  let stack: Stack;
  let sink: FaultSink;
  let refusedUrl = '';
  /** The first occurrence of each faulty schedule (the one the sink fails). */
  const doomed = new Map<string, string>();
  const results = new Map<string, { description: ScheduleDescription; failed: Occurrence }>();

  beforeAll(async () => {
    stack = await startStack('sink-exhaustion');
    sink = await startFaultSink((d) => {
      const first = doomed.get(d.path) ?? d.id;
      doomed.set(d.path, first);
      if (d.id !== first) return 200;
      if (d.path === '/500') return 500;
      if (d.path === '/429') return 429;
      return 'hang';
    });
    refusedUrl = `http://127.0.0.1:${await freePort()}/refused`; // nothing ever listens there
    await startWorker(stack);
    const timing = { kind: 'INTERVAL' as const, every: 'PT20S' };
    for (const [id, url] of [
      ['fail-500', sink.url('/500')],
      ['fail-429', sink.url('/429')],
      ['fail-hang', sink.url('/hang')],
      ['fail-refused', refusedUrl],
    ] as const) {
      await stack.sdk.create({
        schedule_id: id,
        target: { type: 'EVENT', event_type: 'chaos.doomed', sink_url: url },
        timing,
      });
    }
    // 8 attempts with backoff 1, 2, 4 … 60 s; a held POST also waits its 15 s timeout each time.
    for (const id of ['fail-500', 'fail-429', 'fail-hang', 'fail-refused']) {
      const description = await eventually(
        `${id}: its first occurrence failed for good`,
        async () => {
          const d = await stack.sdk.describe(id);
          const first = d.recent_occurrences.find((o) => o.emitted_at !== null);
          return first?.status === 'FAILED' ? d : undefined;
        },
        420_000,
        2000,
      );
      const failed = description.recent_occurrences.find((o) => o.emitted_at !== null)!;
      results.set(id, { description, failed });
      console.info(
        `[sink-exhaustion ${id}] first occurrence FAILED after ${Math.round((Date.parse(failed.finished_at!) - Date.parse(failed.emitted_at!)) / 1000)} s: attempt=${failed.attempt} reason=${failed.reason}`,
      );
    }
  }, 1_500_000);

  afterAll(async () => {
    await sink?.close();
    await stopStack(stack);
  });

  it.each([
    ['fail-500', '/500', /answered 500/],
    ['fail-429', '/429', /answered 429/],
    ['fail-hang', '/hang', /timeout|aborted/i],
  ])(
    '%s: %s attempts, all with the same id and Idempotency-Key, then FAILED; later slots handed off',
    (id, path, reason) => {
      const { description, failed } = results.get(id)!;
      const deliveries = sink.of(failed.occurrence_id);
      expect(deliveries).toHaveLength(MAX_ATTEMPTS);
      for (const d of deliveries) {
        expect(d.path).toBe(path);
        expect(d.id).toBe(failed.occurrence_id);
        expect(d.key).toBe(failed.idempotency_key);
      }
      // Bounded exponential backoff: the gaps grow.
      const gaps = deliveries.slice(1).map((d, i) => d.at - deliveries[i]!.at);
      expect(gaps.at(-1)!).toBeGreaterThan(gaps[0]!);
      expect(failed.reason).toMatch(/^handoff failed: /);
      expect(failed.reason).toMatch(reason);
      expect(description.schedule.status).toBe('ACTIVE');
      expect(description.counters.failed).toBeGreaterThanOrEqual(1);
      // The schedule went on while the first occurrence was being retried.
      const later = description.recent_occurrences.filter(
        (o) => o.status === 'HANDED_OFF' && Date.parse(o.scheduled_for) > Date.parse(failed.scheduled_for),
      );
      expect(later.length).toBeGreaterThanOrEqual(3);
      for (const o of later) expect(sink.of(o.occurrence_id)).toHaveLength(1);
    },
  );

  it('refused connections: FAILED after the retries, the schedule still active and emitting its next slots', () => {
    const { description, failed } = results.get('fail-refused')!;
    expect(failed.reason).toMatch(/^handoff failed: POST http:\/\/127\.0\.0\.1:\d+\/refused failed/);
    expect(description.schedule.status).toBe('ACTIVE');
    const later = description.recent_occurrences.filter(
      (o) => o.emitted_at !== null && Date.parse(o.scheduled_for) > Date.parse(failed.scheduled_for),
    );
    expect(later.length).toBeGreaterThanOrEqual(3);
    for (const o of later) expect(['DISPATCHING', 'FAILED']).toContain(o.status);
  });
});
