// Metrics as an operator scrapes them: a worker-only product process (`SCHEDULER_ROLE=worker`, its own
// SCHEDULER_METRICS_PORT) and the API's /metrics, against a real dev server. The occurrence counters must
// equal what the schedules themselves counted — also after the worker was SIGKILLed and a new process
// replayed the histories (a counter in workflow code that counted on replay would show the old fires again).

import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../../scripts/toolchain.mjs';
import { KeyRing } from '../../src/api/auth.js';
import { createApiMetrics } from '../../src/api/http/metrics.js';
import { buildApi } from '../../src/api/http/server.js';
import { ScheduleSpec } from '../../src/model/contracts.js';
import { TenantPolicy } from '../../src/model/tenant-policy.js';
import { freePort } from '../../src/runtime/ports.js';
import { initialState } from '../../src/workflows/schedule/state.js';
import { startEventSink } from '../helpers/http-api.js';
import { type Spawned, spawnProcess } from '../helpers/process.js';
import { promSample } from '../helpers/product.js';
import { OPEN_TARGETS, writeTenantsFile } from '../helpers/tenants.js';
import {
  eventually,
  JOB_QUEUE,
  killHard,
  SCHEDULER_QUEUE,
  type Stack,
  startScheduleWorkflow,
  startStack,
  stopStack,
} from './support.js';

const KEY = 'key-acme-alice-0123456789';
/** How long a pause or resume may take to show: one read alone may use its 10 s deadline on a loaded machine. */
const SETTLE_MS = 30_000;
let stack: Stack;
let sink: Awaited<ReturnType<typeof startEventSink>>;
let metricsPort: number;
let api: Awaited<ReturnType<typeof buildApi>>;
let apiBase: string;

async function startProductWorker(): Promise<Spawned> {
  const worker = spawnProcess(
    process.execPath,
    ['--import', 'tsx', join(repoRoot, 'src/main.ts')],
    {
      ...process.env,
      SCHEDULER_ROLE: 'worker',
      TEMPORAL_ADDRESS: stack.server.address,
      TEMPORAL_TASK_QUEUE: SCHEDULER_QUEUE,
      SCHEDULER_JOB_TASK_QUEUE: JOB_QUEUE,
      SCHEDULER_METRICS_PORT: String(metricsPort),
      SCHEDULER_TENANTS_FILE: writeTenantsFile(stack.dir, { acme: OPEN_TARGETS }),
      SCHEDULER_DATA_DIR: join(stack.dir, 'data'),
    },
    repoRoot,
  );
  stack.processes.push(worker);
  await worker.waitFor(/ready; Ctrl-C/, 120_000);
  return worker;
}

const scrapeWorker = async () => await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();

