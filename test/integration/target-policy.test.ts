// Targets bound to their tenant (issue #19), tried as a hostile tenant holding one valid key: the product's
// own processes (`SCHEDULER_ROLE=api` and a worker-only `SCHEDULER_ROLE=worker`, src/main.ts) on a real dev
// server, one SCHEDULER_TENANTS_FILE both read, real local HTTP servers as sinks. The API refuses a target
// outside the policy with 403 naming its field; the worker refuses, at every hand-off and against the file
// as it is then, what the API never saw (schedules started before the policy, a policy edited since), and
// delivers events only to addresses it checked, never following a redirect.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../../scripts/toolchain.mjs';
import type { Occurrence } from '../../src/model/contracts.js';
import { freePort } from '../../src/runtime/ports.js';
import { type Spawned, spawnProcess } from '../helpers/process.js';
import { OPEN_QUOTAS, writeTenantsFile } from '../helpers/tenants.js';
import {
  eventually,
  SCHEDULER_QUEUE,
  type Stack,
  startScheduleWorkflow,
  startStack,
  stopStack,
} from './support.js';

const ACME = 'acme-key-0123456789abcdef0123';
const WIDE = 'wide-key-0123456789abcdef0123';
const LATE = 'late-key-0123456789abcdef0123';
const KEYS = `${ACME}=acme:alice,${WIDE}=wide:ops,${LATE}=late:ops`;
/** The worker's SCHEDULER_MISSING_TENANT_GRACE_S: its hand-off retries come at 0, 1, 3, 7, 15 and 31 s. */
const GRACE_S = 20;

interface CountingServer {
  url: string;
  port: number;
  /** Requests that reached the handler (a refused connection never does). */
  requests: Array<{ path: string; at: number; body: string }>;
  close(): Promise<void>;
}

