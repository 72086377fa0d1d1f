// EVENT sinks that misbehave (issue 10), on the dev server with the real worker process: a real HTTP sink
// in this process answers 500 and 429, holds a POST past the hand-off's timeout, refuses connections (a
// closed port that opens later), or answers 400. SPEC: transient failures are retried with backoff under
// the same idempotency key; a permanent error is recorded on the occurrence; the schedule goes on.
// (src/activities/handoff.ts: 5xx, 408, 429, timeouts and connection errors are transient; any other
// 4xx is permanent and fails the occurrence at once.) Retries until they are exhausted take minutes:
// that part runs in `npm run chaos` (test/chaos/event-sink-exhaustion.test.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Occurrence, ScheduleDescription } from '../../src/model/contracts.js';
import { idempotencyKey, scheduleWorkflowId } from '../../src/model/ids.js';
import { freePort } from '../../src/runtime/ports.js';
import { type Delivery, type FaultSink, startFaultSink } from './fault-sink.js';
import { eventually, type Stack, startStack, startWorker, stopStack } from './support.js';

/** Every delivery of an occurrence carries its ID as the CloudEvent id and its key as Idempotency-Key. */
function expectSameIdentity(deliveries: Delivery[], o: Occurrence) {
  for (const d of deliveries) {
    expect(d.id).toBe(o.occurrence_id);
    expect(d.key).toBe(o.idempotency_key);
    expect(d.key).toBe(idempotencyKey(o.schedule_id, o.scheduled_for));
  }
}

async function occurrenceWith(
  stack: Stack,
  scheduleId: string,
  what: string,
  pick: (d: ScheduleDescription) => Occurrence | undefined,
  timeoutMs = 90_000,
): Promise<Occurrence> {
  return eventually(
    `${scheduleId}: ${what}`,
    async () => pick(await stack.sdk.describe(scheduleId)),
    timeoutMs,
  );
}

