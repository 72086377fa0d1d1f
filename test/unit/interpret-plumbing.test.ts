// The plumbing of words → timing, apart from the reader itself: POST /v1/interpret, the SDK's interpret,
// `scheduler interpret` and `create --when` answer the same JSON for the same text and refuse the same way.
// The reader and the explainer are stood in for here (a few fixed sentences), so this checks the boundary
// whatever the reader reads; test/integration/http-interpret.test.ts runs the real one on a real stack. The
// API is built in-process with its calendar on the event loop (a pool thread would load the real reader)
// and a Temporal client that fails if it is ever called: none of this needs Temporal.
import type { Client } from '@temporalio/client';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { KeyRing } from '../../src/api/auth.js';
import { SchedulerClient } from '../../src/api/client.js';
import { InterpretProblemError, SchedulerError } from '../../src/api/errors.js';
import { renderProblem } from '../../src/api/http/problems.js';
import { buildApi } from '../../src/api/http/server.js';
import type { Reading } from '../../src/calendar/words/index.js';
import { TenantPolicy } from '../../src/model/tenant-policy.js';
import { runCli } from '../helpers/cli.js';

vi.mock('../../src/calendar/words/index.js', () => {
  const read = (timing: Reading['timing'], options: Reading['options'] = {}, notes: string[] = []) => ({
    timing,
    options,
    notes,
  });
  return {
    readSchedule: (text: string, input: { timezone?: string }) => {
      switch (text) {
        case 'every 10 minutes':
          return { kind: 'read', language: 'en', readings: [read({ kind: 'INTERVAL', every: 'PT10M' })] };
        case 'every weekday at 09:00 in Europe/Riga':
          return {
            kind: 'read',
            language: 'en',
            readings: [read({ kind: 'CRON', expression: '0 9 * * 1-5', timezone: 'Europe/Riga' })],
          };
        case 'every day at 09:00':
          if (!input.timezone)
            return { kind: 'zone-required', language: 'en', reason: 'say in which zone: "in Europe/Riga"' };
          return {
            kind: 'read',
            language: 'en',
            readings: [read({ kind: 'CRON', expression: '0 9 * * *', timezone: input.timezone })],
          };
        case 'every day at 5':
          return {
            kind: 'read',
            language: 'en',
            question: '5 in the morning or in the evening?',
            readings: [
              read({ kind: 'CRON', expression: '0 5 * * *', timezone: 'UTC' }, {}, ['05:00']),
              read({ kind: 'CRON', expression: '0 17 * * *', timezone: 'UTC' }, {}, ['17:00']),
            ],
          };
        case 'every day at 09:00 in Mars/Olympus':
          return {
            kind: 'read',
            language: 'en',
            readings: [read({ kind: 'CRON', expression: '0 9 * * *', timezone: 'Mars/Olympus' })],
          };
        case 'in 20 minutes':
          return { kind: 'read', language: 'en', readings: [read({ kind: 'DELAY', delay: 'PT20M' })] };
        default:
          return {
            kind: 'unread',
            language: 'en',
            reason: 'cannot read the words marked',
            unread: [...text.matchAll(/\S+/g)].map((m) => ({ word: m[0], offset: m.index })),
          };
      }
    },
    explainSpec: (spec: { timing: { kind: string; expression?: string } }) => {
      // An explainer that cannot say a timing: the views leave `explanation` out.
      if (spec.timing.kind === 'DELAY') throw new Error('cannot say it');
      return `explained ${spec.timing.kind}${spec.timing.expression ? ` ${spec.timing.expression}` : ''}`;
    },
  };
});

const KEY = 'key-acme-alice-0123456789';
const NOW = '2026-12-01T10:00:00Z';
const unreachable = new Proxy({} as Client, {
  get: () => {
    throw new Error('interpret must not need Temporal');
  },
});

let app: FastifyInstance;
beforeAll(async () => {
  app = await buildApi({
    client: unreachable,
    taskQueue: 'q',
    jobTaskQueue: 'jobs',
    keys: () => KeyRing.fromConfig({ keys: `${KEY}=acme:alice` }),
    tenantPolicy: () => TenantPolicy.openToAll(),
    calendar: { threads: 0, budgetMs: 1000, tenantQueue: 8 },
  });
});
afterAll(async () => {
  await app?.close();
});

async function post(path: string, body: unknown, key: string | null = KEY) {
  const response = await app.inject({
    method: 'POST',
    url: path,
    headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
    payload: JSON.stringify(body),
  });
  return { status: response.statusCode, type: response.headers['content-type'], body: response.json() };
}