/** A local HTTP server; `answer` decides each response (default 204). */
async function countingServer(
  answer: (res: import('node:http').ServerResponse) => void = (res) => res.writeHead(204).end(),
): Promise<CountingServer> {
  const requests: CountingServer['requests'] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      requests.push({ path: req.url ?? '', at: Date.now(), body });
      answer(res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    port,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

describe('targets bound to their tenant (real API and worker-only processes)', () => {
  const lateTargets = () => ({ event_sinks: [`${sink.url}late/`], quotas: OPEN_QUOTAS });
  let stack: Stack;
  let api: Spawned;
  let worker: Spawned;
  let apiBase: string;
  let metricsUrl: string;
  let policyFile: string;
  let sink: CountingServer;
  let redirected: CountingServer;
  let redirector: CountingServer;
  let named: CountingServer;
  let acmeTargets: Record<string, unknown>;

  beforeAll(async () => {
    stack = await startStack('target-policy-');
    sink = await countingServer();
    redirected = await countingServer();
    redirector = await countingServer((res) =>
      res.writeHead(302, { location: `${redirected.url}stolen` }).end(),
    );
    named = await countingServer();
    acmeTargets = {
      job_task_queues: ['acme-jobs', 'acme-batch-*'],
      job_types: ['report.*'],
      signal_workflow_ids: ['acme-orders/*'],
      event_sinks: [
        `${sink.url}hooks/`,
        `${redirector.url}hooks/`,
        // A hostname entry without "private": whatever it resolves to must be public.
        `http://localhost:${named.port}/`,
      ],
      // Its schedules fire every two seconds: below the default minimum interval.
      quotas: OPEN_QUOTAS,
    };
    policyFile = writeTenantsFile(stack.dir, {
      acme: acmeTargets,
      wide: { event_sinks: ['*'], quotas: OPEN_QUOTAS },
      late: lateTargets(),
    });
    const apiPort = await freePort();
    const metricsPort = await freePort();
    const env = {
      ...process.env,
      TEMPORAL_ADDRESS: stack.server.address,
      TEMPORAL_TASK_QUEUE: SCHEDULER_QUEUE,
      SCHEDULER_API_KEYS: KEYS,
      SCHEDULER_TENANTS_FILE: policyFile,
      SCHEDULER_LOG_LEVEL: 'warn',
    };
    api = spawnProcess(
      process.execPath,
      ['--import', 'tsx', join(repoRoot, 'src/main.ts')],
      {
        ...env,
        SCHEDULER_ROLE: 'api',
        SCHEDULER_API_PORT: String(apiPort),
        SCHEDULER_DATA_DIR: join(stack.dir, 'api'),
      },
      repoRoot,
    );
    // The worker-only process has no keys and no API: it reads the same file and enforces it itself.
    const { SCHEDULER_API_KEYS: _keys, ...workerEnv } = env;
    worker = spawnProcess(
      process.execPath,
      ['--import', 'tsx', join(repoRoot, 'src/main.ts')],
      {
        ...workerEnv,
        SCHEDULER_ROLE: 'worker',
        SCHEDULER_MISSING_TENANT_GRACE_S: String(GRACE_S),
        SCHEDULER_METRICS_PORT: String(metricsPort),
        SCHEDULER_DATA_DIR: join(stack.dir, 'worker'),
      },
      repoRoot,
    );
    stack.processes.push(api, worker);
    await Promise.all([api.waitFor(/ready; Ctrl-C/, 120_000), worker.waitFor(/ready; Ctrl-C/, 120_000)]);
    apiBase = `http://127.0.0.1:${apiPort}`;
    metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
  }, 240_000);

  afterAll(async () => {
    await stopStack(stack);
    await Promise.all([sink, redirected, redirector, named].map((s) => s?.close()));
  });

  const call = async (method: string, path: string, body?: unknown, key = ACME) => {
    const res = await fetch(`${apiBase}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${key}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    // biome-ignore lint/suspicious/noExplicitAny: problem and schedule bodies
    return { status: res.status, body: (text ? JSON.parse(text) : undefined) as any };
  };
  const everyTwoSeconds = { kind: 'INTERVAL', every: 'PT2S' } as const;
  const occurrences = (id: string) => stack.sdk.listOccurrences(id);
  /** Occurrences of `id` until `enough` holds; the schedule keeps running meanwhile. */
  const waitForOccurrences = (id: string, what: string, enough: (o: Occurrence[]) => boolean) =>
    eventually(
      what,
      async () => {
        const list = await occurrences(id);
        return enough(list) ? list : undefined;
      },
      60_000,
      500,
    );
  const refused = (o: Occurrence) =>
    o.status === 'FAILED' && /^refused by the tenant policy/.test(o.reason ?? '');

  describe('at create and edit: 403 FORBIDDEN_TARGET naming the field', () => {
    it.each([
      [
        'a job type of another tenant',
        { type: 'JOB', job_type: 'chargeCustomer', task_queue: 'acme-jobs' },
        'target.job_type',
        /tenants\.acme\.job_types/,
      ],
      [
        'a queue of another tenant',
        { type: 'JOB', job_type: 'report.daily', task_queue: 'globex-jobs' },
        'target.task_queue',
        /tenants\.acme\.job_task_queues/,
      ],
      [
        "the scheduler's own queue",
        { type: 'JOB', job_type: 'report.daily', task_queue: SCHEDULER_QUEUE },
        'target.task_queue',
        /scheduler's own/,
      ],
      [
        'a workflow of the namespace',
        { type: 'WORKFLOW_SIGNAL', workflow_id: 'order-123', signal_name: 'approve' },
        'target.workflow_id',
        /tenants\.acme\.signal_workflow_ids/,
      ],
      [
        "a sibling schedule's workflow (resume it every minute)",
        { type: 'WORKFLOW_SIGNAL', workflow_id: 'schedule/acme/victim', signal_name: 'resume' },
        'target.workflow_id',
        /scheduler workflow/,
      ],
      [
        "another tenant's occurrence",
        {
          type: 'WORKFLOW_SIGNAL',
          workflow_id: 'occurrence/globex/x/2026-01-01T00:00:00.000Z',
          signal_name: 'x',
        },
        'target.workflow_id',
        /scheduler workflow/,
      ],
      [
        'a signal-with-start of a foreign type',
        {
          type: 'WORKFLOW_SIGNAL',
          workflow_id: 'acme-orders/1',
          signal_name: 's',
          start: { workflow_type: 'chargeCustomer', task_queue: 'acme-jobs' },
        },
        'target.start.workflow_type',
        /job_types/,
      ],
      [
        'a signal-with-start on the shared queue',
        {
          type: 'WORKFLOW_SIGNAL',
          workflow_id: 'acme-orders/1',
          signal_name: 's',
          start: { workflow_type: 'report.x', task_queue: 'jobs' },
        },
        'target.start.task_queue',
        /job_task_queues/,
      ],
      [
        'a sink outside its prefixes',
        { type: 'EVENT', event_type: 'x', sink_url: 'https://evil.example/' },
        'target.sink_url',
        /tenants\.acme\.event_sinks/,
      ],
      [
        'a sink on another port of an allowed host',
        { type: 'EVENT', event_type: 'x', sink_url: 'http://127.0.0.1:1/hooks/' },
        'target.sink_url',
        /sink prefixes/,
      ],
    ])('%s', async (_what, target, field, detail) => {
      const res = await call('POST', '/v1/schedules', { timing: everyTwoSeconds, target });
      expect(res.status, JSON.stringify(res.body)).toBe(403);
      expect(res.body).toMatchObject({ type: '/problems/forbidden-target', code: 'FORBIDDEN_TARGET', field });
      expect(res.body.detail).toMatch(detail);
      // The tenant reads "the tenant policy", never where the server keeps it.
      expect(JSON.stringify(res.body)).not.toContain(policyFile);
      expect(JSON.stringify(res.body)).not.toContain(stack.dir);
    });

    it.each([
      'http://127.0.0.1:8080/',
      'http://2130706433/',
      'http://0x7f000001/',
      'http://0177.0.0.1/',
      'http://127.1/',
      'http://[::1]/',
      'http://[::ffff:127.0.0.1]/',
      'http://169.254.169.254/latest/meta-data/',
      'http://10.0.0.5:9200/',
      'http://0.0.0.0:7233/',
    ])('a tenant whose policy admits any public sink cannot name the internal address %s', async (url) => {
      const res = await call(
        'POST',
        '/v1/schedules',
        { timing: everyTwoSeconds, target: { type: 'EVENT', event_type: 'x', sink_url: url } },
        WIDE,
      );
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ code: 'FORBIDDEN_TARGET', field: 'target.sink_url' });
      expect(res.body.detail).toMatch(/on a (loopback|linkLocal|private|unspecified) address/);
    });

    it.each([
      [
        'on_failure',
        { after_consecutive: 2, notify: { type: 'EVENT', sink_url: 'https://evil.example/alerts' } },
        'on_failure.notify.sink_url',
        /tenants\.acme\.event_sinks/,
      ],
      [
        'on_recovery',
        { notify: { type: 'WORKFLOW_SIGNAL', workflow_id: 'schedule/acme/victim', signal_name: 'resume' } },
        'on_recovery.notify.workflow_id',
        /scheduler workflow/,
      ],
    ])(
      "a failure hook's %s notice goes only where a target could: 403 naming its field",
      async (hook, value, field, detail) => {
        const allowedTarget = { type: 'JOB', job_type: 'report.hourly', task_queue: 'acme-jobs' };
        const res = await call('POST', '/v1/schedules', {
          timing: everyTwoSeconds,
          target: allowedTarget,
          [hook]: value,
        });
        expect(res.status, JSON.stringify(res.body)).toBe(403);
        expect(res.body).toMatchObject({ code: 'FORBIDDEN_TARGET', field });
        expect(res.body.detail).toMatch(detail);
        // The same hook aimed at the tenant's own sink is accepted, and a PATCH back to the forbidden one refused.
        const id = `hooked-${hook}`;
        const ok = await call('POST', '/v1/schedules', {
          schedule_id: id,
          timing: { kind: 'CRON', expression: '0 9 1 1 *', timezone: 'Europe/Riga' },
          target: allowedTarget,
          on_failure: { notify: { type: 'EVENT', sink_url: `${sink.url}hooks/alerts` } },
        });
        expect(ok.status, JSON.stringify(ok.body)).toBe(201);
        const patched = await call('PATCH', `/v1/schedules/${id}`, { expected_version: 1, [hook]: value });
        expect(patched.status).toBe(403);
        expect(patched.body).toMatchObject({ code: 'FORBIDDEN_TARGET', field });
      },
    );

    it('a PATCH to a forbidden target is 403 and leaves the schedule at its version', async () => {
      const created = await call('POST', '/v1/schedules', {
        schedule_id: 'patched-away',
        timing: { kind: 'CRON', expression: '0 9 1 1 *', timezone: 'Europe/Riga' },
        target: { type: 'JOB', job_type: 'report.yearly' },
      });
      expect(created.status).toBe(201);
      const patched = await call('PATCH', '/v1/schedules/patched-away', {
        expected_version: 1,
        target: { type: 'JOB', job_type: 'chargeCustomer' },
      });
      expect(patched.status).toBe(403);
      expect(patched.body).toMatchObject({ code: 'FORBIDDEN_TARGET', field: 'target.job_type' });
      expect((await call('GET', '/v1/schedules/patched-away')).body).toMatchObject({
        version: 1,
        target: { job_type: 'report.yearly' },
      });
    });
  });

  describe('at hand-off, by the worker-only process, against the file as it is then', () => {
    it("a JOB without task_queue starts on the tenant's first queue, not the shared one", async () => {
      const created = await call('POST', '/v1/schedules', {
        schedule_id: 'own-queue',
        timing: everyTwoSeconds,
        target: { type: 'JOB', job_type: 'report.hourly' },
      });
      expect(created.status).toBe(201);
      const list = await waitForOccurrences('own-queue', 'a job start', (o) =>
        o.some((x) => x.status === 'HANDED_OFF'),
      );
      const handed = list.find((x) => x.status === 'HANDED_OFF')!;
      const job = await stack.client.workflow.getHandle(handed.target_ref).describe();
      expect(job.taskQueue).toBe('acme-jobs');
      expect(job.type).toBe('report.hourly');
      await call('POST', '/v1/schedules/own-queue/cancel');
    });

    it.each([
      ['started from an activity (ALLOW)', 'ALLOW' as const],
      ['started as a child (overlap SKIP)', 'SKIP' as const],
    ])(
      'a JOB schedule that never passed the API (%s) is refused: no job workflow exists',
      async (_what, overlap) => {
        // As a schedule created before the policy existed: its workflow started directly with a foreign job.
        const scheduleId = `pre-policy-${overlap.toLowerCase()}`;
        const handle = await startScheduleWorkflow(stack, {
          scheduleId,
          ownerRef: 'alice',
          spec: {
            target: { type: 'JOB', job_type: 'chargeCustomer', task_queue: 'globex-jobs' },
            timing: everyTwoSeconds,
            overlap,
          },
        });
        const list = await waitForOccurrences(
          scheduleId,
          'two refused slots',
          (o) => o.filter(refused).length >= 2,
        );
        for (const o of list.filter(refused)) {
          expect(o.reason).toMatch(/target\.job_type: workflow type chargeCustomer is not among/);
          expect(o.reason).toMatch(/in the tenant policy$/);
          expect(o.reason).not.toContain(stack.dir);
          await expect(stack.client.workflow.getHandle(o.occurrence_id).describe()).rejects.toThrow(
            /not found/i,
          );
        }
        expect(list.some((o) => o.status === 'HANDED_OFF' || o.status === 'RUNNING')).toBe(false);
        // It goes on, for the day the policy allows the target.
        expect((await stack.sdk.describe(scheduleId)).schedule.status).toBe('ACTIVE');
        await handle.terminate('test done');
      },
    );

    it("a schedule signalling a sibling's `resume` is refused at hand-off", async () => {
      const scheduleId = 'sibling-resumer';
      const handle = await startScheduleWorkflow(stack, {
        scheduleId,
        ownerRef: 'alice',
        spec: {
          target: {
            type: 'WORKFLOW_SIGNAL',
            workflow_id: 'schedule/acme/own-queue',
            signal_name: 'resume',
          },
          timing: everyTwoSeconds,
        },
      });
      const list = await waitForOccurrences(scheduleId, 'a refused signal', (o) => o.some(refused));
      expect(list.find(refused)!.reason).toMatch(/target\.workflow_id: names a scheduler workflow/);
      await handle.terminate('test done');
    });

    it('a 302 from an allowed sink is a failure recorded with its status; the second server receives nothing', async () => {
      const created = await call('POST', '/v1/schedules', {
        schedule_id: 'redirected',
        timing: everyTwoSeconds,
        target: { type: 'EVENT', event_type: 'x', sink_url: `${redirector.url}hooks/in?token=s3cret` },
      });
      expect(created.status).toBe(201);
      const list = await waitForOccurrences('redirected', 'a failed POST', (o) =>
        o.some((x) => x.status === 'FAILED'),
      );
      const failed = list.find((x) => x.status === 'FAILED')!;
      expect(failed.reason).toMatch(/answered 302 \(a redirect: not followed\)/);
      // The token in the query never shows in what the tenant reads back.
      expect(JSON.stringify(list)).not.toContain('s3cret');
      expect(redirector.requests.length).toBeGreaterThanOrEqual(1);
      expect(redirected.requests).toEqual([]);
      await call('POST', '/v1/schedules/redirected/cancel');
    });

    it('a hostname entry that resolves to loopback (localhost) is refused at connect, with a coarse reason', async () => {
      const created = await call('POST', '/v1/schedules', {
        schedule_id: 'named-loopback',
        timing: everyTwoSeconds,
        target: { type: 'EVENT', event_type: 'x', sink_url: `http://localhost:${named.port}/in` },
      });
      // The API cannot know where a name points: it is the worker's connect-time check that refuses it.
      expect(created.status).toBe(201);
      const list = await waitForOccurrences('named-loopback', 'a refused POST', (o) =>
        o.some((x) => x.status === 'FAILED'),
      );
      const reason = list.find((x) => x.status === 'FAILED')!.reason!;
      expect(reason).toMatch(/sink address not allowed/);
      expect(reason).not.toMatch(/127\.0\.0\.1|::1|ECONN/);
      expect(named.requests).toEqual([]);
      await call('POST', '/v1/schedules/named-loopback/cancel');
    });

    it('a sink withdrawn from the file at run time receives nothing more; its slots carry the reason', async () => {
      const created = await call('POST', '/v1/schedules', {
        schedule_id: 'withdrawn',
        timing: everyTwoSeconds,
        target: { type: 'EVENT', event_type: 'x', sink_url: `${sink.url}hooks/withdrawn` },
      });
      expect(created.status).toBe(201);
      await eventually(
        'a delivered event',
        async () => (sink.requests.length > 0 ? true : undefined),
        60_000,
      );

      const reloads = (worker.output().match(/tenant policy reloaded/g) ?? []).length;
      writeTenantsFile(stack.dir, {
        acme: { ...acmeTargets, event_sinks: [`${redirector.url}hooks/`] },
        wide: { event_sinks: ['*'], quotas: OPEN_QUOTAS },
      });
      await eventually(
        "the worker's reload",
        async () =>
          (worker.output().match(/tenant policy reloaded/g) ?? []).length > reloads ? true : undefined,
        30_000,
      );
      // Deliveries already under way when the file changed may land; after the first refusal none may.
      const first = await waitForOccurrences('withdrawn', 'a refused slot', (o) => o.some(refused));
      const deliveredBefore = sink.requests.length;
      const afterRefusal = first.filter(refused).length;
      const list = await waitForOccurrences(
        'withdrawn',
        'two more refused slots',
        (o) => o.filter(refused).length >= afterRefusal + 2,
      );
      expect(sink.requests.length).toBe(deliveredBefore);
      const reason = list.find(refused)!.reason!;
      expect(reason).toMatch(
        /target\.sink_url: the event sink URL is not under one of this tenant's sink prefixes/,
      );
      expect((await stack.sdk.describe('withdrawn')).schedule.status).toBe('ACTIVE');

      const metrics = await (await fetch(metricsUrl)).text();
      expect(metrics).toMatch(/scheduler_handoffs_refused_total\{[^}]*field="target\.sink_url"[^}]*\} [1-9]/);
      await call('POST', '/v1/schedules/withdrawn/cancel');
    });

    it(`a tenant missing from the file at hand-off is retried for ${GRACE_S} s: re-added in time, nothing is refused or doubled; left out, its slots are refused`, async () => {
      const reloads = (p: Spawned) => (p.output().match(/tenant policy reloaded/g) ?? []).length;
      /** Rewrites the file and waits until both processes reloaded it. */
      const reloaded = async (what: string, tenants: Parameters<typeof writeTenantsFile>[1]) => {
        const before = [reloads(api), reloads(worker)];
        writeTenantsFile(stack.dir, tenants);
        await eventually(
          what,
          async () => (reloads(api) > before[0]! && reloads(worker) > before[1]! ? true : undefined),
          30_000,
        );
      };
      const others = { acme: acmeTargets, wide: { event_sinks: ['*'], quotas: OPEN_QUOTAS } };
      // An earlier test rewrote the file without it.
      await reloaded('the reload with tenant late', { ...others, late: lateTargets() });
      const created = await call(
        'POST',
        '/v1/schedules',
        {
          schedule_id: 'late-tenant',
          timing: everyTwoSeconds,
          target: { type: 'EVENT', event_type: 'x', sink_url: `${sink.url}late/tick` },
        },
        LATE,
      );
      expect(created.status).toBe(201);
      const lateDeliveries = () => sink.requests.filter((r) => r.path.startsWith('/late/'));
      await eventually(
        'a delivered event',
        async () => (lateDeliveries().length > 0 ? true : undefined),
        60_000,
      );

      // An edit that lost the tenant's entry, fixed a few seconds later: the slots due meanwhile wait.
      await reloaded('the reload without tenant late', others);
      const gapStartedAt = Date.now();
      await new Promise((r) => setTimeout(r, 5_000));
      await reloaded('the reload with tenant late again', { ...others, late: lateTargets() });
      const gapEndedAt = Date.now();
      expect(
        gapEndedAt - gapStartedAt,
        'the gap must close within the grace for this test to mean it',
      ).toBeLessThan(GRACE_S * 1000);
      // Slots due in the gap are delivered once the entry is back: one delivery each, none refused.
      const lateOccurrences = (what: string, enough: (o: Occurrence[]) => boolean) =>
        eventually(
          what,
          async () => {
            const res = await call('GET', '/v1/schedules/late-tenant/occurrences', undefined, LATE);
            const list = res.body.items as Occurrence[];
            return enough(list) ? list : undefined;
          },
          60_000,
          500,
        );
      const firedInGap = (o: Occurrence) =>
        Date.parse(o.fire_at) > gapStartedAt && Date.parse(o.fire_at) < gapEndedAt - 2_000;
      // Each slot due in the gap waits for its hand-off's next attempt (1, 2, 4, 8 s apart), then settles.
      const settled = await lateOccurrences('the slots due in the gap, settled', (o) => {
        const inGap = o.filter(firedInGap);
        return inGap.length > 0 && inGap.every((x) => x.status !== 'DISPATCHING');
      });
      const inGap = settled.filter(firedInGap);
      expect(inGap.map((o) => o.status)).toEqual(inGap.map(() => 'HANDED_OFF'));
      expect(settled.filter(refused)).toEqual([]);
      const deliveredIds = lateDeliveries().map((r) => (JSON.parse(r.body) as { id: string }).id);
      expect(new Set(deliveredIds).size).toBe(deliveredIds.length);
      for (const o of inGap) expect(deliveredIds).toContain(o.occurrence_id);

      // Left out for good: refused once the grace has passed, with the reason, and the schedule goes on.
      await reloaded('the reload without tenant late, for good', others);
      const removedAt = Date.now();
      const list = await lateOccurrences('a refused slot', (o) => o.some(refused));
      // Not before the grace (less the seconds between an attempt that began before the reload and it).
      expect(Date.now() - removedAt).toBeGreaterThanOrEqual((GRACE_S - 5) * 1000);
      expect(list.find(refused)!.reason).toMatch(/tenant late has no entry in the tenant policy,/);
      expect(list.find(refused)!.reason).not.toContain(stack.dir);
      const described = await call('GET', '/v1/schedules/late-tenant', undefined, LATE);
      expect(described.body.status).toBe('ACTIVE');
      await call('POST', '/v1/schedules/late-tenant/cancel', undefined, LATE);
    }, 180_000);
  });
});