describe('EVENT sinks that fail: retried under the same key, failures recorded, the schedule goes on', () => {
  let stack: Stack;
  let sink: FaultSink;
  /** The sink that comes up late on the port the `refused` schedule was refused on. */
  let lateSink: FaultSink | undefined;
  let refusedPort = 0;

  beforeAll(async () => {
    stack = await startStack('sink-faults');
    sink = await startFaultSink((d, earlier) => {
      switch (d.path) {
        case '/flaky': // 500, then 429, then accepted: for every occurrence
          return earlier.length === 0 ? 500 : earlier.length === 1 ? 429 : 200;
        case '/hang': // the first delivery of the schedule is held past the POST timeout, never answered
          return sink.deliveries.filter((x) => x.path === '/hang').length === 1 ? 'hang' : 200;
        case '/bad':
          return 400;
        default:
          return 200;
      }
    });
    refusedPort = await freePort(); // nothing listens on it (yet): connections are refused

    await startWorker(stack);
    const every = { kind: 'INTERVAL' as const, every: 'PT6S' };
    const event = (path: string, url = sink.url(path)) => ({
      type: 'EVENT' as const,
      event_type: `test.${path.slice(1)}`,
      sink_url: url,
    });
    await stack.sdk.create({ schedule_id: 'flaky', target: event('/flaky'), timing: every });
    await stack.sdk.create({ schedule_id: 'hang', target: event('/hang'), timing: every });
    await stack.sdk.create({ schedule_id: 'bad', target: event('/bad'), timing: every });
    await stack.sdk.create({
      schedule_id: 'refused',
      target: event('/late', `http://127.0.0.1:${refusedPort}/late`),
      timing: every,
    });
  });

  afterAll(async () => {
    await lateSink?.close();
    await sink?.close();
    await stopStack(stack);
  });

  it('500 then 429: retried under the same id and Idempotency-Key, then handed off; later slots too', async () => {
    const o = await occurrenceWith(stack, 'flaky', 'two occurrences handed off', (d) => {
      const done = d.recent_occurrences.filter((x) => x.status === 'HANDED_OFF');
      return done.length >= 2 ? done[0] : undefined;
    });
    const deliveries = sink.of(o.occurrence_id);
    expect(deliveries).toHaveLength(3);
    expectSameIdentity(deliveries, o);
    expect(o.attempt).toBe(3);
    // Backoff, not a busy loop: the retries are at least the initial interval (1 s) apart.
    expect(deliveries[1]!.at - deliveries[0]!.at).toBeGreaterThanOrEqual(900);
  });

  it('a POST held past the timeout is abandoned and sent again with the same key; the schedule went on meanwhile', async () => {
    const o = await occurrenceWith(stack, 'hang', 'the held occurrence handed off', (d) => {
      const first = d.recent_occurrences.find((x) => x.emitted_at !== null);
      return first?.status === 'HANDED_OFF' ? first : undefined;
    });
    const deliveries = sink.of(o.occurrence_id);
    expect(deliveries).toHaveLength(2);
    expectSameIdentity(deliveries, o);
    expect(o.attempt).toBe(2);
    // Sent again only after the POST's own timeout (15 s in src/activities/handoff.ts) gave up on it.
    expect(deliveries[1]!.at - deliveries[0]!.at).toBeGreaterThanOrEqual(15_000);
    // While it hung, the next slots were delivered (overlap ALLOW: hand-offs do not wait for each other).
    const during = sink.deliveries.filter(
      (d) => d.path === '/hang' && d.id !== o.occurrence_id && d.at < deliveries[1]!.at,
    );
    expect(during.length).toBeGreaterThanOrEqual(1);
  });

  it('connection refused: retried until the sink is up, then delivered once with the same key', async () => {
    const first = await occurrenceWith(stack, 'refused', 'a hand-off under way', (d) =>
      d.recent_occurrences.find((x) => x.status === 'DISPATCHING'),
    );
    // Attempts 1 and 2 (at least) are refused: the schedule's hand-off is pending at attempt 3 or later.
    // (The oldest pending hand-off, which is `first`'s: attempts grow with age on one backoff.)
    const schedule = stack.client.workflow.getHandle(scheduleWorkflowId('acme', 'refused'));
    await eventually(
      'the refused hand-off to be retried twice',
      async () => {
        const { raw } = await schedule.describe();
        return raw.pendingActivities?.some((a) => a.activityType?.name === 'handOff' && (a.attempt ?? 0) >= 3)
          ? true
          : undefined;
      },
      60_000,
      100,
    );
    lateSink = await startFaultSink(() => 200, refusedPort);
    const o = await occurrenceWith(stack, 'refused', 'the refused occurrence handed off', (d) => {
      const x = d.recent_occurrences.find((y) => y.occurrence_id === first.occurrence_id);
      return x?.status === 'HANDED_OFF' ? x : undefined;
    });
    expect(o.attempt).toBeGreaterThanOrEqual(3);
    const deliveries = lateSink.of(o.occurrence_id);
    expect(deliveries).toHaveLength(1); // the refused attempts never reached it
    expectSameIdentity(deliveries, o);
  });

  it('400: a permanent failure, recorded on the occurrence after one attempt; the next slots still fire', async () => {
    const d = await eventually(
      'bad: two occurrences failed',
      async () => {
        const x = await stack.sdk.describe('bad');
        return x.recent_occurrences.filter((o) => o.status === 'FAILED').length >= 2 ? x : undefined;
      },
      90_000,
    );
    const failed = d.recent_occurrences.filter((o) => o.status === 'FAILED');
    for (const o of failed) {
      expect(o.reason).toMatch(/answered 400/);
      const deliveries = sink.of(o.occurrence_id);
      expect(deliveries).toHaveLength(1); // not retried
      expectSameIdentity(deliveries, o);
    }
    expect(d.schedule.status).toBe('ACTIVE');
    expect(d.counters.failed).toBeGreaterThanOrEqual(2);
    expect(Date.parse(d.schedule.next_run_at!)).toBeGreaterThan(Date.parse(failed.at(-1)!.scheduled_for));
  });
});
