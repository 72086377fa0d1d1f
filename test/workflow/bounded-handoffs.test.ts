// A schedule's hand-offs in flight are bounded (patch v0.5.1-bounded-handoffs, issue #20): by the tenant's
// `quotas.max_handoffs_in_flight` and by what fits one workflow task with the schedule's payload. A
// backfill hands its slots off in chunks, each in its own workflow task; a slow sink holds at most the
// bound. Real worker and activities on the time-skipping server, a real HTTP sink in this process.
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_DELIVERIES_PER_TENANT_HOST } from '../../src/activities/event-delivery.js';
import type { SchedulerClient } from '../../src/api/client.js';
import { ScheduleSpec, type ScheduleSpecInput } from '../../src/model/contracts.js';
import { scheduleWorkflowId } from '../../src/model/ids.js';
import { TenantPolicy } from '../../src/model/tenant-policy.js';
import { ownerRevokedSignal, SCHEDULE_WORKFLOW_TYPE } from '../../src/workflows/definitions.js';
import { handoffBound } from '../../src/workflows/policy.js';
import { handOffsPerTask, historiesOfEveryRun } from '../helpers/history.js';
import {
  JOB_QUEUE,
  policyTellingHandoffBound,
  SCHEDULER_QUEUE,
  SchedulerHarness,
} from '../helpers/scheduler-harness.js';
import { type FaultSink, startFaultSink } from '../integration/fault-sink.js';
import { eventually } from '../integration/support.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/** A policy letting acme POST to `sink`, with `max_handoffs_in_flight` when given. */
const sinkPolicy = (sink: FaultSink, maxInFlight?: number) =>
  TenantPolicy.fromTenants({
    acme: {
      event_sinks: [{ url: sink.url('/'), private: true }],
      ...(maxInFlight !== undefined ? { quotas: { max_handoffs_in_flight: maxInFlight } } : {}),
    },
  });

