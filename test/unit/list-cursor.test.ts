// List cursors are signed (security review L2): a forged, tampered or foreign cursor is a 400 naming
// querystring.cursor — never a 500 and an error log line — and replicas that share SCHEDULER_CURSOR_SECRET
// accept each other's cursors. Through the real HTTP API on a fake Temporal whose list call refuses, like
// the server, a page token it never issued with INVALID_ARGUMENT.
import { createHash } from 'node:crypto';
import type { Client } from '@temporalio/client';
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { KeyRing } from '../../src/api/auth.js';
import { buildApi } from '../../src/api/http/server.js';
import { TenantPolicy } from '../../src/model/tenant-policy.js';

const KEY = 'sk_cursor_0123456789abcdefgh';
const SECRET = 'a-cursor-secret-shared-by-replicas-0123456789';
const GRPC_INVALID_ARGUMENT = 3;

/** A Temporal whose visibility has one more page after each, and knows only the tokens it handed out. */
function fakeTemporal(options: { refuseEveryToken?: boolean } = {}) {
  const issued = new Set<string>();
  const listCalls: Array<{ query: string; token: string | null }> = [];
  const invalidArgument = () =>
    Object.assign(new Error('3 INVALID_ARGUMENT: invalid page token'), { code: GRPC_INVALID_ARGUMENT });
  const client = {
    options: { namespace: 'default' },
    connection: { withDeadline: (_deadline: number, fn: () => Promise<unknown>) => fn() },
    workflowService: {
      listWorkflowExecutions: async (request: { query: string; nextPageToken?: Uint8Array }) => {
        const token = request.nextPageToken ? Buffer.from(request.nextPageToken).toString('utf8') : null;
        listCalls.push({ query: request.query, token });
        if (token !== null && (options.refuseEveryToken || !issued.has(token))) throw invalidArgument();
        const next = `page-after-${token ?? 'start'}`;
        issued.add(next);
        return { executions: [], nextPageToken: Buffer.from(next) };
      },
    },
  };
  return { client: client as unknown as Client, listCalls };
}

const apps: FastifyInstance[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.close()));
});

async function api(client: Client, cursorSecret?: string) {
  const logLines: Array<{ level: number; msg: string }> = [];
  const app = await buildApi({
    client,
    taskQueue: 'scheduler',
    jobTaskQueue: 'jobs',
    keys: () => KeyRing.fromConfig({ keys: `${KEY}=acme:ops` }),
    tenantPolicy: () => TenantPolicy.openToAll(),
    ...(cursorSecret ? { cursorSecret } : {}),
    logger: { level: 'info', stream: { write: (line: string) => logLines.push(JSON.parse(line)) } },
  });
  apps.push(app);
  const list = async (query = '') => {
    const response = await app.inject({
      url: `/v1/schedules${query}`,
      headers: { authorization: `Bearer ${KEY}` },
    });
    return { status: response.statusCode, body: response.json() };
  };
  return { list, errors: () => logLines.filter((line) => line.level >= 50) };
}

function expectCursorRefused(response: { status: number; body: Record<string, unknown> }) {
  expect(response.status).toBe(400);
  expect(response.body).toMatchObject({
    code: 'VALIDATION',
    field: 'querystring.cursor',
    errors: [{ field: 'querystring.cursor' }],
  });
  expect(response.body.detail).toMatch(/list again from the start/);
}

describe('list cursors', () => {
  it('pages through a listing with the cursors it issued', async () => {
    const temporal = fakeTemporal();
    const { list } = await api(temporal.client, SECRET);
    const first = await list('?status=ACTIVE');
    expect(first.status).toBe(200);
    const second = await list(`?status=ACTIVE&cursor=${first.body.next_cursor}`);
    expect(second.status).toBe(200);
    expect(temporal.listCalls.map((c) => c.token)).toEqual([null, 'page-after-start']);
  });

  it('a cursor forged the way 0.4 made them (an unkeyed hash of the query) → 400, Temporal never sees it', async () => {
    const temporal = fakeTemporal();
    const { list, errors } = await api(temporal.client, SECRET);
    await list(); // the query the forger wants a page of
    const query = temporal.listCalls[0]!.query;
    const forged = Buffer.from(
      JSON.stringify({
        q: createHash('sha256').update(query).digest('base64url').slice(0, 16),
        t: Buffer.from('a token Temporal never issued').toString('base64url'),
      }),
    ).toString('base64url');
    expectCursorRefused(await list(`?cursor=${forged}`));
    expect(temporal.listCalls).toHaveLength(1);
    expect(errors()).toEqual([]);
  });

  it('a tampered cursor → 400: any byte changed, cut short, or moved to other filters', async () => {
    const temporal = fakeTemporal();
    const { list, errors } = await api(temporal.client, SECRET);
    const cursor = (await list('?status=ACTIVE')).body.next_cursor as string;
    const bytes = Buffer.from(cursor, 'base64url');
    for (let i = 0; i < bytes.length; i++) {
      const changed = Buffer.from(bytes);
      changed[i]! ^= 0x01;
      expectCursorRefused(await list(`?status=ACTIVE&cursor=${changed.toString('base64url')}`));
    }
    expectCursorRefused(await list(`?status=ACTIVE&cursor=${bytes.subarray(0, 16).toString('base64url')}`));
    expectCursorRefused(await list(`?status=ACTIVE&cursor=${bytes.subarray(0, 10).toString('base64url')}`));
    expectCursorRefused(await list(`?status=PAUSED&cursor=${cursor}`));
    expectCursorRefused(await list(`?cursor=${cursor}`));
    expect(temporal.listCalls).toHaveLength(1);
    expect(errors()).toEqual([]);
  });

  it('replicas with the same SCHEDULER_CURSOR_SECRET accept each other’s cursors; another secret does not', async () => {
    const temporal = fakeTemporal();
    const replicaA = await api(temporal.client, SECRET);
    const replicaB = await api(temporal.client, SECRET);
    const elsewhere = await api(temporal.client, `${SECRET}-of-another-deployment`);
    const cursor = (await replicaA.list()).body.next_cursor as string;
    expect((await replicaB.list(`?cursor=${cursor}`)).status).toBe(200);
    expectCursorRefused(await elsewhere.list(`?cursor=${cursor}`));
  });

  it('without a secret each process signs with its own: its cursors work on it', async () => {
    const temporal = fakeTemporal();
    const { list } = await api(temporal.client);
    const cursor = (await list()).body.next_cursor as string;
    expect((await list(`?cursor=${cursor}`)).status).toBe(200);
    const configured = await api(temporal.client, SECRET);
    expectCursorRefused(await configured.list(`?cursor=${cursor}`));
  });

  it('a signed token the server refuses (INVALID_ARGUMENT) → the same 400, no error log line', async () => {
    const temporal = fakeTemporal({ refuseEveryToken: true });
    const { list, errors } = await api(temporal.client, SECRET);
    const cursor = (await list()).body.next_cursor as string;
    expectCursorRefused(await list(`?cursor=${cursor}`));
    expect(temporal.listCalls).toHaveLength(2);
    expect(errors()).toEqual([]);
  });
});
