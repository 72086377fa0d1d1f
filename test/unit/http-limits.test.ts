// The API's limits as a hostile caller meets them (security review, second pass: N10, N11). Through real
// HTTP on a listening API; no Temporal is needed (invalid bodies, previews, the public documents, and a
// readiness check that finds Temporal unreachable).
// - N10: a request refused for its body (schema, JSON) is charged to its tenant before it is read, so 64 KiB
//   invalid bodies cannot be sent without limit; another tenant keeps its budget.
// - N11: with SCHEDULER_TRUST_PROXY, the per-address limits count the client a trusted proxy forwarded for;
//   without it, an X-Forwarded-For a client writes itself changes nothing; and readiness, answered from its
//   cache, is outside the public bucket: a flood of /readyz neither answers 429 nor empties the bucket of
//   another public route.
import type { AddressInfo } from 'node:net';
import type { Client } from '@temporalio/client';
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { KeyRing } from '../../src/api/auth.js';
import { type ApiDependencies, buildApi } from '../../src/api/http/server.js';
import { ConfigError, loadEnvironment } from '../../src/config.js';
import { TenantPolicy } from '../../src/model/tenant-policy.js';

const ACME = 'sk_limits_acme_0123456789abcdefg';
const GLOBEX = 'sk_limits_globex_0123456789abcdef';
const WRONG = 'sk_guess_0123456789abcdefghij';

/** A Temporal client that is never reached; `touched` counts what was asked of it (a readiness check). */
function unreachableClient() {
  const counter = { touched: 0 };
  const client = new Proxy({} as Client, {
    get: () => {
      counter.touched += 1;
      throw new Error('Temporal is not there');
    },
  });
  return { client, counter };
}

const apps: FastifyInstance[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.close()));
});

async function listening(deps: Partial<ApiDependencies> = {}) {
  const { client, counter } = unreachableClient();
  const app = await buildApi({
    client,
    taskQueue: 'scheduler',
    jobTaskQueue: 'jobs',
    keys: () => KeyRing.fromConfig({ keys: `${ACME}=acme:ops,${GLOBEX}=globex:ops` }),
    tenantPolicy: () => TenantPolicy.openToAll(),
    // The API's windows on a clock held still: every request below falls in one minute (and one readiness
    // interval), however long this machine takes to send them.
    now: () => 1_000_000,
    ...deps,
  });
  apps.push(app);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  const send = async (path: string, init: { key?: string; body?: string; forwardedFor?: string } = {}) => {
    const response = await fetch(`${base}${path}`, {
      method: init.body === undefined ? 'GET' : 'POST',
      headers: {
        ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...(init.key ? { authorization: `Bearer ${init.key}` } : {}),
        ...(init.forwardedFor ? { 'x-forwarded-for': init.forwardedFor } : {}),
      },
      ...(init.body !== undefined ? { body: init.body } : {}),
    });
    const text = await response.text();
    return {
      status: response.status,
      headers: response.headers,
      body: (text ? JSON.parse(text) : null) as Record<string, unknown>,
    };
  };
  return { base, send, counter };
}

const PREVIEW = JSON.stringify({ timing: { kind: 'INTERVAL', every: 'PT1H' }, count: 1 });
/** 60 KiB of a definition the schema refuses (an unknown field), under the 64 KiB body limit. */
const INVALID = JSON.stringify({ schedule_id: 'x', junk: 'j'.repeat(60 * 1024) });
/** 60 KiB that is not JSON at all. */
const MALFORMED = `{"schedule_id": "x", "junk": "${'j'.repeat(60 * 1024)}`;

describe('N10: requests refused for their body are charged to their tenant', () => {
  it('invalid 60 KiB bodies spend the tenant budget until 429; another tenant is served', async () => {
    const LIMIT = 20;
    const { send } = await listening({ rateLimitPerMinute: LIMIT });
    const statuses: number[] = [];
    for (let i = 0; i < LIMIT; i++) {
      const answer = await send('/v1/schedules', { key: ACME, body: i % 2 ? INVALID : MALFORMED });
      statuses.push(answer.status);
    }
    // Each was refused for what it is (400: unknown field, malformed JSON), and each cost a unit.
    expect(new Set(statuses)).toEqual(new Set([400]));
    const limited = await send('/v1/schedules', { key: ACME, body: INVALID });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(limited.body).toMatchObject({ code: 'RATE_LIMITED', type: '/problems/rate-limited' });
    expect(limited.body.detail).toMatch(/20 request units per minute for tenant acme/);
    // The budget is the tenant's: a valid request of acme waits too; globex is untouched.
    expect((await send('/v1/preview', { key: ACME, body: PREVIEW })).status).toBe(429);
    const other = await send('/v1/preview', { key: GLOBEX, body: PREVIEW });
    expect(other.status).toBe(200);
    expect(other.headers.get('x-ratelimit-remaining')).toBe(String(LIMIT - 1));
  });

  it('a valid request costs what it did: the unit charged before validation is part of its cost', async () => {
    const { send } = await listening({ rateLimitPerMinute: 100 });
    // A preview (a read) costs 1; a backfill-sized cost is charged in two parts that add up to it.
    const read = await send('/v1/preview', { key: ACME, body: PREVIEW });
    expect(read.headers.get('x-ratelimit-remaining')).toBe('99');
    const refused = await send('/v1/schedules/x/backfill', { key: ACME, body: '{"from": "yesterday"}' });
    expect(refused.status).toBe(400);
    // Refused by its schema: one unit, not the backfill's 50.
    expect(
      (await send('/v1/preview', { key: ACME, body: PREVIEW })).headers.get('x-ratelimit-remaining'),
    ).toBe('97');
  });
});

