// Tenant isolation and authentication of the HTTP API, end to end (real dev server, real worker, real HTTP).
// A tenant reaches only its own schedules: another tenant's schedule is 404 on every endpoint — never 403
// (which would confirm it exists), never 200 — and stays exactly as it was. Owners of one tenant share its
// schedules. Every /v1 route needs a Bearer key. Every response is checked against the served OpenAPI
// document by the harness.
import { request as httpRequest } from 'node:http';
import { DateTime } from 'luxon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Schedule } from '../../src/model/contracts.js';
import { monthHalfAYearAway } from '../helpers/clock.js';
import { type ApiStack, startApiStack } from '../helpers/http-api.js';
import { eventually } from './support.js';

const ALICE = 'key-acme-alice-0123456789';
const BOB = 'key-acme-bob-0123456789ab';
const GINA = 'key-globex-gina-01234567';
const KEYS = `${ALICE}=acme:alice,${BOB}=acme:bob,${GINA}=globex:gina`;

const SHARED = 'shared-id';
const job = { type: 'JOB', job_type: 'recordedJob' } as const;
// Fires once a year, on the first of the month half a year away: nothing fires by itself while the file runs,
// on any day (1 January, as it was, did on 1 January), so any occurrence is a leak.
const YEARLY_MONTH = monthHalfAYearAway('Europe/Riga');
const yearly = { kind: 'CRON', expression: `0 9 1 ${YEARLY_MONTH} *`, timezone: 'Europe/Riga' } as const;

let api: ApiStack;

beforeAll(async () => {
  api = await startApiStack('http-tenancy', { keys: KEYS });
});
afterAll(async () => {
  await api?.stop();
});

const PROBLEM = /^application\/problem\+json/;

/** The schedule IDs a key's default listing shows. */
async function listedIds(key: string, query = ''): Promise<Array<{ id: string; tenant: string }>> {
  const page = await api.call('GET', `/v1/schedules${query}`, { key });
  expect(page.status).toBe(200);
  return page.body.items.map((s: { schedule_id: string; tenant_id: string }) => ({
    id: s.schedule_id,
    tenant: s.tenant_id,
  }));
}