beforeAll(async () => {
  stack = await startStack('metrics');
  sink = await startEventSink();
  metricsPort = await freePort();
  api = await buildApi({
    client: stack.client,
    taskQueue: SCHEDULER_QUEUE,
    jobTaskQueue: JOB_QUEUE,
    keys: () => KeyRing.fromConfig({ keys: `${KEY}=acme:alice` }),
    tenantPolicy: () => TenantPolicy.openToAll(),
    metrics: createApiMetrics({ client: stack.client, overdueAfterSeconds: 2, visibilityCacheMs: 0 }),
  });
  await api.listen({ port: 0, host: '127.0.0.1' });
  apiBase = `http://127.0.0.1:${(api.server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await api?.close();
  await sink?.close();
  await stopStack(stack);
});

describe('metrics', () => {
  it('an audit that finds decided slots with no record says UNEXPLAINED and counts them in scheduler_audit_unexplained_slots_total', async () => {
    // A ledger that lost its records cannot be produced on demand (it is the bug this detects): the schedule
    // is started directly with a state that has decided the last hour (its watermark is now) and holds no
    // record of it, as a ledger that dropped them would.
    const worker = await startProductWorker();
    const createdAt = new Date(Date.now() - 60 * 60_000).toISOString();
    const spec = ScheduleSpec.parse({
      timing: { kind: 'INTERVAL', every: 'PT10M' },
      target: { type: 'EVENT', event_type: 'tick', sink_url: sink.url },
    });
    const input = {
      identity: { schedule_id: 'lost-records', tenant_id: 'acme', owner_ref: 'alice' },
      spec,
      defaultJobTaskQueue: JOB_QUEUE,
    };
    const state = { ...initialState(input, createdAt), watermark: new Date().toISOString() };
    await startScheduleWorkflow(stack, {
      scheduleId: 'lost-records',
      spec,
      ownerRef: 'alice',
      createdAtMs: Date.parse(createdAt),
      state,
    } as never);
    const res = await fetch(
      `${apiBase}/v1/schedules/lost-records/audit?from=${encodeURIComponent(createdAt)}&to=${encodeURIComponent(new Date().toISOString())}`,
      {
        headers: { authorization: `Bearer ${KEY}` },
      },
    );
    expect(res.status).toBe(200);
    const audit = (await res.json()) as {
      counts: Record<string, number>;
      slots: Array<{ outcome: string; reason: string }>;
    };
    expect(audit.counts).toEqual({ UNEXPLAINED: 6 });
    expect(audit.slots[0]!.reason).toBe('decided, and no record of it');
    const scraped = await (await fetch(`${apiBase}/metrics`)).text();
    expect(promSample(scraped, 'scheduler_audit_unexplained_slots_total', { tenant: 'acme' })).toBe(6);
    await killHard(worker);
  });

  it('a worker-only process exports occurrence counters and lateness that match the schedule, across a restart', async () => {
    let worker = await startProductWorker();
    await stack.sdk.create({
      schedule_id: 'ticker',
      timing: { kind: 'INTERVAL', every: 'PT1S' },
      target: { type: 'EVENT', event_type: 'tick', sink_url: sink.url },
    });
    await eventually(
      'three fires',
      async () => ((await stack.sdk.describe('ticker')).counters.fired >= 3 ? true : undefined),
      30_000,
    );
    await stack.sdk.pause('ticker');
    await eventually(
      'the pause',
      async () => ((await stack.sdk.get('ticker')).status === 'PAUSED' ? true : undefined),
      SETTLE_MS,
    );
    const before = (await stack.sdk.describe('ticker')).counters.fired;
    const labels = { tenant: 'acme', timing_kind: 'INTERVAL', trigger: 'SCHEDULE' };
    const first = await scrapeWorker();
    expect(promSample(first, 'scheduler_occurrences_fired_total', labels)).toBe(before);
    expect(promSample(first, 'scheduler_occurrence_lateness_seconds_count', labels)).toBe(before);
    // Everything a 1-second interval on an idle machine fires is within a minute of its slot.
    expect(promSample(first, 'scheduler_occurrence_lateness_seconds_bucket', { ...labels, le: '60' })).toBe(
      before,
    );
    // The SDK's own worker metrics are exported next to ours.
    expect(first).toMatch(/workflow_task_schedule_to_start_latency/);
    // The worker's tz check ran at start: no schedule is behind its own release (a UTC interval follows none).
    expect(first).toMatch(
      new RegExp(`^scheduler_schedules_behind_tz\\{[^}]*tz_version="${process.versions.tz}"`, 'm'),
    );
    expect(promSample(first, 'scheduler_schedules_behind_tz', { tz_version: process.versions.tz! })).toBe(0);

    // A crash: the next process replays the schedule's history; it counts only what it fires itself.
    await killHard(worker);
    worker = await startProductWorker();
    // The dead worker's sticky queue holds the schedule's next task for up to 30 s (src/worker.ts).
    await stack.sdk.resume('ticker');
    await eventually(
      'three more fires',
      async () => ((await stack.sdk.describe('ticker')).counters.fired >= before + 3 ? true : undefined),
      90_000,
    );
    await stack.sdk.pause('ticker');
    await eventually(
      'the pause',
      async () => ((await stack.sdk.get('ticker')).status === 'PAUSED' ? true : undefined),
      SETTLE_MS,
    );
    const after = (await stack.sdk.describe('ticker')).counters.fired;
    const second = await scrapeWorker();
    expect(promSample(second, 'scheduler_occurrences_fired_total', labels)).toBe(after - before);
    const ids = sink.events.map((e) => e.body.id);
    expect(new Set(ids).size).toBe(ids.length);

    // The API sees the schedules by tenant, kind and status, and what it rejected.
    const bad = await fetch(`${apiBase}/v1/schedules`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        timing: { kind: 'CRON', expression: '0 9 * * *', timezone: 'Mars/Olympus' },
        target: { type: 'JOB', job_type: 'x' },
      }),
    });
    expect(bad.status).toBe(422);
    await eventually(
      'the API gauges',
      async () => {
        const text = await (await fetch(`${apiBase}/metrics`)).text();
        const paused = promSample(text, 'scheduler_schedules', {
          tenant: 'acme',
          timing_kind: 'INTERVAL',
          status: 'PAUSED',
        });
        return paused === 1 ? text : undefined;
      },
      20_000,
    ).then((text) => {
      expect(promSample(text, 'scheduler_invalid_rules_rejected_total', { field: 'timing.timezone' })).toBe(
        1,
      );
      expect(
        promSample(text, 'scheduler_http_requests_total', { route: '/v1/schedules', status: '422' }),
      ).toBe(1);
    });

    // Overdue: an active schedule whose next run passed while no worker runs.
    await stack.sdk.resume('ticker');
    await eventually(
      'resumed',
      async () => ((await stack.sdk.get('ticker')).status === 'ACTIVE' ? true : undefined),
      SETTLE_MS,
    );
    await killHard(worker);
    await eventually(
      'the schedule to count as overdue',
      async () => {
        const text = await (await fetch(`${apiBase}/metrics`)).text();
        return promSample(text, 'scheduler_schedules_overdue') >= 1 ? true : undefined;
      },
      30_000,
    );
  });
});