function cli(argv: string[], io: Parameters<typeof runCli>[1] = {}) {
  return runCli(argv, {
    env: { SCHEDULER_URL: 'http://127.0.0.1:9', SCHEDULER_API_KEY: KEY },
    now: () => new Date(NOW),
    isTTY: false,
    ...io,
  });
}

describe('POST /v1/interpret', () => {
  it('200: the timing, its explanation, notes and next runs', async () => {
    const answer = await post('/v1/interpret', {
      text: 'every weekday at 09:00 in Europe/Riga',
      now: NOW,
      count: 2,
    });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      timing: { kind: 'CRON', expression: '0 9 * * 1-5', timezone: 'Europe/Riga' },
      explanation: 'explained CRON 0 9 * * 1-5',
      notes: [],
      next_runs: [
        expect.objectContaining({ fire_at: '2026-12-02T07:00:00Z', local: '2026-12-02T09:00:00+02:00' }),
        expect.objectContaining({ fire_at: '2026-12-03T07:00:00Z' }),
      ],
      text: 'every weekday at 09:00 in Europe/Riga',
      language: 'en',
    });
  });

  it('422 AMBIGUOUS with every reading, UNREADABLE with the words, ZONE_REQUIRED naming timezone', async () => {
    const ambiguous = await post('/v1/interpret', { text: 'every day at 5', now: NOW, count: 1 });
    expect(ambiguous.status).toBe(422);
    expect(ambiguous.type).toMatch(/^application\/problem\+json/);
    expect(ambiguous.body).toMatchObject({
      type: '/problems/unprocessable',
      status: 422,
      code: 'AMBIGUOUS',
      field: 'text',
      detail: 'text: 5 in the morning or in the evening?',
      instance: '/v1/interpret',
    });
    expect(ambiguous.body.readings.map((r: { notes: string[] }) => r.notes)).toEqual([['05:00'], ['17:00']]);
    expect(ambiguous.body.readings[1].next_runs[0].fire_at).toBe('2026-12-01T17:00:00Z');

    const unreadable = await post('/v1/interpret', { text: 'blorf gleep', now: NOW });
    expect(unreadable.status).toBe(422);
    expect(unreadable.body).toMatchObject({
      code: 'UNREADABLE',
      field: 'text',
      unread: [
        { word: 'blorf', offset: 0 },
        { word: 'gleep', offset: 6 },
      ],
    });
    expect(unreadable.body.readings).toBeUndefined();

    const zone = await post('/v1/interpret', { text: 'every day at 09:00', now: NOW });
    expect(zone.status).toBe(422);
    expect(zone.body).toMatchObject({ code: 'ZONE_REQUIRED', field: 'timezone' });
    expect(zone.body.detail).toContain('in Europe/Riga');
    expect((await post('/v1/interpret', { text: 'every day at 09:00', timezone: 'Asia/Tokyo' })).status).toBe(
      200,
    );
  });

  it('a reading the calendar refuses is a 422 saying which field; a malformed request a 400; no key a 401', async () => {
    // The words read as a definition that cannot run: UNREADABLE, the calendar's field in the reason.
    const zone = await post('/v1/interpret', { text: 'every day at 09:00 in Mars/Olympus' });
    expect(zone.status).toBe(422);
    expect(zone.body).toMatchObject({ code: 'UNREADABLE', field: 'text', unread: [] });
    expect(zone.body.detail).toContain('timing.timezone');
    expect((await post('/v1/interpret', { text: 'x'.repeat(1001) })).status).toBe(400);
    expect((await post('/v1/interpret', { text: 'every 10 minutes', count: 0 })).status).toBe(400);
    expect((await post('/v1/interpret', { text: 'every 10 minutes', extra: 1 })).status).toBe(400);
    const anonymous = await post('/v1/interpret', { text: 'every 10 minutes' }, null);
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toMatchObject({ code: 'UNAUTHORIZED' });
  });

  it('POST /v1/preview answers the explanation too, and leaves it out when the explainer cannot say it', async () => {
    const cron = await post('/v1/preview', {
      timing: { kind: 'CRON', expression: '0 9 * * 1-5', timezone: 'Europe/Riga' },
      count: 1,
    });
    expect(cron.status).toBe(200);
    expect(cron.body).toMatchObject({ explanation: 'explained CRON 0 9 * * 1-5' });
    const delay = await post('/v1/preview', { timing: { kind: 'DELAY', delay: 'PT20M' }, count: 1 });
    expect(delay.status).toBe(200);
    expect(delay.body.runs).toHaveLength(1);
    expect(delay.body).not.toHaveProperty('explanation');
  });
});

