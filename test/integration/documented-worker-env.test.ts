// What docs/configuration.md and docs/operations.md "Metrics" promise of the product's own processes,
// driven as an operator drives them: environment variables on `src/main.ts` processes (SCHEDULER_ROLE=api /
// worker) against one dev server, schedules through the HTTP API, and the worker's /metrics scraped as Prometheus text.
//   - SCHEDULER_START_ASLEEP=off: a far-off schedule's first workflow task runs at creation;
//   - SCHEDULER_ARM_LEAD_S: when a recurring ALLOW job is armed, and a pause inside the lead disarms it;
//   - SCHEDULER_ARM_AHEAD_S: every slot within it armed at once, and a cancel takes them all back;
//   - the occurrence counters (disarmed, caught up, skipped, expired, failed, duplicates prevented);
//   - SCHEDULER_TZ_REFRESH off / notify / recompute and the worker's periodic tz check
//     (SCHEDULER_TZ_CHECK_INTERVAL_S at its minimum, 10 s).
// One worker process runs every schedule; the tz workers poll a queue of their own, so their only effect
// on schedules is their tz check, and the tests run concurrently.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SchedulerClient } from '../../src/api/client.js';
import { amendedHolidaySource } from '../../src/calendar/business-days.js';
import { dateHolidaysSource, HOLIDAY_DATA_VERSION } from '../../src/calendar/holiday-data.js';
import { amendedZoneRules, useRuntimeZoneRules, useZoneRules, zoneRules } from '../../src/calendar/index.js';
import { armAtMs } from '../../src/model/arming.js';
import { scheduleWorkflowId } from '../../src/model/ids.js';
import { useHolidaySource } from '../../src/model/slots.js';
import { hourHalfADayAway } from '../helpers/clock.js';
import { type ProductWorker, promSample, startProductWorker } from '../helpers/product.js';
import { OPEN_TARGETS, writeTenantsFile } from '../helpers/tenants.js';
import {
  type ApiProcess,
  eventually,
  JOB_QUEUE,
  SCHEDULER_QUEUE,
  type Stack,
  startApiProcess,
  startStack,
  stopStack,
} from './support.js';

const ARM_LEAD_S = 20;
const ARM_AHEAD_S = 90;
const TZ_CHECK_INTERVAL_S = 10;
/** The tz release the behind schedules were computed with: older than any Node's. */
const OLD_TZ = '2000a';
const RUNTIME_TZ = zoneRules().version;
// One tenant per counter scenario: the counters' labels are tenant, timing kind and trigger, so each
// scenario's counts are its own.
const TENANTS = ['acme', 'skipper', 'catcher', 'dup', 'failer', 'ahead'] as const;
const keyOf = (tenant: string) => `documented-env-${tenant}-0123456789abcdef`;

let stack: Stack;
let api: ApiProcess;
let worker: ProductWorker;
let sink: { url: (status: number) => string; received: string[]; close(): Promise<void> };

