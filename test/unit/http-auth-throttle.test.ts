// Failed authentications are throttled per client address (security review L3): past the limit, the
// address is answered 429 with Retry-After, a valid key included, until its minute is over. Through real
// HTTP on a listening API; no Temporal is needed (/v1/preview is the calendar alone).
import type { AddressInfo } from 'node:net';
import type { Client } from '@temporalio/client';
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { KeyRing } from '../../src/api/auth.js';
import { clientOf, FailedAuthThrottle } from '../../src/api/http/auth-throttle.js';
import { buildApi } from '../../src/api/http/server.js';
import { TenantPolicy } from '../../src/model/tenant-policy.js';

const KEY = 'sk_throttle_0123456789abcdefg';
const WRONG = 'sk_guess_0123456789abcdefghij';

const unreachable = new Proxy({} as Client, {
  get: () => {
    throw new Error('these requests must not need Temporal');
  },
});

const apps: FastifyInstance[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.close()));
});

async function listening(authFailuresPerMinute?: number) {
  const app = await buildApi({
    client: unreachable,
    taskQueue: 'scheduler',
    jobTaskQueue: 'jobs',
    keys: () => KeyRing.fromConfig({ keys: `${KEY}=acme:ops` }),
    tenantPolicy: () => TenantPolicy.openToAll(),
    ...(authFailuresPerMinute !== undefined ? { authFailuresPerMinute } : {}),
  });
  apps.push(app);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  const preview = async (authorization?: string) => {
    const response = await fetch(`${base}/v1/preview`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(authorization !== undefined ? { authorization } : {}),
      },
      body: JSON.stringify({ timing: { kind: 'INTERVAL', every: 'PT1H' }, count: 1 }),
    });
    return {
      status: response.status,
      headers: response.headers,
      body: (await response.json()) as Record<string, unknown> & { detail: string; runs: unknown[] },
    };
  };
  return { base, preview };
}

describe('HTTP API: failed authentications per client address', () => {
  it('after the limit of invalid keys in a minute, 429 with Retry-After — for a valid key too', async () => {
    const { base, preview } = await listening(5);
    for (let i = 0; i < 5; i++) expect((await preview(`Bearer ${WRONG}`)).status).toBe(401);
    const refused = await preview(`Bearer ${WRONG}`);
    expect(refused.status).toBe(429);
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(refused.headers.get('content-type')).toMatch(/application\/problem\+json/);
    expect(refused.body).toMatchObject({ status: 429, code: 'RATE_LIMITED', type: '/problems/rate-limited' });
    expect(refused.body.detail).toMatch(/invalid API key from this address \(5 a minute\)/);
    expect(refused.body.detail).not.toContain(WRONG);
    // A guess that happens to be right learns nothing either.
    expect((await preview(`Bearer ${KEY}`)).status).toBe(429);
    // Unauthenticated routes stay open.
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
  });

  it('a request without a key is no guess: not counted', async () => {
    const { preview } = await listening(3);
    for (let i = 0; i < 10; i++) expect((await preview()).status).toBe(401);
    const ok = await preview(`Bearer ${KEY}`);
    expect(ok.status).toBe(200);
    expect(ok.body.runs).toHaveLength(1);
  });

  it('the default is 20 a minute; 0 turns the limit off', async () => {
    const byDefault = await listening();
    for (let i = 0; i < 20; i++) expect((await byDefault.preview(`Bearer ${WRONG}`)).status).toBe(401);
    expect((await byDefault.preview(`Bearer ${WRONG}`)).status).toBe(429);

    const off = await listening(0);
    for (let i = 0; i < 30; i++) expect((await off.preview(`Bearer ${WRONG}`)).status).toBe(401);
    expect((await off.preview(`Bearer ${KEY}`)).status).toBe(200);
  });
});

describe('FailedAuthThrottle', () => {
  it('refuses a client for the rest of its minute, then lets it try again', () => {
    let now = 1_000_000;
    const throttle = new FailedAuthThrottle(2, () => now);
    throttle.recordFailure('10.0.0.1');
    throttle.recordFailure('10.0.0.1');
    expect(throttle.retryAfterSeconds('10.0.0.1')).toBe(60);
    expect(throttle.retryAfterSeconds('10.0.0.2')).toBeNull();
    now += 45_500;
    expect(throttle.retryAfterSeconds('10.0.0.1')).toBe(15);
    now += 14_500;
    expect(throttle.retryAfterSeconds('10.0.0.1')).toBeNull();
    throttle.recordFailure('10.0.0.1');
    expect(throttle.retryAfterSeconds('10.0.0.1')).toBeNull();
  });

  it('counts an IPv4 address however it is written, and an IPv6 address by its /64', () => {
    expect(clientOf('::ffff:192.0.2.7')).toBe('192.0.2.7');
    expect(clientOf('192.0.2.7')).toBe('192.0.2.7');
    expect(clientOf('2001:db8:1:2:aaaa::1')).toBe(clientOf('2001:db8:1:2:bbbb::9'));
    expect(clientOf('2001:db8:1:2::1')).not.toBe(clientOf('2001:db8:1:3::1'));
    const throttle = new FailedAuthThrottle(1);
    throttle.recordFailure('2001:db8:1:2::1');
    expect(throttle.retryAfterSeconds('2001:db8:1:2::ffff')).not.toBeNull();
  });

  it('holds a bounded number of clients: expired ones go first, then the oldest', () => {
    let now = 0;
    const throttle = new FailedAuthThrottle(1, () => now, 3);
    throttle.recordFailure('10.0.0.1');
    now += 61_000;
    throttle.recordFailure('10.0.0.2');
    throttle.recordFailure('10.0.0.3');
    throttle.recordFailure('10.0.0.4'); // full: 10.0.0.1 has expired and makes room
    expect(throttle.size).toBe(3);
    expect(throttle.retryAfterSeconds('10.0.0.2')).not.toBeNull();
    throttle.recordFailure('10.0.0.5'); // full, none expired: the oldest (10.0.0.2) makes room
    expect(throttle.size).toBe(3);
    expect(throttle.retryAfterSeconds('10.0.0.2')).toBeNull();
    expect(throttle.retryAfterSeconds('10.0.0.5')).not.toBeNull();
  });
});

describe('problem type pages', () => {
  it('/problems/<slug> answers only the problem types: constructor, __proto__ and toString are 404', async () => {
    const { base } = await listening();
    const known = await fetch(`${base}/problems/not-found`);
    expect(known.status).toBe(200);
    expect(await known.json()).toMatchObject({ type: '/problems/not-found', status: 404 });
    for (const slug of ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf']) {
      const response = await fetch(`${base}/problems/${slug}`);
      expect(response.status, slug).toBe(404);
      expect(await response.json(), slug).toMatchObject({ code: 'NOT_FOUND' });
    }
  });
});
