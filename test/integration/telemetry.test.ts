// Bounded, private telemetry (issue #20; security review M1, M2), through the real HTTP server on a real
// port against a real dev server: what a caller sends never becomes a metric label; /metrics needs its token
// (and in production is not served without one); /readyz and /v1/health say ok or unavailable and nothing of
// Temporal's errors; a flood of them costs Temporal one check per interval; public routes are rate limited
// per client address.
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KeyRing } from '../../src/api/auth.js';
import { UNKNOWN_FIELD_LABEL } from '../../src/api/http/metric-labels.js';
import { createApiMetrics } from '../../src/api/http/metrics.js';
import { type RunningApi, serveApi } from '../../src/api/http/serve.js';
import { type ApiDependencies, buildApi, DEFAULT_READINESS_CACHE_MS } from '../../src/api/http/server.js';
import { TenantPolicy } from '../../src/model/tenant-policy.js';
import { freePort } from '../../src/runtime/ports.js';
import { startTestDevServer, tempDir } from '../helpers/servers.js';
import { JOB_QUEUE, pool, SCHEDULER_QUEUE, type Stack, startStack, stopStack } from './support.js';

const KEY = 'key-acme-telemetry-0123456';
const METRICS_TOKEN = 'metrics-token-0123456789abcdef';
const FLOOD = 1000;

let stack: Stack;
const closing: Array<() => Promise<unknown>> = [];

beforeAll(async () => {
  stack = await startStack('telemetry');
});
afterAll(async () => {
  for (const close of closing.reverse()) await close().catch(() => {});
  await stopStack(stack);
});