/** An EVENT sink answering each POST with the status its path names (`/204`, `/208`, `/400`). */
async function startStatusSink(): Promise<typeof sink> {
  const received: string[] = [];
  const server: Server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      received.push(request.url ?? '');
      response.writeHead(Number(request.url?.slice(1))).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (status) => `http://127.0.0.1:${port}/${status}`,
    received,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

beforeAll(async () => {
  stack = await startStack('documented-env');
  sink = await startStatusSink();
  const tenantsFile = writeTenantsFile(stack.dir, Object.fromEntries(TENANTS.map((t) => [t, OPEN_TARGETS])));
  [api, worker] = await Promise.all([
    startApiProcess(stack, TENANTS.map((t) => `${keyOf(t)}=${t}:ops`).join(','), {
      SCHEDULER_ARM_LEAD_S: String(ARM_LEAD_S),
      // The lead alone (arming ahead: its own API process below).
      SCHEDULER_ARM_AHEAD_S: '0',
      SCHEDULER_START_ASLEEP: 'off',
    }),
    // Not the tz tests' subject: off, so that it never touches their schedules.
    startProductWorker(
      stack,
      { SCHEDULER_TENANTS_FILE: tenantsFile, SCHEDULER_TZ_REFRESH: 'off' },
      { metrics: true },
    ),
  ]);
});
afterAll(async () => {
  useRuntimeZoneRules();
  await sink?.close();
  await stopStack(stack);
});

const as = (tenant: (typeof TENANTS)[number]) => ({
  call: (method: string, path: string, body?: unknown) =>
    api.call(method, path, { key: keyOf(tenant), ...(body === undefined ? {} : { body }) }),
});
const handle = (tenant: string, id: string) =>
  stack.client.workflow.getHandle(scheduleWorkflowId(tenant, id));
const describeOf = async (tenant: (typeof TENANTS)[number], id: string) => {
  const answer = await as(tenant).call('GET', `/v1/schedules/${id}/describe`);
  expect(answer.status).toBe(200);
  return answer.body;
};
const sleepUntil = (at: number) => new Promise((r) => setTimeout(r, Math.max(0, at - Date.now())));
/**
 * Tenant acme's client straight on Temporal, creating schedules awake: the refresh tests create with older
 * calendar data installed in this process, as an API deployed before the upgrade would.
 */
const awakeClientOfAcme = () =>
  new SchedulerClient({
    client: stack.client,
    taskQueue: SCHEDULER_QUEUE,
    jobTaskQueue: JOB_QUEUE,
    principal: { tenant_id: 'acme', owner_ref: 'ops' },
    startAsleep: false,
  });
/**
 * A worker polling a task queue of its own, so that it acts on schedules only through its calendar data
 * checks, at the shortest check interval.
 */
const checksOnlyWorker = (taskQueue: string, env: Record<string, string>) =>
  startProductWorker(
    stack,
    { TEMPORAL_TASK_QUEUE: taskQueue, SCHEDULER_TZ_CHECK_INTERVAL_S: String(TZ_CHECK_INTERVAL_S), ...env },
    { metrics: true },
  );

describe('documented environment of the product processes', () => {
  it.concurrent('SCHEDULER_START_ASLEEP=off: a schedule six hours off runs its first task at creation', async () => {
    const created = await as('acme').call('POST', '/v1/schedules', {
      schedule_id: 'far-off',
      timing: { kind: 'INTERVAL', every: 'PT6H' },
      target: { type: 'JOB', job_type: 'fileRecordedJob' },
    });
    expect(created.status).toBe(201);
    // Read past the API: a read through it would wake an asleep schedule itself.
    const started = await handle('acme', 'far-off').describe();
    // Asleep (the default) it would begin a margin and the lead before its first run, six hours on.
    expect(started.executionTime?.getTime() ?? started.startTime.getTime()).toBe(started.startTime.getTime());
    const events = await eventually(
      'its first workflow task',
      async () => {
        const events = (await handle('acme', 'far-off').fetchHistory()).events ?? [];
        return events.some((e) => e.workflowTaskCompletedEventAttributes) ? events : undefined;
      },
      30_000,
    );
    // Nothing woke it: no update (a read's `wake`) reached it.
    expect(events.filter((e) => e.workflowExecutionUpdateAcceptedEventAttributes)).toEqual([]);
  });

  it.concurrent('SCHEDULER_ARM_LEAD_S: a recurring job is armed within that lead of its slot, and a pause disarms it', async () => {
    const id = 'armed-lead';
    const created = await as('acme').call('POST', '/v1/schedules', {
      schedule_id: id,
      timing: { kind: 'INTERVAL', every: 'PT40S' },
      // Nobody polls the job queue: the job is taken back before its instant.
      target: { type: 'JOB', job_type: 'fileRecordedJob' },
    });
    expect(created.status).toBe(201);
    const slotMs = Date.parse(created.body.next_run_at);
    const createdMs = Date.parse(created.body.created_at);
    // With the default 120 s lead it would arm at creation (its slot is 40 s away); with 0, at the slot.
    const armAt = armAtMs(slotMs, ARM_LEAD_S * 1000, id);
    expect(armAt - createdMs).toBeGreaterThanOrEqual(15_000);
    const armed = await eventually(
      'the first slot armed',
      async () => {
        const { body } = await as('acme').call('GET', `/v1/schedules/${id}/occurrences?limit=5`);
        return body.items.find((o: { status: string }) => o.status === 'ARMED');
      },
      slotMs - Date.now(),
      500,
    );
    const emittedMs = Date.parse(armed.emitted_at);
    expect(emittedMs).toBeGreaterThanOrEqual(armAt - 1_000);
    expect(emittedMs).toBeLessThan(armAt + 8_000);
    // The job is with the server already, to begin at the slot's instant.
    const job = await stack.client.workflow.getHandle(armed.target_ref).describe();
    expect(Math.abs((job.executionTime?.getTime() ?? 0) - slotMs)).toBeLessThan(1_000);
    expect(job.status.name).toBe('RUNNING');

    // A pause more than the guard (5 s) before the instant takes the job back.
    expect(slotMs - Date.now()).toBeGreaterThan(6_000);
    const paused = await as('acme').call('POST', `/v1/schedules/${id}/pause`, { note: 'not yet' });
    expect(paused.status).toBe(200);
    await eventually(
      'the job terminated before it began',
      async () => {
        const status = (await stack.client.workflow.getHandle(armed.target_ref).describe()).status.name;
        return status === 'TERMINATED' ? status : undefined;
      },
      20_000,
    );
    const metrics = await eventually(
      'the disarm counted',
      async () => {
        const text = await worker.scrape();
        return promSample(text, 'scheduler_occurrences_disarmed_total', { tenant: 'acme' }) > 0
          ? text
          : undefined;
      },
      20_000,
    );
    const labels = { tenant: 'acme', timing_kind: 'INTERVAL', trigger: 'SCHEDULE' };
    expect(promSample(metrics, 'scheduler_occurrences_disarmed_total', labels)).toBe(1);
    // Counted fired when armed: fired − disarmed is what ran, the schedule's own count.
    expect(promSample(metrics, 'scheduler_occurrences_fired_total', labels)).toBe(1);
    expect((await describeOf('acme', id)).counters.fired).toBe(0);
  });

  it.concurrent('SCHEDULER_ARM_AHEAD_S: every slot within it is armed at once, and a cancel takes them all back', async () => {
    // Tenant `ahead`: its disarms are not acme's, whose counters the lead test reads.
    const aheadApi = await startApiProcess(stack, `${keyOf('ahead')}=ahead:ops`, {
      SCHEDULER_ARM_LEAD_S: String(ARM_LEAD_S),
      SCHEDULER_ARM_AHEAD_S: String(ARM_AHEAD_S),
      SCHEDULER_START_ASLEEP: 'off',
    });
    const call = (method: string, path: string, body?: unknown) =>
      aheadApi.call(method, path, { key: keyOf('ahead'), ...(body === undefined ? {} : { body }) });
    const id = 'armed-ahead';
    const created = await call('POST', '/v1/schedules', {
      schedule_id: id,
      timing: { kind: 'INTERVAL', every: 'PT15S' },
      // Nobody polls the job queue: what the cancel does not take back waits there, unbegun.
      target: { type: 'JOB', job_type: 'fileRecordedJob' },
    });
    expect(created.status).toBe(201);
    type Listed = { status: string; fire_at: string; emitted_at: string; target_ref: string };
    // Slots 15 s apart within 90 s: with the lead alone (20 s) at most two are ever armed at once.
    const armed = await eventually(
      'four slots armed at once',
      async () => {
        const { body } = await call('GET', `/v1/schedules/${id}/occurrences?limit=20`);
        const items = (body.items as Listed[]).filter((o) => o.status === 'ARMED');
        return items.length >= 4 ? items : undefined;
      },
      ARM_AHEAD_S * 1000,
      500,
    );
    expect(new Set(armed.map((o) => o.fire_at)).size).toBe(armed.length);
    const furthest = Math.max(...armed.map((o) => Date.parse(o.fire_at) - Date.parse(o.emitted_at)));
    expect(furthest).toBeGreaterThan(ARM_LEAD_S * 1000 + 15_000);
    expect(furthest).toBeLessThanOrEqual(ARM_AHEAD_S * 1000 + 1_000);
    for (const o of armed) {
      const job = await stack.client.workflow.getHandle(o.target_ref).describe();
      expect(Math.abs((job.executionTime?.getTime() ?? 0) - Date.parse(o.fire_at))).toBeLessThan(1_000);
    }

    const cancelledAt = Date.now();
    expect((await call('POST', `/v1/schedules/${id}/cancel`, { note: 'enough' })).status).toBe(200);
    // Every armed job more than the guard (5 s) away from its instant at the cancel is taken back.
    const takenBack = armed.filter((o) => Date.parse(o.fire_at) - cancelledAt > 10_000);
    expect(takenBack.length).toBeGreaterThanOrEqual(2);
    for (const o of takenBack) {
      const status = (await stack.client.workflow.getHandle(o.target_ref).describe()).status.name;
      expect(status).toBe('TERMINATED');
    }
  });

  it.concurrent('the occurrence counters on the worker’s /metrics match what the schedules did', async () => {
    // Three slots a second apart, five seconds on, passed while paused: late at resume by more than 1 s.
    const late = (misfire: string, extra: Record<string, unknown> = {}) => ({
      schedule_id: `late-${misfire.toLowerCase()}`,
      timing: { kind: 'INTERVAL', every: 'PT1S' },
      starts_at: new Date(Math.ceil(Date.now() / 1000) * 1000 + 5_000).toISOString(),
      max_count: 3,
      misfire,
      max_lateness_s: 1,
      target: { type: 'EVENT', event_type: 'late.tick', sink_url: sink.url(204) },
      ...extra,
    });
    const lateOnes = [
      { tenant: 'skipper', body: late('SKIP') },
      { tenant: 'catcher', body: late('CATCH_UP', { catch_up_limit: 1 }) },
    ] as const;
    let lastSlot = 0;
    for (const { tenant, body } of lateOnes) {
      expect((await as(tenant).call('POST', '/v1/schedules', body)).status).toBe(201);
      const paused = await as(tenant).call('POST', `/v1/schedules/${body.schedule_id}/pause`, {});
      expect(paused.status).toBe(200);
      const { next_runs, counters } = await describeOf(tenant, body.schedule_id);
      expect(next_runs).toHaveLength(3);
      expect(counters.fired).toBe(0);
      lastSlot = Math.max(lastSlot, Date.parse(next_runs[2].fire_at));
    }
    // A sink that says it had the event already, and one that refuses it for good.
    for (const [tenant, status] of [
      ['dup', 208],
      ['failer', 400],
    ] as const) {
      const body = {
        schedule_id: `sink-${status}`,
        timing: { kind: 'INTERVAL', every: 'PT1H' },
        target: { type: 'EVENT', event_type: 'manual.tick', sink_url: sink.url(status) },
      };
      expect((await as(tenant).call('POST', '/v1/schedules', body)).status).toBe(201);
      expect((await as(tenant).call('POST', `/v1/schedules/${body.schedule_id}/trigger`)).status).toBe(200);
    }

    await sleepUntil(lastSlot + 2_000);
    for (const { tenant, body } of lateOnes)
      expect((await as(tenant).call('POST', `/v1/schedules/${body.schedule_id}/resume`)).status).toBe(200);
    const settled = async (
      tenant: (typeof TENANTS)[number],
      id: string,
      done: (d: Awaited<ReturnType<typeof describeOf>>) => boolean,
    ) =>
      await eventually(
        `${id} settled`,
        async () => {
          const d = await describeOf(tenant, id);
          return done(d) ? d.counters : undefined;
        },
        30_000,
      );
    const counters = {
      skipper: await settled('skipper', 'late-skip', (d) => d.schedule.status === 'COMPLETED'),
      catcher: await settled('catcher', 'late-catch_up', (d) => d.schedule.status === 'COMPLETED'),
      dup: await settled('dup', 'sink-208', (d) => d.recent_occurrences[0]?.status === 'HANDED_OFF'),
      failer: await settled('failer', 'sink-400', (d) => d.recent_occurrences[0]?.status === 'FAILED'),
    };
    expect(counters.skipper).toMatchObject({ fired: 0, skipped: 3, caught_up: 0, expired: 0 });
    expect(counters.catcher).toMatchObject({ fired: 1, caught_up: 1, expired: 2, skipped: 0 });
    expect(counters.dup).toMatchObject({ fired: 1, duplicates_prevented: 1, failed: 0 });
    expect(counters.failer).toMatchObject({ fired: 1, failed: 1, duplicates_prevented: 0 });

    const text = await worker.scrape();
    const scheduled = (tenant: string) => ({ tenant, timing_kind: 'INTERVAL', trigger: 'SCHEDULE' });
    const manual = (tenant: string) => ({ tenant, timing_kind: 'INTERVAL', trigger: 'MANUAL' });
    expect({
      skipped: promSample(text, 'scheduler_occurrences_skipped_total', scheduled('skipper')),
      caught_up: promSample(text, 'scheduler_occurrences_caught_up_total', scheduled('catcher')),
      expired: promSample(text, 'scheduler_occurrences_expired_total', scheduled('catcher')),
      duplicates_prevented: promSample(text, 'scheduler_duplicates_prevented_total', manual('dup')),
      failed: promSample(text, 'scheduler_handoffs_failed_total', manual('failer')),
    }).toEqual({ skipped: 3, caught_up: 1, expired: 2, duplicates_prevented: 1, failed: 1 });
    // The caught-up slot went out once; the refusal (a 4xx) was not retried, nor the sink that had it.
    expect([...sink.received].sort()).toEqual(['/204', '/208', '/400']);
    // Nothing counted where nothing happened.
    for (const name of [
      'scheduler_occurrences_caught_up_total',
      'scheduler_occurrences_expired_total',
      'scheduler_handoffs_failed_total',
      'scheduler_duplicates_prevented_total',
    ])
      expect(promSample(text, name, { tenant: 'skipper' }), name).toBe(0);
  });

  it.concurrent('SCHEDULER_TZ_REFRESH: off leaves schedules behind the tz database alone, notify tells them at start and every SCHEDULER_TZ_CHECK_INTERVAL_S, recompute recomputes them', async () => {
    // Schedules whose slots an older tz database computed: created by this process with older rules
    // installed, as an API on an older Node would. Awake, so that a signal reaches them at once; at an
    // hour far from now, so that none fires.
    const sdk = awakeClientOfAcme();
    const hour = hourHalfADayAway('Europe/Riga');
    const createBehind = async (id: string) => {
      const previous = useZoneRules(amendedZoneRules(zoneRules(), OLD_TZ, []));
      try {
        await sdk.create({
          schedule_id: id,
          timing: { kind: 'CRON', expression: `0 ${hour} * * *`, timezone: 'Europe/Riga' },
          target: { type: 'JOB', job_type: 'fileRecordedJob' },
        });
      } finally {
        useZoneRules(previous);
      }
    };
    const tzOf = async (id: string) => (await describeOf('acme', id)).tz;
    // The holiday data check is the next test's.
    const tzWorker = (env: Record<string, string>) =>
      checksOnlyWorker('tz-watch-only', { SCHEDULER_HOLIDAY_REFRESH: 'off', ...env });
    const toldLines = (w: ProductWorker) => w.output().match(/schedules behind; told \d+/g) ?? [];

    await createBehind('tz-first');
    expect(await tzOf('tz-first')).toMatchObject({
      computed_with: [OLD_TZ],
      newer_seen: null,
      recomputes: 0,
    });

    // off: neither at start nor at the next check.
    const off = await tzWorker({ SCHEDULER_TZ_REFRESH: 'off' });
    await new Promise((r) => setTimeout(r, (TZ_CHECK_INTERVAL_S + 2) * 1000));
    expect(await tzOf('tz-first')).toMatchObject({
      computed_with: [OLD_TZ],
      newer_seen: null,
      recomputes: 0,
    });
    expect(off.output()).not.toMatch(/schedules behind/);
    await off.stop();

    // notify: the check at start tells the one behind...
    const notify = await tzWorker({ SCHEDULER_TZ_REFRESH: 'notify' });
    await eventually(
      'the check at start',
      async () => (toldLines(notify).length > 0 ? true : undefined),
      30_000,
    );
    expect(toldLines(notify)).toEqual(['schedules behind; told 1']);
    expect((await tzOf('tz-first')).newer_seen).toMatchObject({ version: RUNTIME_TZ });
    // ...and a schedule that falls behind later is told by the periodic check.
    await createBehind('tz-later');
    const later = await eventually(
      'the periodic check',
      async () => {
        const tz = await tzOf('tz-later');
        return tz.newer_seen ? tz : undefined;
      },
      (TZ_CHECK_INTERVAL_S + 20) * 1000,
      1_000,
    );
    // Told, not recomputed.
    expect(later).toMatchObject({
      computed_with: [OLD_TZ],
      newer_seen: { version: RUNTIME_TZ },
      recomputes: 0,
    });
    expect(toldLines(notify)).toEqual(['schedules behind; told 1', 'schedules behind; told 1']);
    expect(
      promSample(await notify.scrape(), 'scheduler_schedules_behind_tz', { tz_version: RUNTIME_TZ }),
    ).toBe(2);
    await notify.stop();

    // recompute (the default): both at its start.
    const recompute = await tzWorker({});
    await eventually(
      'both recomputed',
      async () => (/schedules behind; recomputed 2 /.test(recompute.output()) ? true : undefined),
      30_000,
    );
    for (const id of ['tz-first', 'tz-later'])
      expect(await tzOf(id), id).toMatchObject({
        computed_with: [RUNTIME_TZ],
        newer_seen: null,
        recomputes: 1,
      });
    await recompute.stop();
  });
  it.concurrent("SCHEDULER_HOLIDAY_REFRESH: notify tells the business-day schedules behind the worker's holiday data, recompute (the default) recomputes them", async () => {
    // A business-day schedule whose slots older holiday data decided: created by this process with an older
    // release installed, as an API deployed before the data upgrade would.
    const OLD_DATA = 'date-holidays@3.0.0';
    const sdk = awakeClientOfAcme();
    useHolidaySource(amendedHolidaySource(dateHolidaysSource(), OLD_DATA, []));
    try {
      await sdk.create({
        schedule_id: 'holidays-behind',
        timing: { kind: 'BUSINESS_DAY', period: 'MONTH', n: -1, time: '18:00', timezone: 'Europe/Riga' },
        business_days: { region: 'LV' },
        target: { type: 'JOB', job_type: 'fileRecordedJob' },
      });
    } finally {
      useHolidaySource();
    }
    const holidaysOf = async () => (await describeOf('acme', 'holidays-behind')).holidays;
    expect(await holidaysOf()).toMatchObject({ computed_with: [OLD_DATA], newer_seen: null });
    const dataWorker = (env: Record<string, string>) =>
      checksOnlyWorker('holiday-watch-only', { SCHEDULER_TZ_REFRESH: 'off', ...env });

    const notify = await dataWorker({ SCHEDULER_HOLIDAY_REFRESH: 'notify' });
    await eventually(
      'the holiday data check at start',
      async () =>
        notify.output().includes(`holiday data ${HOLIDAY_DATA_VERSION}: 1 schedules behind; told 1`) ||
        undefined,
      30_000,
    );
    expect((await holidaysOf()).newer_seen).toMatchObject({ version: HOLIDAY_DATA_VERSION });
    expect(
      promSample(await notify.scrape(), 'scheduler_schedules_behind_holiday_data', {
        holiday_data_version: HOLIDAY_DATA_VERSION,
      }),
    ).toBe(1);
    await notify.stop();

    const recompute = await dataWorker({});
    await eventually(
      'recomputed at start',
      async () =>
        /holiday data \S+: 1 schedules behind; recomputed 1 /.test(recompute.output()) ? true : undefined,
      30_000,
    );
    expect(await holidaysOf()).toMatchObject({ computed_with: [HOLIDAY_DATA_VERSION], newer_seen: null });
    await recompute.stop();
  });
});