/** A gate the sink's answers wait on. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((r) => {
    open = r;
  });
  return { open, opened };
}

describe('hand-offs in flight are bounded per schedule (time-skipping server)', () => {
  let h: SchedulerHarness | undefined;
  let sink: FaultSink | undefined;
  afterEach(async () => {
    await sink?.close();
    await h?.teardown();
    sink = undefined;
    h = undefined;
  });

  /** The harness with `workerPolicy` at hand-off, and an SDK of acme that tells new schedules `sdkQuota`. */
  async function start(workerPolicy: TenantPolicy, sdkQuota?: number) {
    h = await SchedulerHarness.start({ tenantPolicy: () => workerPolicy });
    // In an hour's last 20 minutes, skip (server time, free: nothing runs yet) to half past the next one: the
    // hourly schedules' own next slot cannot come due while the test runs, so every delivery, hand-off and
    // fire counted is a backfilled slot's (created in an hour's last seconds, one more was delivered).
    const toNextHour = HOUR - ((await h.now()) % HOUR);
    if (toNextHour < 20 * MINUTE) await h.env.sleep(toNextHour + 30 * MINUTE);
    const sdkPolicy = policyTellingHandoffBound(sdkQuota);
    return { harness: h, sdk: h.sdk('acme', 'ops', { tenantPolicy: () => sdkPolicy }) };
  }

  /** An hourly schedule POSTing to the sink; a backfill of the last `hours` hours covers `hours` slots. */
  async function hourlyToSink(sdk: SchedulerClient, scheduleId: string, payload?: Record<string, unknown>) {
    const spec = {
      timing: { kind: 'CRON', expression: '0 * * * *', timezone: 'UTC' },
      target: {
        type: 'EVENT',
        event_type: 'report.due',
        sink_url: sink!.url(`/${scheduleId}`),
        ...(payload ? { payload } : {}),
      },
    } satisfies ScheduleSpecInput;
    if (!payload) {
      await sdk.create({ schedule_id: scheduleId, ...spec });
      return;
    }
    // Larger than the API's 16 KiB cap: a schedule stored before the cap, started past the API.
    await h!.env.client.workflow.start(SCHEDULE_WORKFLOW_TYPE, {
      taskQueue: SCHEDULER_QUEUE,
      workflowId: scheduleWorkflowId('acme', scheduleId),
      args: [
        {
          identity: { schedule_id: scheduleId, tenant_id: 'acme', owner_ref: 'ops' },
          spec: ScheduleSpec.parse(spec),
          createdAt: new Date(await h!.now()).toISOString(),
          defaultJobTaskQueue: JOB_QUEUE,
        },
      ],
    });
  }

  const lastHours = async (hours: number) => {
    const now = await h!.now();
    const to = Math.floor(now / HOUR) * HOUR - 1000;
    return { from: new Date(to - hours * HOUR).toISOString(), to: new Date(to).toISOString() };
  };

  const deliveredIds = (scheduleId: string) =>
    new Set(sink!.deliveries.filter((d) => d.path === `/${scheduleId}`).map((d) => d.id));

  /** Every run's events (a large payload fills a history soon: the run continues as new). */
  const history = (scheduleId: string) =>
    historiesOfEveryRun((runId) =>
      h!.env.client.workflow.getHandle(scheduleWorkflowId('acme', scheduleId), runId),
    );

  it("a backfill goes out in chunks of the tenant's max_handoffs_in_flight, each in its own workflow task", async () => {
    sink = await startFaultSink(() => ({ status: 200, afterMs: 100 }));
    const { sdk } = await start(sinkPolicy(sink, 3), 3);
    await hourlyToSink(sdk, 'quota-3');
    const result = await sdk.backfill('quota-3', await lastHours(12));
    expect(result.emitted).toHaveLength(12);

    await eventually('12 deliveries', async () => deliveredIds('quota-3').size === 12 || undefined, 60_000);
    expect(sink.maxConcurrent()).toBeLessThanOrEqual(3);
    const chunks = handOffsPerTask(await history('quota-3'));
    // The backfill's own task started 3, never all 12; no later task more than 3.
    expect(chunks[0]).toBe(3);
    expect(Math.max(...chunks)).toBeLessThanOrEqual(3);
    expect(chunks.reduce((a, b) => a + b, 0)).toBe(12);
    await eventually(
      'every backfilled occurrence handed off',
      async () => {
        const d = await sdk.describe('quota-3');
        return d.counters.fired === 12 && d.running.length === 0 ? d : undefined;
      },
      30_000,
    );
  });

  it('a large payload lowers the bound to what fits one workflow task (60 KB: 16 at once)', async () => {
    sink = await startFaultSink(() => ({ status: 200, afterMs: 50 }));
    // No quota told (the development policy): only the payload bounds it.
    const { sdk } = await start(TenantPolicy.openToAll());
    await hourlyToSink(sdk, 'big-payload', { blob: 'x'.repeat(60_000) });
    const result = await sdk.backfill('big-payload', await lastHours(40));
    expect(result.emitted).toHaveLength(40);

    await eventually(
      '40 deliveries',
      async () => deliveredIds('big-payload').size === 40 || undefined,
      60_000,
    );
    expect(sink.maxConcurrent()).toBeLessThanOrEqual(16);
    const chunks = handOffsPerTask(await history('big-payload'));
    expect(chunks[0]).toBe(16);
    expect(Math.max(...chunks)).toBeLessThanOrEqual(16);
    for (const d of sink.deliveries) expect((d.data.payload as { blob: string }).blob).toHaveLength(60_000);
  });

  it("a backfill's payload override bounds its hand-offs as a definition's payload would (16 KB: 58 at once)", async () => {
    sink = await startFaultSink(() => ({ status: 200, afterMs: 20 }));
    const { sdk } = await start(TenantPolicy.openToAll());
    await hourlyToSink(sdk, 'big-override');
    const override = { payload: { blob: 'y'.repeat(16_000) } };
    const bound = handoffBound(null, JSON.stringify(override.payload).length);
    expect(bound).toBe(58);
    const result = await sdk.backfill('big-override', { ...(await lastHours(80)), override });
    expect(result.emitted).toHaveLength(80);
    await eventually(
      '80 deliveries',
      async () => deliveredIds('big-override').size === 80 || undefined,
      60_000,
    );
    const chunks = handOffsPerTask(await history('big-override'));
    expect(chunks[0]).toBe(bound);
    expect(Math.max(...chunks)).toBeLessThanOrEqual(bound);
    for (const d of sink.deliveries) expect((d.data.payload as { blob: string }).blob).toHaveLength(16_000);
  });

  it('a quota lowered in the policy reaches the running schedule with its next hand-off results', async () => {
    const held = gate();
    sink = await startFaultSink(() => ({ status: 200, until: held.opened }));
    // Created when the quota was 6; the worker's policy says 2 now.
    const { sdk } = await start(sinkPolicy(sink, 2), 6);
    await hourlyToSink(sdk, 'lowered');
    await sdk.backfill('lowered', await lastHours(14));
    await eventually('6 held at the sink', async () => sink!.deliveries.length === 6 || undefined, 30_000);
    held.open();
    await eventually('14 deliveries', async () => deliveredIds('lowered').size === 14 || undefined, 60_000);
    const chunks = handOffsPerTask(await history('lowered'));
    expect(chunks[0]).toBe(6);
    expect(Math.max(...chunks.slice(1))).toBeLessThanOrEqual(2);
  });

  it('occurrences waiting for room are cancelled with the schedule, and refused once its owner is revoked', async () => {
    const held = gate();
    sink = await startFaultSink(() => ({ status: 200, until: held.opened }));
    const { sdk, harness } = await start(sinkPolicy(sink, 2), 2);

    await hourlyToSink(sdk, 'cancelled');
    await sdk.backfill('cancelled', await lastHours(8));
    await eventually('2 held', async () => deliveredIds('cancelled').size === 2 || undefined, 30_000);
    const afterCancel = await sdk.cancel('cancelled');
    const cancelled = afterCancel.recent_occurrences.filter((o) => o.status === 'CANCELLED');
    expect(cancelled).toHaveLength(6);
    for (const o of cancelled) expect(o.reason).toBe('schedule cancelled before the occurrence ran');

    await hourlyToSink(sdk, 'revoked');
    await sdk.backfill('revoked', await lastHours(8));
    await eventually('2 more held', async () => deliveredIds('revoked').size === 2 || undefined, 30_000);
    await harness.env.client.workflow
      .getHandle(scheduleWorkflowId('acme', 'revoked'))
      .signal(ownerRevokedSignal, { reason: 'owner acme/ops has no API key any more (test)' });
    // The revocation is applied by the loop: wait until describe shows it, then let the held two finish.
    await eventually(
      'revocation applied',
      async () => (await sdk.describe('revoked')).schedule.owner_revoked_at ?? undefined,
      30_000,
    );
    held.open();
    const settled = await eventually(
      'waiting occurrences refused',
      async () => {
        const d = await sdk.describe('revoked');
        const refused = d.recent_occurrences.filter((o) => o.status === 'SKIPPED');
        return refused.length === 6 && d.running.length === 0 ? d : undefined;
      },
      30_000,
    );
    for (const o of settled.recent_occurrences.filter((x) => x.status === 'SKIPPED'))
      expect(o.reason).toContain('refused: owner acme/ops has no API key any more');
    expect(deliveredIds('revoked').size).toBe(2);
    expect(deliveredIds('cancelled').size).toBe(2);
  });

  it("a sink that hangs holds its own schedule's bound, not the worker: another tenant's hand-offs go on", async () => {
    const held = gate();
    sink = await startFaultSink((d) => (d.path === '/tarpit' ? { status: 200, until: held.opened } : 200));
    const sinks = [{ url: sink.url('/'), private: true }];
    const policy = TenantPolicy.fromTenants({
      acme: { event_sinks: sinks, quotas: { max_handoffs_in_flight: 20 } },
      beta: { event_sinks: sinks },
    });
    const { sdk, harness } = await start(policy, 20);
    const beta = harness.sdk('beta');
    // 300 slots to a sink that never answers: more than the worker's 100 activity slots.
    await hourlyToSink(sdk, 'tarpit');
    await sdk.backfill('tarpit', await lastHours(300));
    // Two bounds hold it: the schedule's 20 in flight, and the worker's deliveries per tenant and host (8,
    // src/activities/event-delivery.ts), the tighter one here: the rest wait in acme's line, not the worker's.
    const heldAtOnce = Math.min(20, MAX_DELIVERIES_PER_TENANT_HOST);
    await eventually(
      `${heldAtOnce} held by the tarpit`,
      async () => deliveredIds('tarpit').size >= heldAtOnce || undefined,
      30_000,
    );

    await hourlyToSink(beta, 'neighbour');
    for (let i = 0; i < 5; i++)
      await beta.triggerNow('neighbour', { scheduled_for: new Date(Date.UTC(2026, 0, 1, i)).toISOString() });
    await eventually(
      'the neighbour handed off',
      async () => deliveredIds('neighbour').size === 5 || undefined,
      30_000,
    );
    // Meanwhile the tarpit holds its bound and no more (a POST past its 15 s timeout is retried: the same IDs).
    expect(deliveredIds('tarpit').size).toBe(heldAtOnce);
    expect(sink.maxConcurrent()).toBeLessThanOrEqual(heldAtOnce + 5);
    held.open();
  });
});
