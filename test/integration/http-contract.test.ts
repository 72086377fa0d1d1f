// A schedule.v1 document round-trips through the HTTP API (issue #21): the spec's own example body (its
// placeholders filled in) names its contract, which a create and a PATCH accept; the server-owned fields of
// a view are refused each with what changes it; a GET's document without them creates the same schedule
// again. Real dev server, real worker, real HTTP; every answer checked against the served OpenAPI document.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiStack, startApiStack } from '../helpers/http-api.js';

const OPS = 'key-tenant-a-ops-0123456789abcdef';

let api: ApiStack;
beforeAll(async () => {
  api = await startApiStack('http-contract', { keys: `${OPS}=tenant_A:user-ops` });
});
afterAll(async () => {
  await api?.stop();
});

/** The seed's schedule.v1 example (SPEC "Contracts"), placeholders filled in. */
const example = () => ({
  contract: 'schedule.v1',
  schedule_id: 'SCH-42',
  tenant_id: 'tenant_A',
  owner_ref: 'user-ops',
  target: { type: 'JOB', job_type: 'recordedJob', payload_ref: 'state://sync-source-42' },
  timing: { kind: 'RECURRENCE', rule: 'FREQ=DAILY;BYHOUR=9;BYMINUTE=0', timezone: 'Europe/Riga' },
  misfire: 'SKIP',
  max_lateness_s: 900,
  status: 'ACTIVE',
  version: 3,
  next_run_at: '2026-09-01T06:00:00.000Z',
  created_at: '2026-08-01T06:00:00.000Z',
  updated_at: '2026-08-02T06:00:00.000Z',
});
/** What SPEC lists as the server's in a schedule.v1 view. */
const SERVER_OWNED = [
  'tenant_id',
  'owner_ref',
  'status',
  'version',
  'next_run_at',
  'last_run_at',
  'created_at',
  'updated_at',
  'pause_note',
  'owner_revoked_at',
  'deleted_at',
  // Generated from the timing by the API (the rule in words), never stored: not part of a definition.
  'explanation',
  // Read from the schedule's occurrences with it (its last outcome): not part of a definition.
  'last_occurrence',
];
const withoutServerOwned = (doc: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(doc).filter(([key]) => !SERVER_OWNED.includes(key)));

describe('a schedule.v1 document round-trips', () => {
  it('the whole example: 400 naming each server-owned field and what changes it, not "unknown field"', async () => {
    const answer = await api.call('POST', '/v1/schedules', { key: OPS, body: example() });
    expect(answer.status).toBe(400);
    const errors = answer.body.errors as Array<{ field: string; reason: string }>;
    expect(errors.map((e) => e.field).sort()).toEqual(
      ['created_at', 'next_run_at', 'owner_ref', 'status', 'tenant_id', 'updated_at', 'version'].sort(),
    );
    const reason = (field: string) => errors.find((e) => e.field === field)!.reason;
    expect(reason('status')).toContain('/pause');
    expect(reason('version')).toContain('expected_version');
    for (const e of errors) {
      expect(e.reason).not.toContain('unknown field');
      expect(e.reason).toContain('leave it out');
    }
  });

  it('the example without them, contract and all: 201; the GET document without them again: 200, the same schedule', async () => {
    const created = await api.call('POST', '/v1/schedules', {
      key: OPS,
      body: withoutServerOwned(example()),
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      contract: 'schedule.v1',
      schedule_id: 'SCH-42',
      tenant_id: 'tenant_A',
      owner_ref: 'user-ops',
      status: 'ACTIVE',
      version: 1,
      misfire: 'SKIP',
      max_lateness_s: 900,
      timing: example().timing,
      target: example().target,
    });

    const read = await api.call('GET', '/v1/schedules/SCH-42', { key: OPS });
    expect(read.status).toBe(200);
    const again = await api.call('POST', '/v1/schedules', { key: OPS, body: withoutServerOwned(read.body) });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({
      schedule_id: 'SCH-42',
      version: 1,
      created_at: created.body.created_at,
    });
  });

  it('a PATCH may name the contract; another contract is 422 naming the one spoken here', async () => {
    const patched = await api.call('PATCH', '/v1/schedules/SCH-42', {
      key: OPS,
      body: { contract: 'schedule.v1', expected_version: 1, max_lateness_s: 600 },
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ version: 2, max_lateness_s: 600 });

    for (const [method, path, body] of [
      [
        'POST',
        '/v1/schedules',
        { ...withoutServerOwned(example()), schedule_id: 'SCH-43', contract: 'schedule.v2' },
      ],
      ['PATCH', '/v1/schedules/SCH-42', { contract: 'schedule.v0', expected_version: 2, max_lateness_s: 60 }],
    ] as const) {
      const refused = await api.call(method, path, { key: OPS, body });
      expect(refused.status, `${method} ${path}`).toBe(422);
      expect(refused.body).toMatchObject({ code: 'VALIDATION', field: 'contract' });
      expect(refused.body.detail).toContain('schedule.v1');
    }
    // Nothing changed by the refused PATCH; the refused create made nothing.
    expect((await api.call('GET', '/v1/schedules/SCH-42', { key: OPS })).body.version).toBe(2);
    expect((await api.call('GET', '/v1/schedules/SCH-43', { key: OPS })).status).toBe(404);
  });
});
