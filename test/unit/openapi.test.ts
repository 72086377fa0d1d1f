// The OpenAPI document is generated from the zod model by the running API (no hand-written copy). It must be
// a valid OpenAPI 3.1 document and describe every route the API serves under /v1. No Temporal is needed to
// build the document: the API is built with a client that fails if it is ever called.
import { Validator } from '@seriousme/openapi-schema-validator';
import type { Client } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { KeyRing } from '../../src/api/auth.js';
import { buildApi } from '../../src/api/http/server.js';
import { TenantPolicy } from '../../src/model/tenant-policy.js';

const unreachable = new Proxy({} as Client, {
  get: () => {
    throw new Error('the OpenAPI document must not need Temporal');
  },
});

async function api() {
  return await buildApi({
    client: unreachable,
    taskQueue: 'q',
    jobTaskQueue: 'jobs',
    keys: () => KeyRing.fromConfig({ keys: 'key-acme-alice-0123456789=acme:alice' }),
    tenantPolicy: () => TenantPolicy.openToAll(),
  });
}

describe('OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    const app = await api();
    const doc = JSON.parse((await app.inject({ url: '/openapi.json' })).body);
    expect(doc.openapi).toBe('3.1.0');
    const result = await new Validator().validate(doc);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('documents every /v1 operation the API serves, each with its problem responses', async () => {
    const app = await api();
    const doc = JSON.parse((await app.inject({ url: '/openapi.json' })).body);
    const served = app
      .printRoutes({ commonPrefix: false })
      .split('\n')
      .filter((line) => line.includes('/v1/'));
    expect(served.length).toBeGreaterThan(0);
    const documented = Object.entries(doc.paths as Record<string, Record<string, unknown>>).flatMap(
      ([path, ops]) => Object.keys(ops).map((method) => `${method.toUpperCase()} ${path}`),
    );
    for (const expected of [
      'POST /v1/schedules',
      'GET /v1/schedules',
      'GET /v1/schedules/{id}',
      'PATCH /v1/schedules/{id}',
      'DELETE /v1/schedules/{id}',
      'GET /v1/schedules/{id}/describe',
      'GET /v1/schedules/{id}/occurrences',
      'POST /v1/schedules/{id}/pause',
      'POST /v1/schedules/{id}/resume',
      'POST /v1/schedules/{id}/trigger',
      'POST /v1/schedules/{id}/backfill',
      'POST /v1/schedules/{id}/cancel',
      'POST /v1/preview',
      'POST /v1/interpret',
      'GET /healthz',
      'GET /readyz',
    ]) {
      expect(documented).toContain(expected);
    }
    for (const [path, ops] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
      if (!path.startsWith('/v1/')) continue;
      for (const [method, op] of Object.entries(ops)) {
        const problem = op.responses['401']?.content?.['application/problem+json'];
        expect(problem, `${method} ${path} documents 401 as a problem`).toBeDefined();
        expect(op.responses['503'], `${method} ${path} documents 503`).toBeDefined();
      }
    }
  });

  it('describes POST /v1/interpret: its request, its result, and the 422 problem with readings and unread', async () => {
    const app = await api();
    const doc = JSON.parse((await app.inject({ url: '/openapi.json' })).body);
    const op = doc.paths['/v1/interpret'].post;
    const resolve = (schema: { $ref?: string }) =>
      schema.$ref ? doc.components.schemas[schema.$ref.split('/').pop()!] : schema;
    const body = resolve(op.requestBody.content['application/json'].schema);
    expect(Object.keys(body.properties)).toEqual(
      expect.arrayContaining(['text', 'timezone', 'now', 'count', 'language']),
    );
    expect(body.required).toEqual(['text']);
    const result = resolve(op.responses['200'].content['application/json'].schema);
    expect(Object.keys(result.properties)).toEqual(
      expect.arrayContaining(['timing', 'explanation', 'notes', 'next_runs', 'text', 'language', 'timezone']),
    );
    const problem = resolve(op.responses['422'].content['application/problem+json'].schema);
    expect(problem.properties.readings.type).toBe('array');
    expect(problem.properties.unread.type).toBe('array');
    expect(problem.properties.readings.description).toMatch(/AMBIGUOUS/);
    expect(problem.properties.unread.description).toMatch(/UNREADABLE/);
    expect(problem.required).not.toContain('readings');
    // The views: the explanation on a schedule and a preview, authored_from on the definition.
    expect(doc.components.schemas.Schedule.properties.explanation.type).toBe('string');
    expect(doc.components.schemas.Schedule.properties.authored_from.maxLength).toBe(1000);
    expect(doc.components.schemas.ScheduleSpec.properties.authored_from.description).toMatch(/audit/);
    const preview = resolve(
      doc.paths['/v1/preview'].post.responses['200'].content['application/json'].schema,
    );
    expect(preview.properties.explanation.type).toBe('string');
    const unprocessable = JSON.parse((await app.inject({ url: '/problems/unprocessable' })).body);
    expect(unprocessable.description).toMatch(/AMBIGUOUS.*UNREADABLE.*ZONE_REQUIRED/);
  });

  it('serves the browsable reference at /docs and problem type descriptions', async () => {
    const app = await api();
    const docs = await app.inject({ url: '/docs' });
    expect(docs.statusCode).toBe(200);
    expect(docs.headers['content-type']).toMatch(/text\/html/);
    const problem = await app.inject({ url: '/problems/version-conflict' });
    expect(JSON.parse(problem.body)).toMatchObject({ status: 409, title: 'Version conflict' });
  });
});