/** buildApi on a free port, closed after the file. */
async function listen(deps: Partial<ApiDependencies> = {}): Promise<{ app: FastifyInstance; base: string }> {
  const app = await buildApi({
    client: stack.client,
    taskQueue: SCHEDULER_QUEUE,
    jobTaskQueue: JOB_QUEUE,
    keys: () => KeyRing.fromConfig({ keys: `${KEY}=acme:ops` }),
    tenantPolicy: () => TenantPolicy.openToAll(),
    ...deps,
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  closing.push(() => app.close());
  return { app, base: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}` };
}

/** serveApi, the production entry point, which decides `production` and passes the token itself. */
async function serve(
  options: { apiKeys?: string; metricsToken?: string },
  log: string[] = [],
): Promise<RunningApi> {
  const api = await serveApi({
    client: stack.client,
    taskQueue: SCHEDULER_QUEUE,
    jobTaskQueue: JOB_QUEUE,
    host: '127.0.0.1',
    port: await freePort(),
    dataDir: stack.dir,
    tenantPolicy: () => TenantPolicy.openToAll(),
    rateLimitPerMinute: 10_000,
    temporalTimeoutMs: 10_000,
    logLevel: 'silent',
    log: (line) => log.push(line),
    ...options,
  });
  closing.push(() => api.close());
  return api;
}

/** The series of a Prometheus text (name and labels of every sample), without their values. */
function seriesOf(text: string): string[] {
  return text
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => line.slice(0, line.lastIndexOf(' ')))
    .sort();
}

/** The value of one sample, by its exact series (name and labels as seriesOf gives them). */
function sampleValue(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}

const weekdays = { kind: 'CRON', expression: '0 9 * * 1-5', timezone: 'Europe/Riga' };
const job = { type: 'JOB', job_type: 'recordedJob' };
/** A key no schema has: random, sometimes long (the review's exploit used 60 KB keys). */
const madeUpKey = (i: number) => `x${randomBytes(i % 10 === 0 ? 100 : 6).toString('hex')}`;

describe('metric labels come from closed sets', () => {
  it(`${FLOOD} requests with made-up fields, query parameters, paths and methods add no series to /metrics`, async () => {
    const { base } = await listen({
      metrics: createApiMetrics({ client: stack.client, overdueAfterSeconds: 300 }),
      rateLimitPerMinute: 100_000,
      publicRateLimitPerMinute: 100_000,
    });
    const send = async (method: string, path: string, body?: unknown) => {
      const response = await fetch(`${base}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${KEY}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      await response.arrayBuffer();
      return response.status;
    };
    // Each shape a caller can vary: an unknown key at the top, inside a known field, in a PATCH and a
    // preview; a made-up query parameter on the list and on occurrences; a made-up path; a method no route has.
    const shapes: Array<(key: string) => Promise<number>> = [
      (key) => send('POST', '/v1/schedules', { timing: weekdays, target: job, [key]: 1 }),
      (key) => send('POST', '/v1/schedules', { timing: { ...weekdays, [key]: 1 }, target: job }),
      (key) => send('POST', '/v1/schedules', { timing: weekdays, target: { ...job, [key]: { [key]: 1 } } }),
      (key) => send('PATCH', '/v1/schedules/some-schedule', { expected_version: 1, [key]: 1 }),
      (key) => send('POST', '/v1/preview', { timing: weekdays, [key]: 1 }),
      (key) => send('GET', `/v1/schedules?${key}=1`),
      (key) => send('GET', `/v1/schedules/some-schedule/occurrences?${key}=1`),
      (key) => send('GET', `/v1/${key}`),
      (key) => send(['PROPFIND', 'MKCOL', 'LOCK'][key.length % 3]!, `/v1/schedules/${key.slice(0, 12)}`),
    ];
    const expected = [400, 400, 400, 400, 400, 400, 400, 404, 405];
    // One of each first: the series they make are the bounded set; nothing after may add to it.
    for (const [i, shape] of shapes.entries()) expect(await shape(madeUpKey(i))).toBe(expected[i]);
    await fetch(`${base}/metrics`).then((r) => r.text()); // the /metrics series itself
    const before = await (await fetch(`${base}/metrics`)).text();

    const keys = Array.from({ length: FLOOD }, (_, i) => madeUpKey(i));
    const statuses = await pool(keys, 20, (key, i) => shapes[i % shapes.length]!(key));
    statuses.forEach((status, i) => {
      expect(status).toBe(expected[i % shapes.length]);
    });
    const after = await (await fetch(`${base}/metrics`)).text();

    expect(seriesOf(after)).toEqual(seriesOf(before));
    // Only counter values changed: a few digits each.
    expect(Math.abs(after.length - before.length)).toBeLessThan(200);
    for (const key of keys) expect(after).not.toContain(key);
    // The requests were counted, under the closed labels.
    const sent = (shape: number) => Math.ceil((FLOOD - shape) / shapes.length);
    // A made-up key at the top of a create, an edit and a preview.
    const unknownTopLevel = sent(0) + sent(3) + sent(4);
    const unknownFieldSeries = `scheduler_invalid_rules_rejected_total{field="${UNKNOWN_FIELD_LABEL}"}`;
    expect(sampleValue(after, unknownFieldSeries) - sampleValue(before, unknownFieldSeries)).toBe(
      unknownTopLevel,
    );
    const querySeries = 'scheduler_invalid_rules_rejected_total{field="querystring"}';
    expect(sampleValue(after, querySeries) - sampleValue(before, querySeries)).toBe(sent(5));
    expect(after).toContain('scheduler_invalid_rules_rejected_total{field="timing"}');
    expect(after).toContain('scheduler_invalid_rules_rejected_total{field="target"}');
    expect(after).toContain('scheduler_http_requests_total{route="unmatched",method="other",status="405"}');
  });
});

