// The native production stack in secured mode (scripts/stack-prod.ts `--secured`, issue 38): PostgreSQL, the
// Temporal server v1.29.1 on deploy/native/temporal-server-secured.yaml (frontend TLS requiring a client
// certificate of the stack's CA, every call authorized from a JWT by the server's default claim mapper and
// authorizer), two scheduler worker processes and the API process, configured only by Temporal's client TLS
// variables and SCHEDULER_TEMPORAL_API_KEY_FILE holding a `default:write` token (the namespace and the
// search attributes were created with an admin token; the processes only check them).
//   1. The stack is locked: a client without a certificate is refused at the TLS handshake; with the
//      certificate but no token, a call on the namespace is PermissionDenied; each refusal has its control
//      that is served (the certificate, then the scheduler's own token).
//   2. A burst fires through it: schedules on one 2 s grid, each ending after a fixed number of slots, with
//      EVENT targets to a sink on loopback; every slot is recorded once and handed off once, counted by
//      occurrence ID at the sink (none lost, none doubled, none stray).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SERVER_NAME } from '../../scripts/secured-temporal.js';
import { freePorts, NAMESPACE, type Stack, startStack } from '../../scripts/stack-prod.js';
import type { Occurrence } from '../../src/model/contracts.js';
import { startEventSink } from '../helpers/http-api.js';
import { tlsHandshake } from '../helpers/secured-temporal.js';
import { eventually, expectContiguousGrid, latenessSummary } from './support.js';