/** Every operation of the OpenAPI document whose path takes a schedule id, as `METHOD /template`. */
function documentedIdOperations(): string[] {
  return Object.entries(api.validator.doc.paths)
    .filter(([template]) => template.includes('{id}'))
    .flatMap(([template, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${template}`))
    .sort();
}

/** Every documented /v1 operation (the authenticated surface), as [method, concrete path]. */
function documentedV1Operations(): Array<[string, string]> {
  return Object.entries(api.validator.doc.paths)
    .filter(([template]) => template.startsWith('/v1/'))
    .flatMap(([template, ops]) =>
      Object.keys(ops).map((m): [string, string] => [m.toUpperCase(), template.replace('{id}', SHARED)]),
    );
}

// What globex's key tries on acme's schedule. Each body is valid, so a 404 can only mean "not yours".
const crossTenantProbes: Array<{ method: string; path: string; body?: unknown }> = [
  { method: 'GET', path: `/v1/schedules/${SHARED}` },
  { method: 'GET', path: `/v1/schedules/${SHARED}/describe` },
  { method: 'GET', path: `/v1/schedules/${SHARED}/occurrences` },
  { method: 'PATCH', path: `/v1/schedules/${SHARED}`, body: { expected_version: 1, overlap: 'SKIP' } },
  { method: 'POST', path: `/v1/schedules/${SHARED}/pause`, body: { note: 'hijacked' } },
  { method: 'POST', path: `/v1/schedules/${SHARED}/resume` },
  { method: 'POST', path: `/v1/schedules/${SHARED}/trigger`, body: { reason: 'hijacked' } },
  {
    method: 'POST',
    path: `/v1/schedules/${SHARED}/backfill`,
    body: { from: '2026-01-01T00:00:00Z', to: '2026-01-02T00:00:00Z' },
  },
  { method: 'POST', path: `/v1/schedules/${SHARED}/cancel`, body: { note: 'hijacked', running: 'CANCEL' } },
  { method: 'DELETE', path: `/v1/schedules/${SHARED}` },
  { method: 'POST', path: `/v1/schedules/${SHARED}/recompute`, body: { reason: 'hijacked' } },
  { method: 'GET', path: `/v1/schedules/${SHARED}/audit?from=2026-01-01T00:00:00Z&to=2026-01-02T00:00:00Z` },
];

describe('HTTP API: another tenant cannot see or touch a schedule', () => {
  let acmeCreated: Schedule;

  it('acme (alice) creates a schedule; it is listed for acme', async () => {
    const created = await api.call('POST', '/v1/schedules', {
      key: ALICE,
      body: { schedule_id: SHARED, timing: yearly, target: job },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      tenant_id: 'acme',
      owner_ref: 'alice',
      version: 1,
      status: 'ACTIVE',
    });
    // The baseline to compare with later: the schedule once it has computed its next run (the create answer
    // may come before that, with next_run_at null — see the report).
    acmeCreated = await eventually(
      "acme's schedule to know its next run",
      async () => {
        const read = await api.call<Schedule>('GET', `/v1/schedules/${SHARED}`, { key: ALICE });
        return read.body.next_run_at ? read.body : undefined;
      },
      20_000,
    );
    // 09:00 in Riga (+02:00 in winter, +03:00 in summer) on the first of that month, the first one after its
    // creation: counted from created_at, not from a clock read after it.
    const createdAt = DateTime.fromISO(acmeCreated.created_at, { zone: 'Europe/Riga' });
    let firstRun = createdAt.set({
      month: YEARLY_MONTH,
      day: 1,
      hour: 9,
      minute: 0,
      second: 0,
      millisecond: 0,
    });
    if (firstRun <= createdAt) firstRun = firstRun.plus({ years: 1 });
    expect(acmeCreated.next_run_at).toBe(firstRun.toUTC().toISO({ suppressMilliseconds: true }));
    await eventually(
      "acme's schedule in acme's listing",
      async () => ((await listedIds(ALICE)).some((s) => s.id === SHARED) ? true : undefined),
      20_000,
    );
  });

  it('the probe table covers every documented operation that takes a schedule id', () => {
    const templated = crossTenantProbes
      .map((p) => `${p.method} ${p.path.replace(`/${SHARED}`, '/{id}').replace(/\?.*$/, '')}`)
      .sort();
    expect(templated).toEqual(documentedIdOperations());
  });

  it.each(crossTenantProbes)("globex's $method $path on acme's schedule → 404 problem", async (probe) => {
    const response = await api.call(probe.method, probe.path, {
      key: GINA,
      ...(probe.body !== undefined ? { body: probe.body } : {}),
    });
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toMatch(PROBLEM);
    expect(response.body).toMatchObject({ status: 404, code: 'NOT_FOUND', type: '/problems/not-found' });
    // Nothing in the answer tells globex who holds the ID.
    expect(JSON.stringify(response.body)).not.toMatch(/acme|alice/);
  });

  it("acme's schedule is exactly as it was: same version, ACTIVE, nothing triggered, paused or cancelled", async () => {
    const described = await api.call('GET', `/v1/schedules/${SHARED}/describe`, { key: ALICE });
    expect(described.status).toBe(200);
    const { schedule, recent_occurrences, counters } = described.body;
    expect(schedule).toMatchObject({
      tenant_id: 'acme',
      owner_ref: 'alice',
      version: 1,
      status: 'ACTIVE',
      pause_note: null,
      deleted_at: null,
      overlap: acmeCreated.overlap,
      next_run_at: acmeCreated.next_run_at,
      updated_at: acmeCreated.updated_at,
    });
    expect(recent_occurrences).toEqual([]);
    expect(counters.fired).toBe(0);
    expect(api.jobRuns.filter((id) => id.includes(`/${SHARED}/`))).toEqual([]);
  });

  it("globex's listing never shows acme's schedule", async () => {
    const own = await api.call('POST', '/v1/schedules', {
      key: GINA,
      body: { schedule_id: 'globex-own', timing: yearly, target: job },
    });
    expect(own.status).toBe(201);
    // Wait until globex's own schedule is visible, so the listing below is not merely lagging.
    await eventually(
      "globex's own schedule in its listing",
      async () => ((await listedIds(GINA)).some((s) => s.id === 'globex-own') ? true : undefined),
      20_000,
    );
    for (const query of ['', '?include_deleted=true', '?status=ACTIVE', '?timing_kind=CRON']) {
      const items = await listedIds(GINA, query);
      expect(items.map((s) => s.id)).toContain('globex-own');
      expect(items.every((s) => s.tenant === 'globex')).toBe(true);
      expect(items.map((s) => s.id)).not.toContain(SHARED);
    }
  });

  it('globex creates a schedule with the SAME schedule_id (201); the two are independent', async () => {
    const created = await api.call('POST', '/v1/schedules', {
      key: GINA,
      body: { schedule_id: SHARED, timing: { kind: 'INTERVAL', every: 'PT1H' }, target: job },
    });
    expect(created.status).toBe(201);
    expect(created.headers.get('location')).toBe(`/v1/schedules/${SHARED}`);
    expect(created.body).toMatchObject({
      schedule_id: SHARED,
      tenant_id: 'globex',
      owner_ref: 'gina',
      version: 1,
      timing: { kind: 'INTERVAL', every: 'PT1H' },
    });

    // Changing globex's does not change acme's.
    const paused = await api.call('POST', `/v1/schedules/${SHARED}/pause`, {
      key: GINA,
      body: { note: 'globex only' },
    });
    expect(paused.body).toMatchObject({ tenant_id: 'globex', status: 'PAUSED', pause_note: 'globex only' });
    const patched = await api.call('PATCH', `/v1/schedules/${SHARED}`, {
      key: GINA,
      body: { expected_version: 1, overlap: 'SKIP' },
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ tenant_id: 'globex', version: 2, overlap: 'SKIP' });

    const acme = await api.call('GET', `/v1/schedules/${SHARED}`, { key: ALICE });
    expect(acme.body).toMatchObject({
      tenant_id: 'acme',
      version: 1,
      status: 'ACTIVE',
      pause_note: null,
      overlap: 'ALLOW',
      timing: yearly,
    });

    // And the other way round: acme deletes its own, globex's stays.
    expect((await api.call('DELETE', `/v1/schedules/${SHARED}`, { key: ALICE })).status).toBe(204);
    const globex = await api.call('GET', `/v1/schedules/${SHARED}`, { key: GINA });
    expect(globex.status).toBe(200);
    expect(globex.body).toMatchObject({
      tenant_id: 'globex',
      status: 'PAUSED',
      version: 2,
      deleted_at: null,
    });
    const acmeAfter = await api.call('GET', `/v1/schedules/${SHARED}`, { key: ALICE });
    expect(acmeAfter.body).toMatchObject({ tenant_id: 'acme', status: 'CANCELLED' });
    expect(acmeAfter.body.deleted_at).not.toBeNull();

    // Each tenant's listing shows its own one only.
    await eventually(
      "globex's shared-id in globex's listing",
      async () => {
        const items = await listedIds(GINA);
        return items.some((s) => s.id === SHARED) ? items : undefined;
      },
      20_000,
    );
    const acmeDeleted = await listedIds(ALICE, '?include_deleted=true');
    expect(acmeDeleted.filter((s) => s.id === SHARED)).toEqual([{ id: SHARED, tenant: 'acme' }]);
  });

  it("acme cannot pause globex's schedule through a WORKFLOW_SIGNAL target", async () => {
    const victim = await api.call('POST', '/v1/schedules', {
      key: GINA,
      body: { schedule_id: 'victim', timing: yearly, target: job },
    });
    expect(victim.status).toBe(201);
    const attack = await api.call('POST', '/v1/schedules', {
      key: ALICE,
      body: {
        schedule_id: 'signal-attack',
        timing: yearly,
        target: { type: 'WORKFLOW_SIGNAL', workflow_id: 'schedule/globex/victim', signal_name: 'pause' },
      },
    });
    // Scheduler workflows are never targets (the worker refuses them at hand-off too:
    // test/integration/target-policy.test.ts).
    expect(attack.status).toBe(403);
    expect(attack.body).toMatchObject({ code: 'FORBIDDEN_TARGET', field: 'target.workflow_id' });
    const after = await api.call('GET', '/v1/schedules/victim', { key: GINA });
    expect(after.body.status).toBe('ACTIVE');
  });
});

describe('HTTP API: owners of one tenant share its schedules', () => {
  it("bob (acme) reads, lists and changes alice's schedule; his edit makes him the owner", async () => {
    const created = await api.call('POST', '/v1/schedules', {
      key: ALICE,
      body: { schedule_id: 'team-report', timing: yearly, target: job },
    });
    expect(created.status).toBe(201);

    const read = await api.call('GET', '/v1/schedules/team-report', { key: BOB });
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ tenant_id: 'acme', owner_ref: 'alice' });

    const patched = await api.call('PATCH', '/v1/schedules/team-report', {
      key: BOB,
      body: { expected_version: 1, misfire: 'SKIP' },
    });
    expect(patched.status).toBe(200);
    // Whoever last defined what the schedule does answers for it (docs/tenancy-and-security.md, "Owners").
    expect(patched.body).toMatchObject({ version: 2, misfire: 'SKIP', owner_ref: 'bob' });

    const paused = await api.call('POST', '/v1/schedules/team-report/pause', {
      key: ALICE,
      body: { note: 'alice pauses' },
    });
    expect(paused.body).toMatchObject({ status: 'PAUSED', pause_note: 'alice pauses', owner_ref: 'bob' });
    // Resuming a schedule whose owner still has a key does not take it over.
    const resumed = await api.call('POST', '/v1/schedules/team-report/resume', { key: ALICE });
    expect(resumed.status).toBe(200);
    expect(resumed.body).toMatchObject({ status: 'ACTIVE', owner_ref: 'bob', owner_revoked_at: null });

    const seenByAlice = await api.call('GET', '/v1/schedules/team-report', { key: ALICE });
    expect(seenByAlice.body).toMatchObject({ version: 2, misfire: 'SKIP', owner_ref: 'bob' });

    await eventually(
      "alice's schedule in bob's listing",
      async () => ((await listedIds(BOB)).some((s) => s.id === 'team-report') ? true : undefined),
      20_000,
    );
  });

  it.each(['owner_ref', 'tenant_id'])(
    'a create body with %s is 400 naming it, and creates nothing (the owner is always the caller)',
    async (field) => {
      const id = `spoofed-${field.replace('_', '-')}`;
      const response = await api.call('POST', '/v1/schedules', {
        key: ALICE,
        body: {
          schedule_id: id,
          timing: yearly,
          target: job,
          [field]: field === 'owner_ref' ? 'mallory' : 'globex',
        },
      });
      expect(response.status).toBe(400);
      expect(response.headers.get('content-type')).toMatch(PROBLEM);
      expect(response.body).toMatchObject({ field, code: 'VALIDATION' });
      expect(response.body.detail).toContain(field);
      expect((await api.call('GET', `/v1/schedules/${id}`, { key: ALICE })).status).toBe(404);
      expect((await api.call('GET', `/v1/schedules/${id}`, { key: GINA })).status).toBe(404);
    },
  );

  it('a PATCH cannot change the owner either (400 naming owner_ref)', async () => {
    const response = await api.call('PATCH', '/v1/schedules/team-report', {
      key: BOB,
      body: { expected_version: 2, owner_ref: 'alice' },
    });
    expect(response.status).toBe(400);
    expect(response.body.field).toBe('owner_ref');
    expect((await api.call('GET', '/v1/schedules/team-report', { key: ALICE })).body).toMatchObject({
      version: 2,
      owner_ref: 'bob',
    });
  });
});

describe('HTTP API: authentication', () => {
  const credentials: Array<[string, Record<string, string>]> = [
    ['no Authorization header', {}],
    ['an unknown Bearer key', { authorization: 'Bearer key-nobody-0123456789abcdef' }],
    ['a valid key under the Basic scheme', { authorization: `Basic ${ALICE}` }],
    [
      'a valid key as Basic user:password',
      { authorization: `Basic ${Buffer.from(`acme:${ALICE}`).toString('base64')}` },
    ],
    ['Bearer without a key', { authorization: 'Bearer ' }],
  ];

  it('every documented /v1 route is covered (sanity: the document lists the routes)', () => {
    const routes = documentedV1Operations().map(([m, p]) => `${m} ${p}`);
    expect(routes).toEqual(
      expect.arrayContaining([
        'POST /v1/schedules',
        'GET /v1/schedules',
        `GET /v1/schedules/${SHARED}`,
        'POST /v1/preview',
        'POST /v1/interpret',
      ]),
    );
    expect(routes.length).toBeGreaterThanOrEqual(13);
  });

  it.each(credentials)(
    '%s → 401 with www-authenticate: Bearer on every /v1 route',
    async (_what, headers) => {
      for (const [method, path] of documentedV1Operations()) {
        const response = await api.call(method, path, {
          headers,
          ...(method === 'POST' || method === 'PATCH' ? { body: {} } : {}),
        });
        expect(response.status, `${method} ${path}`).toBe(401);
        expect(response.headers.get('www-authenticate'), `${method} ${path}`).toBe('Bearer');
        expect(response.headers.get('content-type')).toMatch(PROBLEM);
        expect(response.body).toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
        expect(response.body.detail).toMatch(/Authorization|API key/);
      }
    },
  );

  it('an unauthenticated caller learns nothing about routes or schedules under /v1 (401, not 404)', async () => {
    // (fetch, not `call`: an unknown route is in no document.)
    const unknown = await fetch(`${api.base}/v1/not-a-route`);
    expect(unknown.status).toBe(401);
    expect(unknown.headers.get('content-type')).toMatch(PROBLEM);
    const missing = await api.call('GET', '/v1/schedules/does-not-exist');
    expect(missing.status).toBe(401);
  });

  it('a percent-encoded or dot-segment spelling of a /v1 route still needs a key (401, never 5xx)', async () => {
    const raw = (path: string) =>
      new Promise<number>((resolve, reject) => {
        const url = new URL(api.base);
        const req = httpRequest({ host: url.hostname, port: url.port, path, method: 'GET' }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        });
        req.on('error', reject);
        req.end();
      });
    for (const path of ['/%761/schedules', `/%761/schedules/${SHARED}`, '/v1/health/../schedules']) {
      const status = await raw(path);
      expect(status, path).toBe(401);
    }
  });

  it('a lower-case bearer scheme is accepted (schemes are case-insensitive)', async () => {
    const response = await api.call('GET', '/v1/schedules?limit=1', {
      headers: { authorization: `bearer ${ALICE}` },
    });
    expect(response.status).toBe(200);
  });

  it('/healthz, /readyz, /openapi.json and /docs are public', async () => {
    const health = await api.call('GET', '/healthz');
    expect(health.status).toBe(200);
    expect(health.body.status).toBe('ok');
    const ready = await api.call('GET', '/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body).toMatchObject({ status: 'ok', checks: { temporal: 'reachable' } });

    const openapi = await fetch(`${api.base}/openapi.json`);
    expect(openapi.status).toBe(200);
    const doc = (await openapi.json()) as { openapi: string; paths: Record<string, unknown> };
    expect(doc.openapi).toMatch(/^3\.1/);
    expect(Object.keys(doc.paths)).toContain('/v1/schedules/{id}');

    const docs = await fetch(`${api.base}/docs`);
    expect(docs.status).toBe(200);
    expect(docs.headers.get('content-type')).toMatch(/text\/html/);

    // A problem's `type` can be dereferenced without a key.
    const type = await fetch(`${api.base}/problems/not-found`);
    expect(type.status).toBe(200);
    expect(await type.json()).toMatchObject({ status: 404, title: 'Not found' });
  });
});
