// Bad input and server-side trouble through the HTTP API, end to end (real dev server, real worker, real
// HTTP). Every answer is application/problem+json (RFC 9457) with the right status — 400 for a request of
// the wrong shape, 422 for a well-formed definition that cannot work — naming the failing `field` and
// saying what to do; bad input is never a 5xx. Then what the server itself answers when it cannot serve:
// 429 past the rate limit, 503 (not a hang) when the worker or Temporal is gone. Every response read
// through `call` is checked against the served OpenAPI document by the harness.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Problem } from '../../src/model/http.js';
import { TenantPolicy } from '../../src/model/tenant-policy.js';
import { monthHalfAYearAway, TestClock } from '../helpers/clock.js';
import { type ApiResponse, type ApiStack, startApiStack } from '../helpers/http-api.js';
import { eventually } from './support.js';

// One key per group. The rate limit is per tenant: the burst test's tenant has a budget of its own of 40
// units a minute (quotas.api_units_per_minute), the others the default.
const SHAPE = 'key-acme-shape-0123456789';
const MEANING = 'key-acme-meaning-01234567';
const REQUESTS = 'key-acme-requests-0123456';
const BURST = 'key-acme-burst-0123456789';
const OPS = 'key-acme-ops-0123456789ab';
const OTHER_TENANT = 'key-globex-ops-012345678';
const KEYS = [
  `${SHAPE}=acme:shape`,
  `${MEANING}=acme:meaning`,
  `${REQUESTS}=acme:requests`,
  `${BURST}=burstco:burst`,
  `${OPS}=acme:ops`,
  `${OTHER_TENANT}=globex:ops`,
].join(',');
const ALLOWED_SINKS = 'http://127.0.0.1:9/allowed/';
const RATE_LIMIT = 40;
const TEMPORAL_TIMEOUT_MS = 3000;
/** The API's own windows (the rate limit's minute) run on it: the burst test holds it still. */
const clock = new TestClock();

let api: ApiStack;

beforeAll(async () => {
  api = await startApiStack('http-errors', {
    keys: KEYS,
    tenantPolicy: TenantPolicy.fromTenants({
      acme: { job_task_queues: ['*'], job_types: ['*'], event_sinks: [ALLOWED_SINKS] },
      globex: { job_task_queues: ['*'], job_types: ['*'] },
      burstco: { job_task_queues: ['*'], job_types: ['*'], quotas: { api_units_per_minute: RATE_LIMIT } },
    }),
    temporalTimeoutMs: TEMPORAL_TIMEOUT_MS,
    now: clock.now,
  });
});
afterAll(async () => {
  await api?.stop();
});

const PROBLEM = /^application\/problem\+json/;
const job = { type: 'JOB', job_type: 'recordedJob' } as const;
const weekdays = { kind: 'CRON', expression: '0 9 * * 1-5', timezone: 'Europe/Riga' } as const;
const valid = () => ({ timing: { ...weekdays } as Record<string, unknown>, target: { ...job } as object });
/** 09:00 on the first of the month half a year away (1 January came due on 1 January). */
const YEARLY = `0 9 1 ${monthHalfAYearAway('Europe/Riga')} *`;
const hoursFromNow = (h: number) => new Date(Date.now() + h * 3_600_000).toISOString();