describe('/metrics is private', () => {
  it('with SCHEDULER_METRICS_TOKEN: 401 without it or with another bearer (an API key too), 200 with it', async () => {
    const api = await serve({ apiKeys: `${KEY}=acme:ops`, metricsToken: METRICS_TOKEN });
    const scrape = (authorization?: string) =>
      fetch(`${api.url}/metrics`, authorization ? { headers: { authorization } } : {});
    for (const authorization of [undefined, `Bearer ${KEY}`, `Bearer ${METRICS_TOKEN}x`, METRICS_TOKEN]) {
      const refused = await scrape(authorization);
      expect(refused.status, String(authorization)).toBe(401);
      expect(refused.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(refused.headers.get('www-authenticate')).toBe('Bearer');
      const body = await refused.text();
      expect(body).not.toMatch(/scheduler_/);
    }
    const served = await scrape(`Bearer ${METRICS_TOKEN}`);
    expect(served.status).toBe(200);
    expect(await served.text()).toMatch(/scheduler_http_requests_total/);
  });

  it('in production without a token: 404, and the operator is told at start-up', async () => {
    const log: string[] = [];
    const api = await serve({ apiKeys: `${KEY}=acme:ops` }, log);
    const response = await fetch(`${api.url}/metrics`);
    expect(response.status).toBe(404);
    const body = await response.text();
    expect(body).not.toMatch(/scheduler_/);
    expect(JSON.parse(body)).toMatchObject({ status: 404, code: 'NOT_FOUND' });
    // Not even with an API key: metrics are not a tenant's to read.
    expect((await fetch(`${api.url}/metrics`, { headers: { authorization: `Bearer ${KEY}` } })).status).toBe(
      404,
    );
    expect(log.join('\n')).toMatch(/GET \/metrics on the API answers 404.*SCHEDULER_METRICS_TOKEN/);
  });

  it('in development (no keys, loopback): open, as before', async () => {
    const api = await serve({});
    expect(api.devKey).not.toBeNull();
    const response = await fetch(`${api.url}/metrics`);
    expect(response.status).toBe(200);
    expect(await response.text()).toMatch(/scheduler_http_requests_total/);
  });
});

describe('/readyz and /v1/health', () => {
  it('Temporal unreachable: they say unavailable and nothing else; the details are in the log', async () => {
    // A dev server of its own, killed, as in an outage: what the SDK then says is gRPC detail (a status, a
    // deadline, at times the address it cannot reach), for the log only.
    const dir = tempDir('telemetry-gone');
    const server = await startTestDevServer(join(dir, 'temporal.db'));
    const port = server.address.split(':').pop()!;
    const connection = await Connection.connect({ address: server.address });
    closing.push(async () => {
      await connection.close();
      rmSync(dir, { recursive: true, force: true });
    });
    await server.kill();
    const logLines: string[] = [];
    const { base } = await listen({
      client: new Client({ connection }),
      temporalTimeoutMs: 3000,
      logger: { level: 'warn', stream: { write: (line: string) => logLines.push(line) } },
    });

    const ready = await fetch(`${base}/readyz`);
    expect(ready.status).toBe(503);
    expect(Number(ready.headers.get('retry-after'))).toBeGreaterThan(0);
    const readyText = await ready.text();
    expect(JSON.parse(readyText)).toEqual({
      status: 'unavailable',
      checks: { temporal: 'unreachable', worker: 'unknown' },
    });
    const health = await fetch(`${base}/v1/health`);
    expect(health.status).toBe(503);
    const healthText = await health.text();
    expect(JSON.parse(healthText)).toEqual({ status: 'unavailable', temporal: 'unreachable' });
    for (const text of [readyText, healthText]) {
      expect(text).not.toContain(port);
      expect(text).not.toMatch(/127\.0\.0\.1|ECONNREFUSED|UNAVAILABLE|DEADLINE|connect|default|scheduler/);
    }
    // Where the operator finds out why: the request's log line, with the error.
    const logged = logLines.map((line) => JSON.parse(line) as { msg: string; err?: { message?: string } });
    const failure = logged.find((line) => line.msg === 'readiness: Temporal did not answer');
    expect(failure?.err?.message).toBeTruthy();
  });

  it(`50 concurrent calls within ${DEFAULT_READINESS_CACHE_MS} ms make one check of Temporal (2 RPCs); the next interval another`, async () => {
    // Counted on the way to the real dev server: every call goes through to it and its real answer comes
    // back; the proxy only counts. What is under test — that the API shares and caches its check — runs
    // unchanged, so this is not a mock of it.
    const calls = new Map<string, number>();
    const service = new Proxy(stack.client.workflowService, {
      get(target, property, receiver) {
        const value = Reflect.get(target, property, receiver);
        if (typeof value !== 'function' || typeof property !== 'string') return value;
        return (...args: unknown[]) => {
          calls.set(property, (calls.get(property) ?? 0) + 1);
          return value.apply(target, args);
        };
      },
    });
    const counted = new Proxy(stack.client, {
      get: (target, property) =>
        property === 'workflowService' ? service : Reflect.get(target, property, target),
    });
    // The API's windows run on a clock this test moves: held still through a burst, so that the burst is
    // inside one interval however long this machine takes to send 50 requests, then moved to the interval's
    // last millisecond and past it.
    let clock = Date.now();
    const { base } = await listen({
      client: counted,
      publicRateLimitPerMinute: 10_000,
      now: () => clock,
    });

    const burst = async () =>
      await Promise.all(
        Array.from({ length: 50 }, async (_, i) => {
          const response = await fetch(`${base}${i % 5 === 0 ? '/v1/health' : '/readyz'}`);
          return { status: response.status, body: (await response.json()) as Record<string, unknown> };
        }),
      );
    const first = await burst();
    expect(Object.fromEntries(calls)).toEqual({ getSystemInfo: 1, describeTaskQueue: 1 });
    // No scheduler worker polls in this stack: not ready, but Temporal answered — the same for every call.
    for (const { status, body } of first) {
      if ('checks' in body) {
        expect(status).toBe(503);
        expect(body).toEqual({
          status: 'unavailable',
          checks: { temporal: 'reachable', worker: 'no poller' },
        });
      } else {
        expect(status).toBe(200);
        expect(body).toEqual({ status: 'ok', temporal: 'reachable' });
      }
    }
    // The cache holds for the interval only: readiness follows the server within seconds.
    clock += DEFAULT_READINESS_CACHE_MS - 1;
    await burst();
    expect(Object.fromEntries(calls)).toEqual({ getSystemInfo: 1, describeTaskQueue: 1 });
    clock += 1;
    await burst();
    expect(Object.fromEntries(calls)).toEqual({ getSystemInfo: 2, describeTaskQueue: 2 });
  });
});

describe('public routes are rate limited per client address', () => {
  it('past the limit /metrics, /openapi.json and the problem pages answer 429; /healthz, readiness and a key holder are still served', async () => {
    const LIMIT = 8;
    const { base } = await listen({
      metrics: createApiMetrics({ client: stack.client, overdueAfterSeconds: 300 }),
      publicRateLimitPerMinute: LIMIT,
    });
    const statuses: number[] = [];
    for (let i = 0; i < LIMIT; i++) {
      const response = await fetch(`${base}/openapi.json`);
      await response.arrayBuffer();
      statuses.push(response.status);
    }
    expect(statuses.filter((s) => s === 429)).toEqual([]);
    const limited = await fetch(`${base}/openapi.json`);
    expect(limited.status).toBe(429);
    expect(limited.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    const problem = (await limited.json()) as { code: string; detail: string };
    expect(problem.code).toBe('RATE_LIMITED');
    expect(problem.detail).toMatch(/per minute for this client address/);
    // One bucket per address for every public route but the probes.
    for (const path of ['/metrics', '/problems/rate-limited']) {
      const response = await fetch(`${base}${path}`);
      await response.arrayBuffer();
      expect(response.status, path).toBe(429);
    }
    // A liveness probe is never refused, nor readiness (answered from its cache: security review N11, a load
    // balancer's checks must not share a bucket its callers empty; test/unit/http-limits.test.ts floods it).
    for (let i = 0; i < 3 * LIMIT; i++) expect((await fetch(`${base}/healthz`)).status).toBe(200);
    for (const path of ['/readyz', '/v1/health']) {
      const response = await fetch(`${base}${path}`);
      await response.arrayBuffer();
      expect(response.status, path).not.toBe(429);
    }
    // A caller with a key has its own bucket (per key, SCHEDULER_API_RATE_LIMIT).
    const preview = await fetch(`${base}/v1/preview`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        timing: { kind: 'INTERVAL', every: 'PT1H' },
        from: '2026-11-01T00:00:00Z',
        count: 1,
      }),
    });
    expect(preview.status).toBe(200);
  });
});