const TENANT = 'prod';
const API_KEY = 'prod-secured-stack-key-0123456789';
const GRPC_PERMISSION_DENIED = 7;
const SCHEDULES = Number(process.env.PROD_SECURED_SCHEDULES ?? 10);
const SLOTS = Number(process.env.PROD_SECURED_SLOTS ?? 6);
const EVERY_MS = 2000;
const ids = Array.from({ length: SCHEDULES }, (_, i) => `secured-${i + 1}`);
const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('the production stack in secured mode (mTLS + JWT on PostgreSQL, 2 workers, API)', () => {
  let stack: Stack | undefined;
  let dir: string;
  let startedInMs = 0;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ds-prod-secured-'));
    const t0 = Date.now();
    stack = await startStack({
      dir,
      ports: await freePorts(),
      apiKeys: `${API_KEY}=${TENANT}:ops`,
      secured: true,
      log: (line) => console.info(`[secured] ${line}`),
    });
    startedInMs = Date.now() - t0;
    console.info(`[prod secured-stack] the secured stack started in ${Math.round(startedInMs / 100) / 10} s`);
  });
  afterAll(async () => {
    if (!stack) return;
    await stack.stop();
    if (process.env.KEEP_STACK !== '1') {
      rmSync(dir, { recursive: true, force: true });
      rmSync(stack.postgres.dataDir, { recursive: true, force: true });
      rmSync(`${stack.postgres.dataDir}.pw`, { force: true });
    }
  });

  const call = async <T = unknown>(method: string, path: string, body?: unknown): Promise<T> => {
    const res = await fetch(`${stack!.apiUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${API_KEY}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(30_000),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
    return JSON.parse(text) as T;
  };

  it('the scheduler processes connect with mTLS and the key file; the frontend refuses no certificate, and a certificate without a token', async () => {
    const security = stack!.security!;
    const { address } = stack!.temporal;
    const { ca, clientCert, clientKey, schedulerKeyFile } = security.files;
    for (const p of [...stack!.workers, stack!.api])
      expect(p.output(), p.name).toMatch(
        new RegExp(
          `Temporal: +${escapeRegExp(address)} \\(namespace ${NAMESPACE}, .*TLS with a client certificate \\(mTLS\\), CA from settings, server name ${SERVER_NAME}; API key from ${escapeRegExp(schedulerKeyFile)}`,
        ),
      );

    // No client certificate: refused at the handshake (TLS 1.3: the alert follows the client's Finished).
    expect(await tlsHandshake(address, { ca })).toMatchObject({
      accepted: false,
      code: 'ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED',
    });
    // The control: the stack's client certificate is accepted, and HTTP/2 (gRPC) follows.
    expect(await tlsHandshake(address, { ca, cert: clientCert, key: clientKey })).toEqual({
      accepted: true,
      alpn: 'h2',
    });

    const calls = async (apiKey: string | null) => {
      const c = await Connection.connect(security.connectionOptions(address, apiKey));
      try {
        await c.workflowService.listWorkflowExecutions({ namespace: NAMESPACE, pageSize: 1 });
        return { code: 0, details: 'served' };
      } catch (err) {
        const e = err as { code?: number; details?: string; message: string };
        return { code: e.code, details: e.details ?? e.message };
      } finally {
        await c.close();
      }
    };
    // The certificate without a token: PermissionDenied on the namespace.
    expect(await calls(null)).toEqual({ code: GRPC_PERMISSION_DENIED, details: 'Request unauthorized.' });
    // The control: the same certificate with the scheduler's own token (a namespace writer) is served.
    expect(await calls(readFileSync(schedulerKeyFile, 'utf8').trim())).toEqual({
      code: 0,
      details: 'served',
    });
  });

  it(`a burst through the secured stack: ${SCHEDULES} schedules × ${SLOTS} slots every 2 s, 0 lost, 0 doubled`, async () => {
    const sink = await startEventSink();
    try {
      const t0 = Date.now();
      const anchor = Math.ceil((Date.now() + 8000) / EVERY_MS) * EVERY_MS;
      for (const id of ids)
        await call('POST', '/schedules', {
          schedule_id: id,
          target: { type: 'EVENT', event_type: 'secured.tick', sink_url: sink.url },
          timing: { kind: 'INTERVAL', every: 'PT2S', anchor: new Date(anchor).toISOString() },
          max_count: SLOTS,
          max_lateness_s: 600, // every slot must fire
        });
      const recorded: Occurrence[] = [];
      for (const id of ids) {
        await eventually(
          `${id} to complete`,
          async () =>
            (await call<{ status: string }>('GET', `/schedules/${id}`)).status === 'COMPLETED'
              ? true
              : undefined,
          anchor + SLOTS * EVERY_MS + 120_000 - Date.now(),
          1000,
        );
        const { items } = await call<{ items: Occurrence[] }>('GET', `/schedules/${id}/occurrences`);
        expect(items, id).toHaveLength(SLOTS);
        expect(new Set(items.map((o) => o.status)), id).toEqual(new Set(['HANDED_OFF']));
        expectContiguousGrid(items, EVERY_MS);
        expect(Math.min(...items.map((o) => Date.parse(o.scheduled_for))), id).toBe(anchor);
        recorded.push(...items);
      }
      const burstMs = Date.now() - t0;
      // Counted outside Temporal: what reached the sink, by occurrence ID (the CloudEvent's id).
      const delivered = new Map<string, number>();
      for (const event of sink.events.filter((e) => ids.includes(e.body?.data?.schedule_id)))
        delivered.set(event.body.id, (delivered.get(event.body.id) ?? 0) + 1);
      const recordedIds = recorded.map((o) => o.occurrence_id);
      const outcome = {
        lost: recordedIds.filter((id) => !delivered.has(id)),
        doubled: [...delivered].filter(([, n]) => n > 1).map(([id]) => id),
        strays: [...delivered.keys()].filter((id) => !recordedIds.includes(id)),
      };
      expect(outcome).toEqual({ lost: [], doubled: [], strays: [] });
      expect(new Set(recordedIds).size).toBe(SCHEDULES * SLOTS);
      expect(delivered.size).toBe(SCHEDULES * SLOTS);
      for (const p of [...stack!.workers, stack!.api]) expect(p.running, p.name).toBe(true);
      console.info(
        `[prod secured-stack] stack started in ${Math.round(startedInMs / 100) / 10} s; ${SCHEDULES} schedules × ${SLOTS} slots: ${recordedIds.length} recorded, ${delivered.size} delivered, lost ${outcome.lost.length}, doubled ${outcome.doubled.length}, strays ${outcome.strays.length}; burst ${Math.round(burstMs / 100) / 10} s; lateness ${latenessSummary(recorded)}`,
      );
    } finally {
      await sink.close();
    }
  });
});