/** The common shape of every problem answer; returns the body for further checks. */
function expectProblem(response: ApiResponse, status: number, field?: string | null): Problem {
  expect(response.status).toBe(status);
  expect(response.headers.get('content-type')).toMatch(PROBLEM);
  expect(response.body).toMatchObject({ status, instance: expect.any(String) });
  expect(response.body.type).toMatch(/^\/problems\//);
  expect(response.body.detail.length).toBeGreaterThan(10);
  if (field !== undefined) {
    expect(response.body.field).toBe(field);
    if (field) expect(response.body.detail).toContain(field);
  }
  return response.body;
}

interface FieldCase {
  what: string;
  body: Record<string, unknown>;
  field: string;
  /** What the detail must say for the caller to fix it. */
  detail: RegExp;
}

// 400: the request does not have the documented shape.
const shapeCases: FieldCase[] = [
  {
    what: 'an unknown top-level field',
    body: { ...valid(), colour: 'red' },
    field: 'colour',
    detail: /remove it/,
  },
  {
    what: 'an unknown field inside timing',
    body: { ...valid(), timing: { ...weekdays, every_day: true } },
    field: 'timing.every_day',
    detail: /unknown field/,
  },
  {
    what: 'a number sent as a string',
    body: { ...valid(), max_lateness_s: '60' },
    field: 'max_lateness_s',
    detail: /expected number/,
  },
  {
    what: 'timing as a string',
    body: { ...valid(), timing: '0 9 * * 1-5' },
    field: 'timing',
    detail: /object/,
  },
  {
    what: 'a negative number',
    body: { ...valid(), max_lateness_s: -1 },
    field: 'max_lateness_s',
    detail: />=\s*0/,
  },
  { what: 'no target', body: { timing: weekdays }, field: 'target', detail: /expected object/ },
  { what: 'no timing', body: { target: job }, field: 'timing', detail: /expected object/ },
  {
    what: 'a misfire policy that does not exist',
    body: { ...valid(), misfire: 'SOMETIMES' },
    field: 'misfire',
    detail: /SKIP.*FIRE_ONCE.*CATCH_UP/,
  },
  {
    what: 'an overlap policy that does not exist',
    body: { ...valid(), overlap: 'PARALLEL' },
    field: 'overlap',
    detail: /QUEUE/,
  },
  {
    what: 'a timing kind that does not exist',
    body: { ...valid(), timing: { kind: 'WEEKLY', at: '09:00' } },
    field: 'timing.kind',
    detail: /CRON/,
  },
  {
    what: 'a target type that does not exist',
    body: { ...valid(), target: { type: 'FAX' } },
    field: 'target.type',
    detail: /JOB/,
  },
  {
    what: 'an EVENT sink that is not an http(s) URL',
    body: { ...valid(), target: { type: 'EVENT', event_type: 'x', sink_url: 'ftp://127.0.0.1:9/allowed/x' } },
    field: 'target.sink_url',
    detail: /URL/i,
  },
  {
    what: 'an exclusion that is not YYYY-MM-DD',
    body: { ...valid(), exclusions: ['24.12.2026'] },
    field: 'exclusions.0',
    detail: /YYYY-MM-DD/,
  },
  {
    what: 'a schedule_id with a slash',
    body: { ...valid(), schedule_id: 'reports/daily' },
    field: 'schedule_id',
    detail: /letters, digits/,
  },
];

// 422: well-formed, but the definition cannot work.
const meaningCases: FieldCase[] = [
  {
    what: 'an unknown zone',
    body: { ...valid(), timing: { ...weekdays, timezone: 'Europe/Rigaa' } },
    field: 'timing.timezone',
    detail: /Europe\/Rigaa.*IANA/,
  },
  {
    what: 'an unknown calendar zone',
    body: { target: job, timing: { kind: 'INTERVAL', every: 'PT1H' }, timezone: 'Mars/Olympus_Mons' },
    field: 'timezone',
    detail: /Mars\/Olympus_Mons/,
  },
  {
    what: 'a rule that never fires (30 February)',
    body: {
      ...valid(),
      timing: { kind: 'RECURRENCE', rule: 'FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30', timezone: 'Europe/Riga' },
    },
    field: 'timing.rule',
    detail: /never fire/,
  },
  {
    what: 'a negative duration',
    body: { ...valid(), timing: { kind: 'INTERVAL', every: 'PT-5M' } },
    field: 'timing.every',
    detail: /ISO 8601 duration.*PT10M/,
  },
  {
    what: 'a duration in words',
    body: { ...valid(), timing: { kind: 'INTERVAL', every: '10 minutes' } },
    field: 'timing.every',
    detail: /ISO 8601 duration.*PT10M/,
  },
  {
    what: 'a negative delay',
    body: { ...valid(), timing: { kind: 'DELAY', delay: 'PT-5M' } },
    field: 'timing.delay',
    detail: /ISO 8601 duration/,
  },
  {
    what: 'a jitter that is not a duration',
    body: { ...valid(), jitter: 'a bit' },
    field: 'jitter',
    detail: /ISO 8601 duration/,
  },
  {
    what: 'a ONE_TIME instant in the past (expired)',
    body: { ...valid(), timing: { kind: 'ONE_TIME', at: hoursFromNow(-24) } },
    field: 'timing.at',
    detail: /no occurrence after now.*expired/,
  },
  {
    what: 'a ONE_TIME wall-clock time in the past, in a zone (expired)',
    body: { ...valid(), timing: { kind: 'ONE_TIME', at: '2020-09-05T14:00:00', timezone: 'Europe/Riga' } },
    field: 'timing.at',
    detail: /expired/,
  },
  {
    what: 'a cron expression with 7 fields',
    body: { ...valid(), timing: { ...weekdays, expression: '0 0 9 * * 1-5 2030' } },
    field: 'timing.expression',
    detail: /5 fields.*or 6.*got 7/,
  },
  {
    what: 'a window opening at 25:00',
    body: { ...valid(), window: { from: '25:00', to: '18:00' } },
    field: 'window.from',
    detail: /25:00.*time of day/,
  },
  // Sinks outside the tenant policy are 403 FORBIDDEN_TARGET: test/integration/target-policy.test.ts.
];

describe('HTTP API: bad definitions, field by field', () => {
  // Each bad definition carries its own schedule_id, so the test can check that none of them was created.
  const withIds = (cases: FieldCase[], prefix: string) =>
    cases.map((c, i) => ({ ...c, id: `${prefix}-${i}`, body: { schedule_id: `${prefix}-${i}`, ...c.body } }));
  const shape = withIds(shapeCases, 'shape');
  const meaning = withIds(meaningCases, 'meaning');

  it.each(shape)('400 for $what, naming $field', async ({ body, field, detail }) => {
    const response = await api.call('POST', '/v1/schedules', { key: SHAPE, body });
    const problem = expectProblem(response, 400, field);
    expect(problem).toMatchObject({ code: 'VALIDATION', type: '/problems/invalid-request' });
    expect(problem.errors?.[0]?.field).toBe(field);
    expect(problem.detail).toMatch(detail);
  });

  it.each(meaning)('422 for $what, naming $field', async ({ body, field, detail }) => {
    const response = await api.call('POST', '/v1/schedules', { key: MEANING, body });
    const problem = expectProblem(response, 422, field);
    expect(problem).toMatchObject({ code: 'VALIDATION', type: '/problems/unprocessable' });
    expect(problem.errors).toEqual([{ field, reason: expect.any(String) }]);
    expect(problem.detail).toMatch(detail);
  });

  it('none of them was created', async () => {
    for (const { id, body } of [...shape, ...meaning]) {
      if (body.schedule_id !== id) continue; // the case is about the id itself
      const read = await api.call('GET', `/v1/schedules/${id}`, {
        key: id.startsWith('shape') ? SHAPE : MEANING,
      });
      expect(read.status, id).toBe(404);
    }
  });

  it('422 for a DEADLINE reminder longer than the time left to the deadline, naming it', async () => {
    const response = await api.call('POST', '/v1/schedules', {
      key: MEANING,
      body: {
        schedule_id: 'reminder-too-early',
        target: job,
        timing: { kind: 'DEADLINE', at: hoursFromNow(2), reminders: ['PT1H', 'P1D'] },
      },
    });
    const problem = expectProblem(response, 422, 'timing.reminders.1');
    expect(problem.detail).toMatch(/P1D/);
  });

  it('an EVENT sink under the allowed prefix is accepted (201)', async () => {
    const created = await api.call('POST', '/v1/schedules', {
      key: MEANING,
      body: {
        schedule_id: 'allowed-sink',
        // Once a year, months from now: it does not fire (port 9 would refuse) while the file runs.
        timing: { kind: 'CRON', expression: YEARLY, timezone: 'Europe/Riga' },
        target: { type: 'EVENT', event_type: 'report.due', sink_url: `${ALLOWED_SINKS}hooks/report` },
      },
    });
    expect(created.status).toBe(201);
    expect(created.body.target.sink_url).toBe(`${ALLOWED_SINKS}hooks/report`);
  });

  it('a PATCH with a meaning error is 422 naming the field, and leaves the schedule at its version', async () => {
    const patched = await api.call('PATCH', '/v1/schedules/allowed-sink', {
      key: MEANING,
      body: {
        expected_version: 1,
        timing: { kind: 'CRON', expression: YEARLY, timezone: 'Europe/Rigaa' },
      },
    });
    expectProblem(patched, 422, 'timing.timezone');
    const sink = await api.call('PATCH', '/v1/schedules/allowed-sink', {
      key: MEANING,
      body: {
        expected_version: 1,
        target: { type: 'EVENT', event_type: 'x', sink_url: 'http://127.0.0.1:9/x' },
      },
    });
    // Outside the tenant's sink prefixes: the policy's answer (test/integration/target-policy.test.ts).
    expect(expectProblem(sink, 403, 'target.sink_url')).toMatchObject({ code: 'FORBIDDEN_TARGET' });
    const read = await api.call('GET', '/v1/schedules/allowed-sink', { key: MEANING });
    expect(read.body).toMatchObject({ version: 1, timing: { timezone: 'Europe/Riga' } });
  });
});

describe('HTTP API: bad requests', () => {
  const statuses: number[] = [];
  const send = async (method: string, path: string, options: Parameters<ApiStack['call']>[2] = {}) => {
    const response = await api.call(method, path, { key: REQUESTS, ...options });
    statuses.push(response.status);
    return response;
  };

  beforeAll(async () => {
    const created = await api.call('POST', '/v1/schedules', {
      key: REQUESTS,
      body: { schedule_id: 'target', timing: weekdays, target: job },
    });
    expect(created.status).toBe(201);
  });

  it('malformed JSON → 400 MALFORMED_JSON', async () => {
    const response = await send('POST', '/v1/schedules', { rawBody: '{"timing": {"kind": "CRON",' });
    expect(expectProblem(response, 400, null)).toMatchObject({
      code: 'MALFORMED_JSON',
      type: '/problems/malformed-request',
    });
    expect(response.body.detail).toMatch(/not valid JSON/);
  });

  it('a body over 64 KiB → 413', async () => {
    const body = { ...valid(), target: { ...job, payload: { blob: 'x'.repeat(65 * 1024) } } };
    const response = await send('POST', '/v1/schedules', { body });
    expect(expectProblem(response, 413)).toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
  });

  it('a body just under 64 KiB is read (and judged on its content)', async () => {
    const body = { ...valid(), colour: 'x'.repeat(60 * 1024) };
    expectProblem(await send('POST', '/v1/schedules', { body }), 400, 'colour');
  });

  it('a form-encoded body → 415', async () => {
    const response = await send('POST', '/v1/schedules', {
      rawBody: 'timing=daily',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(expectProblem(response, 415)).toMatchObject({ code: 'UNSUPPORTED_MEDIA_TYPE' });
    expect(response.body.detail).toMatch(/application\/json/);
  });

  it('Content-Type: text/plain → 415', async () => {
    const response = await api.call('POST', '/v1/schedules', {
      key: REQUESTS,
      rawBody: JSON.stringify(valid()),
      headers: { 'content-type': 'text/plain' },
    });
    expect(expectProblem(response, 415)).toMatchObject({ code: 'UNSUPPORTED_MEDIA_TYPE' });
  });

  it('an unknown route → 404 problem, with and without /v1', async () => {
    const v1 = await send('GET', '/v1/schedule');
    expect(expectProblem(v1, 404)).toMatchObject({ code: 'NOT_FOUND' });
    expect(v1.body.detail).toContain('/v1/schedule');
    const outside = await send('POST', '/schedules', { body: valid() });
    expect(expectProblem(outside, 404)).toMatchObject({ code: 'NOT_FOUND' });
  });

  it('a known path with a method it does not have → 405 problem with Allow', async () => {
    const put = await send('PUT', '/v1/schedules/target', { body: valid() });
    expect(expectProblem(put, 405)).toMatchObject({ code: 'METHOD_NOT_ALLOWED' });
    expect(put.headers.get('allow')?.split(', ').sort()).toEqual(['DELETE', 'GET', 'HEAD', 'PATCH']);
    const deleteAll = await send('DELETE', '/v1/schedules');
    expect(expectProblem(deleteAll, 405).detail).toMatch(
      /DELETE is not allowed on \/v1\/schedules: use GET, HEAD, POST/,
    );
    // QUERY (a method with a body, without Content-Type here) is judged on its route first, like any other.
    const query = await send('QUERY', '/v1/schedules');
    expect(expectProblem(query, 405)).toMatchObject({ code: 'METHOD_NOT_ALLOWED' });
    // The schedule is untouched.
    expect((await send('GET', '/v1/schedules/target')).status).toBe(200);
  });

  it('an unknown schedule → 404 problem', async () => {
    const response = await send('GET', '/v1/schedules/no-such-schedule');
    expect(expectProblem(response, 404)).toMatchObject({ code: 'NOT_FOUND' });
    expect(response.body.detail).toContain('no-such-schedule');
  });

  it('PATCH without expected_version → 400 naming it (and nothing changes)', async () => {
    const response = await send('PATCH', '/v1/schedules/target', { body: { overlap: 'SKIP' } });
    expect(expectProblem(response, 400, 'expected_version')).toMatchObject({ code: 'VALIDATION' });
    const read = await send('GET', '/v1/schedules/target');
    expect(read.body).toMatchObject({ version: 1, overlap: 'ALLOW' });
  });

  it.each([
    ['after', '2026-11-02T00:00:00Z', '2026-11-01T00:00:00Z'],
    ['equal to', '2026-11-01T00:00:00Z', '2026-11-01T00:00:00Z'],
  ])('backfill with from %s to → 400 naming `to`', async (_what, from, to) => {
    const response = await send('POST', '/v1/schedules/target/backfill', { body: { from, to } });
    expect(expectProblem(response, 400, 'to').detail).toMatch(/from must be before to/);
  });

  it('backfill with a date that is not an instant → 400 naming it', async () => {
    const response = await send('POST', '/v1/schedules/target/backfill', {
      body: { from: 'last monday', to: '2026-11-01T00:00:00Z' },
    });
    expectProblem(response, 400, 'from');
  });

  // Decision: an id is one path segment. An encoded slash in it is a bad id (400 naming `params.id`); a raw
  // slash makes another path, which is no route (404).
  it('a schedule id with a slash: encoded → 400 naming params.id, raw → 404', async () => {
    const encoded = await send('GET', '/v1/schedules/reports%2Fdaily');
    expect(expectProblem(encoded, 400, 'params.id').detail).toMatch(/letters, digits/);
    const raw = await send('GET', '/v1/schedules/reports/daily');
    expect(expectProblem(raw, 404)).toMatchObject({ code: 'NOT_FOUND' });
  });

  it('a 300-character schedule id → 400 naming params.id', async () => {
    const response = await api.call('GET', `/v1/schedules/${'a'.repeat(300)}`, { key: REQUESTS });
    expect(expectProblem(response, 400, 'params.id').detail).toMatch(/200/);
  });

  it('a 150-character schedule id (valid: at most 200) can be created and read back', async () => {
    const id = `long-${'x'.repeat(145)}`;
    const created = await api.call('POST', '/v1/schedules', {
      key: REQUESTS,
      body: { ...valid(), schedule_id: id },
    });
    expect(created.status).toBe(201);
    const read = await api.call('GET', `/v1/schedules/${id}`, { key: REQUESTS });
    expect(read.status).toBe(200);
  });

  it('a malformed percent-escape in the id → 400 problem', async () => {
    expectProblem(await api.call('GET', '/v1/schedules/%zz', { key: REQUESTS }), 400);
  });

  it.each([
    ['limit=0', 'querystring.limit', />=\s*1/],
    ['limit=1000', 'querystring.limit', /<=\s*100/],
    ['limit=ten', 'querystring.limit', /number/],
    ['status=BOGUS', 'querystring.status', /ACTIVE/],
    ['timing_kind=WEEKLY', 'querystring.timing_kind', /CRON/],
    ['include_deleted=yes', 'querystring.include_deleted', /true/],
    ['colour=red', 'querystring.colour', /remove it/],
  ])('list with %s → 400 naming %s', async (query, field, detail) => {
    const response = await send('GET', `/v1/schedules?${query}`);
    expect(expectProblem(response, 400, field).detail).toMatch(detail);
  });

  it.each([
    ['limit=0', 'querystring.limit'],
    ['limit=257', 'querystring.limit'],
    ['cursor=abc', 'querystring.cursor'],
  ])('occurrences with %s → 400 naming %s', async (query, field) => {
    expectProblem(await send('GET', `/v1/schedules/target/occurrences?${query}`), 400, field);
  });

  it('a list cursor that is not one we issued → 400 naming it, not a 5xx', async () => {
    const response = await api.call('GET', '/v1/schedules?cursor=bm90LWEtY3Vyc29y', { key: REQUESTS });
    expectProblem(response, 400, 'querystring.cursor');
  });

  it('an action body with an unknown field or a bad enum → 400 naming it', async () => {
    expectProblem(await send('POST', '/v1/schedules/target/pause', { body: { reason: 'x' } }), 400, 'reason');
    expectProblem(
      await send('POST', '/v1/schedules/target/cancel', { body: { running: 'MAYBE' } }),
      400,
      'running',
    );
    expectProblem(
      await send('POST', '/v1/schedules/target/trigger', { body: { scheduled_for: 'now' } }),
      400,
      'scheduled_for',
    );
    const read = await send('GET', '/v1/schedules/target');
    expect(read.body).toMatchObject({ status: 'ACTIVE', version: 1 });
  });

  it('an action on a cancelled schedule → 409 INVALID_STATE naming its status', async () => {
    const created = await send('POST', '/v1/schedules', {
      body: { ...valid(), schedule_id: 'cancelled-once' },
    });
    expect(created.status).toBe(201);
    expect((await send('POST', '/v1/schedules/cancelled-once/cancel')).status).toBe(200);
    for (const action of ['pause', 'trigger']) {
      const response = await send('POST', `/v1/schedules/cancelled-once/${action}`);
      expect(expectProblem(response, 409)).toMatchObject({ code: 'INVALID_STATE' });
      expect(response.body.detail).toMatch(/CANCELLED/);
    }
  });

  it('cancelling a cancelled schedule → 409 INVALID_STATE (documented)', async () => {
    const response = await api.call('POST', '/v1/schedules/cancelled-once/cancel', { key: REQUESTS });
    expect(expectProblem(response, 409)).toMatchObject({ code: 'INVALID_STATE' });
  });

  // Sizes (issue 10): each answered at once with a 4xx that says what is wrong, or accepted whole.
  it('a payload nested 10,000 levels deep (60 KB) → 400 naming it (was a 500: JSON.stringify overflowed)', async () => {
    const nested = `${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`;
    const rawBody = JSON.stringify({ ...valid(), target: { ...job, payload: '<nested>' } }).replace(
      '"<nested>"',
      nested,
    );
    const response = await send('POST', '/v1/schedules', { rawBody });
    expect(expectProblem(response, 400, 'target.payload').detail).toMatch(/nested more than 32 levels deep/);
    // 32 levels are fine.
    const ok = await send('POST', '/v1/schedules', {
      rawBody: rawBody
        .replace(nested, `${'{"a":'.repeat(31)}1${'}'.repeat(31)}`)
        .replace('{', '{"schedule_id":"deep-32",'),
    });
    expect(ok.status).toBe(201);
  });

  it('10,000 exclusion dates → 413 (the body limit comes first); 4,900 are accepted', async () => {
    const dates = (n: number) =>
      Array.from({ length: n }, (_, i) =>
        new Date(Date.UTC(2030, 0, 1) + i * 86_400_000).toISOString().slice(0, 10),
      );
    const tooMany = await send('POST', '/v1/schedules', { body: { ...valid(), exclusions: dates(10_000) } });
    expect(expectProblem(tooMany, 413)).toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
    const many = await send('POST', '/v1/schedules', {
      body: { schedule_id: 'many-exclusions', ...valid(), exclusions: dates(4_900) },
    });
    expect(many.status).toBe(201);
    expect(many.body.exclusions).toHaveLength(4_900);
  });

  it('a 100-year backfill → 422 saying to split it (bounded work, no hang)', async () => {
    const response = await send('POST', '/v1/schedules/target/backfill', {
      body: {
        from: new Date(Date.now() - 100 * 365.25 * 86_400_000).toISOString(),
        to: new Date().toISOString(),
      },
    });
    expect(expectProblem(response, 422)).toMatchObject({ code: 'VALIDATION' });
    expect(response.body.detail).toMatch(/more than \d+ slots: split it/);
  });

  it('none of the bad requests above was answered with a 5xx', () => {
    expect(statuses.length).toBeGreaterThan(20);
    expect(statuses.filter((s) => s >= 500)).toEqual([]);
  });
});

describe('HTTP API: when the server cannot serve', () => {
  it(`rate limit: the ${RATE_LIMIT + 1}th request in a minute is 429 with retry-after; another tenant is still served`, async () => {
    const preview = { timing: { kind: 'INTERVAL', every: 'PT1H' }, from: '2026-11-01T00:00:00Z', count: 1 };
    // Held from the burst's first request: every request below falls in the minute that request opened,
    // however long this machine takes to send them (on the real clock a slow run saw the window end and
    // more than the limit served).
    clock.hold();
    try {
      let served = 0;
      let limited: ApiResponse | null = null;
      for (let i = 0; i < RATE_LIMIT + 5 && !limited; i++) {
        const response = await api.call('POST', '/v1/preview', { key: BURST, body: preview });
        if (response.status === 429) limited = response;
        else {
          expect(response.status).toBe(200);
          served++;
        }
      }
      expect(served).toBe(RATE_LIMIT);
      expect(limited).not.toBeNull();
      const problem = expectProblem(limited!, 429);
      expect(problem).toMatchObject({ code: 'RATE_LIMITED', type: '/problems/rate-limited' });
      expect(problem.detail).toMatch(/retry/i);
      expect(Number(limited!.headers.get('retry-after'))).toBe(60);

      // The limit is per tenant: the same key on another route is limited too, another tenant is not.
      expect((await api.call('GET', '/v1/schedules', { key: BURST })).status).toBe(429);
      const other = await api.call('GET', '/v1/schedules', { key: OTHER_TENANT });
      expect(other.status).toBe(200);
      const otherCreate = await api.call('POST', '/v1/schedules', {
        key: OTHER_TENANT,
        body: { ...valid(), schedule_id: 'still-served' },
      });
      expect(otherCreate.status).toBe(201);

      // The window is a minute from its first request: limited to its last millisecond, served after it.
      clock.advance(60_000 - 1);
      const lastMs = await api.call('POST', '/v1/preview', { key: BURST, body: preview });
      expect(expectProblem(lastMs, 429).code).toBe('RATE_LIMITED');
      expect(lastMs.headers.get('retry-after')).toBe('1');
      clock.advance(1);
      expect((await api.call('POST', '/v1/preview', { key: BURST, body: preview })).status).toBe(200);
    } finally {
      clock.release();
    }
  });

  it('scheduler worker stopped → a read answers 503 with retry-after in bounded time; back to 200 after restart', async () => {
    const created = await api.call('POST', '/v1/schedules', {
      key: OPS,
      body: { ...valid(), schedule_id: 'outage-probe' },
    });
    expect(created.status).toBe(201);
    const ready = await api.call('GET', '/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body.checks.worker).toMatch(/poller/);

    await api.stopWorker();
    const started = Date.now();
    const down = await api.call('GET', '/v1/schedules/outage-probe', { key: OPS });
    const elapsed = Date.now() - started;
    expect(expectProblem(down, 503)).toMatchObject({ code: 'UNAVAILABLE' });
    expect(Number(down.headers.get('retry-after'))).toBeGreaterThan(0);
    // Ended by the API's own deadline (TEMPORAL_TIMEOUT_MS), not the SDK's default read deadline (10 s) nor
    // the server's query timeout (30 s): a hang detector with seconds to spare, not a speed goal.
    expect(elapsed).toBeLessThan(10_000);

    await api.startWorker();
    const back = await eventually(
      'the read to answer 200 again',
      async () => {
        const r = await api.call('GET', '/v1/schedules/outage-probe', { key: OPS });
        return r.status === 200 ? r : undefined;
      },
      30_000,
      500,
    );
    expect(back.body).toMatchObject({ schedule_id: 'outage-probe', status: 'ACTIVE', version: 1 });
  });

  // Last in the file: the dev server does not come back.
  it('dev server killed → create answers 503 with retry-after within ~15 s (no hang); /readyz is 503', async () => {
    await api.stack.server.kill();
    const started = Date.now();
    const create = await api.call('POST', '/v1/schedules', {
      key: OPS,
      body: { ...valid(), schedule_id: 'after-the-crash' },
    });
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(expectProblem(create, 503)).toMatchObject({ code: 'UNAVAILABLE' });
    expect(Number(create.headers.get('retry-after'))).toBeGreaterThan(0);

    const read = await api.call('GET', '/v1/schedules/outage-probe', { key: OPS });
    expect(read.status).toBe(503);

    const ready = await api.call('GET', '/readyz');
    expect(ready.status).toBe(503);
    expect(ready.body.status).toBe('unavailable');
    expect(ready.body.checks.temporal).toMatch(/unreachable/);
    expect(Number(ready.headers.get('retry-after'))).toBeGreaterThan(0);
    // The process itself is up.
    expect((await api.call('GET', '/healthz')).status).toBe(200);
  });
});