describe('N11: the client address behind a proxy, and readiness outside the public bucket', () => {
  const openapi = (send: Awaited<ReturnType<typeof listening>>['send'], forwardedFor?: string) =>
    send('/openapi.json', forwardedFor ? { forwardedFor } : {});

  it('trusting the loopback proxy, each forwarded client has its own bucket', async () => {
    const { send } = await listening({ publicRateLimitPerMinute: 3, trustProxy: ['127.0.0.0/8'] });
    for (let i = 0; i < 3; i++) expect((await openapi(send, '203.0.113.1')).status).toBe(200);
    const limited = await openapi(send, '203.0.113.1');
    expect(limited.status).toBe(429);
    expect(limited.body.detail).toMatch(/per minute for this client address/);
    // Another client behind the same proxy is not the first one's neighbour.
    expect((await openapi(send, '203.0.113.2')).status).toBe(200);
    // The nearest untrusted hop counts, not what the client put in front of it.
    expect((await openapi(send, '198.51.100.7, 203.0.113.1')).status).toBe(429);
    // An IPv6 client counts by its /64.
    for (let i = 0; i < 3; i++) expect((await openapi(send, `2001:db8:1:2::${i + 1}`)).status).toBe(200);
    expect((await openapi(send, '2001:db8:1:2::ffff')).status).toBe(429);
    expect((await openapi(send, '2001:db8:1:3::1')).status).toBe(200);
  });

  it('trusting the loopback proxy, failed authentications count per forwarded client', async () => {
    const { send } = await listening({ authFailuresPerMinute: 2, trustProxy: ['loopback'] });
    const guess = (forwardedFor: string) => send('/v1/preview', { key: WRONG, body: PREVIEW, forwardedFor });
    expect((await guess('203.0.113.1')).status).toBe(401);
    expect((await guess('203.0.113.1')).status).toBe(401);
    expect((await guess('203.0.113.1')).status).toBe(429);
    expect((await guess('203.0.113.2')).status).toBe(401);
  });

  it('without a trusted proxy, an X-Forwarded-For the client writes changes nothing', async () => {
    const { send } = await listening({ publicRateLimitPerMinute: 3, authFailuresPerMinute: 2 });
    for (let i = 0; i < 3; i++) expect((await openapi(send, `203.0.113.${i + 1}`)).status).toBe(200);
    // A fresh "client" per request is still this TCP peer: the attack of the setting's absence fails.
    expect((await openapi(send, '203.0.113.200')).status).toBe(429);
    expect((await openapi(send)).status).toBe(429);
    const guess = (forwardedFor: string) => send('/v1/preview', { key: WRONG, body: PREVIEW, forwardedFor });
    expect((await guess('203.0.113.1')).status).toBe(401);
    expect((await guess('203.0.113.2')).status).toBe(401);
    expect((await guess('203.0.113.3')).status).toBe(429);
  });

  it('1,000 anonymous /readyz: never 429, one check of Temporal, and another public route keeps its bucket', async () => {
    const LIMIT = 5;
    const { send, counter } = await listening({ publicRateLimitPerMinute: LIMIT });
    const statuses = new Map<number, number>();
    for (let sent = 0; sent < 1000; sent += 20) {
      const answers = await Promise.all(
        Array.from({ length: 20 }, (_, i) => send((sent + i) % 10 === 0 ? '/v1/health' : '/readyz')),
      );
      for (const { status } of answers) statuses.set(status, (statuses.get(status) ?? 0) + 1);
    }
    // Temporal is unreachable here: every answer is the cached check's 503, none a 429.
    expect(Object.fromEntries(statuses)).toEqual({ 503: 1000 });
    // The one check ran once for all of them (the clock is held inside one readiness interval).
    expect(counter.touched).toBe(1);
    // The address's public bucket is whole: another public route gets its LIMIT requests, then 429.
    for (let i = 0; i < LIMIT; i++) expect((await openapi(send)).status).toBe(200);
    expect((await openapi(send)).status).toBe(429);
    // And readiness is still answered.
    expect((await send('/readyz')).status).toBe(503);
  });
});

describe('SCHEDULER_TRUST_PROXY', () => {
  const trustProxy = (value?: string) =>
    loadEnvironment(value === undefined ? {} : { SCHEDULER_TRUST_PROXY: value }).SCHEDULER_TRUST_PROXY;

  it('off unless set; a list of addresses, CIDR ranges and named ranges', () => {
    expect(trustProxy()).toBe(false);
    expect(trustProxy('off')).toBe(false);
    expect(trustProxy('')).toBe(false);
    expect(trustProxy('loopback, 10.0.0.0/8 ,192.0.2.7,fd00::/8')).toEqual([
      'loopback',
      '10.0.0.0/8',
      '192.0.2.7',
      'fd00::/8',
    ]);
  });

  it.each([
    ['true', /would believe any X-Forwarded-For/],
    ['2', /hop count/],
    ['0.0.0.0/0', /every address/],
    ['::/0', /every address/],
    ['10.0.0.0/33', /not a CIDR range/],
    ['lb.internal', /not an IP address/],
    ['10.0.0.1,,10.0.0.2', /empty entry/],
  ])('refuses %s at start, naming the variable', (value, reason) => {
    expect(() => trustProxy(value)).toThrow(ConfigError);
    expect(() => trustProxy(value)).toThrow(/^environment variable SCHEDULER_TRUST_PROXY: /);
    expect(() => trustProxy(value)).toThrow(reason);
  });
});