describe('the SDK reads words locally', () => {
  const sdk = new SchedulerClient({
    client: unreachable,
    taskQueue: 'q',
    jobTaskQueue: 'jobs',
    principal: { tenant_id: 'acme', owner_ref: 'alice' },
    clock: () => Date.parse(NOW),
  });

  it('interpret: what POST /v1/interpret answers; its problems as InterpretProblemError', async () => {
    const http = await post('/v1/interpret', { text: 'every 10 minutes', now: NOW });
    expect(await sdk.interpret({ text: 'every 10 minutes' })).toEqual(http.body);
    const refused = await sdk.interpret({ text: 'every day at 5' }).catch((e) => e);
    expect(refused).toBeInstanceOf(InterpretProblemError);
    expect(refused).toBeInstanceOf(SchedulerError);
    expect(refused).toMatchObject({ code: 'AMBIGUOUS', field: 'text' });
    expect(refused.readings).toHaveLength(2);
    expect(refused.unread).toBeUndefined();
    const unread = await sdk.interpret({ text: 'blorf' }).catch((e) => e);
    expect(unread).toMatchObject({ code: 'UNREADABLE', unread: [{ word: 'blorf', offset: 0 }] });
    const zone = await sdk.interpret({ text: 'every day at 09:00' }).catch((e) => e);
    expect(zone).toMatchObject({ code: 'ZONE_REQUIRED', field: 'timezone' });
    const invalid = await sdk.interpret({ text: '' }).catch((e) => e);
    expect(invalid).toMatchObject({ code: 'VALIDATION', field: 'text' });
  });

  it('the HTTP problem of an InterpretProblemError is the one the CLI prints', async () => {
    for (const text of ['every day at 5', 'blorf gleep', 'every day at 09:00']) {
      const err = (await sdk.interpret({ text, count: 1 }).catch((e) => e)) as InterpretProblemError;
      const rendered = renderProblem(err, '/v1/interpret').body;
      const printed = await cli(['interpret', text, '--now', NOW, '--count', '1', '--json']);
      expect(printed.code).toBe(2);
      expect(JSON.parse(printed.stdout)).toEqual(JSON.parse(JSON.stringify(rendered)));
    }
  });

  it('preview with { explain: true } answers as POST /v1/preview does', () => {
    const spec = {
      target: { type: 'JOB', job_type: 'x' } as const,
      timing: { kind: 'CRON', expression: '0 9 * * 1-5', timezone: 'Europe/Riga' } as const,
    };
    expect(sdk.preview(spec, { from: NOW, count: 1 })).toHaveLength(1);
    expect(sdk.preview(spec, { from: NOW, count: 1, explain: true })).toMatchObject({
      runs: [{ fire_at: '2026-12-02T07:00:00Z' }],
      explanation: 'explained CRON 0 9 * * 1-5',
    });
  });
});

describe('scheduler interpret (no server)', () => {
  it('--json prints exactly what POST /v1/interpret answers for the same text, zone and now', async () => {
    for (const [text, extra] of [
      ['every weekday at 09:00 in Europe/Riga', {}],
      ['every day at 09:00', { timezone: 'Asia/Tokyo' }],
      ['every day at 5', {}],
      ['blorf gleep', {}],
      ['every day at 09:00', {}],
      ['every day at 09:00 in Mars/Olympus', {}],
    ] as const) {
      const http = await post('/v1/interpret', { text, now: NOW, count: 3, ...extra });
      const flags = 'timezone' in extra ? ['--timezone', extra.timezone] : [];
      const printed = await cli(['interpret', text, '--now', NOW, '--count', '3', ...flags, '--json']);
      expect(printed.code, text).toBe(http.status === 200 ? 0 : 2);
      expect(JSON.parse(printed.stdout), text).toEqual(http.body);
      // The same fields in the same order: the bodies are encoded by the same schemas.
      expect(Object.keys(JSON.parse(printed.stdout)), text).toEqual(Object.keys(http.body));
    }
  });

  it('without --json: the explanation, the timing, the next runs in UTC; each reading of an ambiguous text', async () => {
    const read = await cli(['interpret', 'every weekday at 09:00 in Europe/Riga', '--now', NOW]);
    expect(read.code).toBe(0);
    expect(read.stdout).toMatch(/^explained CRON 0 9 \* \* 1-5\n/);
    expect(read.stdout).toContain('"expression":"0 9 * * 1-5"');
    expect(read.stdout).toMatch(/^1 +2026-12-02T07:00:00Z +2026-12-02T09:00:00\+02:00/m);
    const ambiguous = await cli(['interpret', 'every day at 5', '--now', NOW]);
    expect(ambiguous.code).toBe(2);
    expect(ambiguous.stdout).toMatch(/reads 2 ways/);
    expect(ambiguous.stdout).toMatch(/^Reading 1: explained CRON 0 5/m);
    expect(ambiguous.stdout).toMatch(/^Reading 2: explained CRON 0 17/m);
    expect(ambiguous.stderr).toMatch(/^error: text: .*\(AMBIGUOUS\)\n$/);
    const unread = await cli(['interpret', 'blorf gleep', '--now', NOW]);
    expect(unread.code).toBe(2);
    expect(unread.stdout).toContain('  blorf gleep\n  ^^^^^ ^^^^^\n');
    const bad = await cli(['interpret', 'every 10 minutes', '--now', 'yesterday']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^error: --now: /);
  });
});

describe('scheduler create --when', () => {
  const recording = () => {
    const sent: Array<{ url: string; body: unknown }> = [];
    const fetch = (async (url: string, init: { body?: string }) => {
      const body = init.body ? JSON.parse(init.body) : undefined;
      sent.push({ url: String(url), body });
      return new Response(
        JSON.stringify({
          contract: 'schedule.v1',
          ...body,
          tenant_id: 'acme',
          owner_ref: 'alice',
          status: 'ACTIVE',
          version: 1,
          next_run_at: null,
          last_run_at: null,
          created_at: NOW,
          updated_at: NOW,
          pause_note: null,
          owner_revoked_at: null,
          deleted_at: null,
        }),
        { status: 201, headers: { 'content-type': 'application/json' } },
      );
    }) as unknown as typeof globalThis.fetch;
    return { sent, fetch };
  };
  const argv = ['create', '--id', 'tick', '--when', 'every 10 minutes', '--job', 'tick'];

  it('not on a terminal and without --yes: prints what it understood, refuses (exit 2), creates nothing', async () => {
    const { sent, fetch } = recording();
    const r = await cli(argv, { fetch });
    expect(r.code).toBe(2);
    expect(r.stdout).toMatch(/^Understood: explained INTERVAL/);
    expect(r.stderr).toMatch(/^error: --yes: .*not on a terminal/);
    expect(sent).toEqual([]);
  });

  it('on a terminal it asks; no is no schedule', async () => {
    const { sent, fetch } = recording();
    const asked: string[] = [];
    const r = await cli(argv, {
      fetch,
      isTTY: true,
      confirm: async (q: string) => {
        asked.push(q);
        return false;
      },
    });
    expect(asked).toEqual(['Create this schedule? [y/N] ']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/not created/);
    expect(sent).toEqual([]);
  });

  it('--yes creates the structured timing with authored_from; words it cannot read create nothing', async () => {
    const { sent, fetch } = recording();
    const r = await cli([...argv, '--yes', '--json'], { fetch });
    expect(r.code).toBe(0);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.url).toMatch(/\/v1\/schedules$/);
    expect(sent[0]!.body).toEqual({
      schedule_id: 'tick',
      timing: { kind: 'INTERVAL', every: 'PT10M' },
      target: { type: 'JOB', job_type: 'tick' },
      authored_from: 'every 10 minutes',
    });
    // --json: stdout is the API's answer, what was understood went to stderr.
    expect(JSON.parse(r.stdout)).toMatchObject({ schedule_id: 'tick', authored_from: 'every 10 minutes' });
    expect(r.stderr).toMatch(/^Understood: explained INTERVAL/);

    const unread = recording();
    const refused = await cli(['create', '--when', 'blorf gleep', '--job', 'tick', '--yes'], {
      fetch: unread.fetch,
    });
    expect(refused.code).toBe(2);
    expect(unread.sent).toEqual([]);
    const mixed = await cli([...argv, '--every', 'PT5M', '--yes'], { fetch: unread.fetch });
    expect(mixed.code).toBe(2);
    expect(mixed.stderr).toMatch(/--every/);
    expect(unread.sent).toEqual([]);
  });
});
