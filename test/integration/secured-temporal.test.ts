// Issue 38, "proof, for real": a real Temporal server (v1.29.1) locked down as production locks one, mTLS on
// the frontend and JWT authorization by the server's default claim mapper and authorizer
// (test/helpers/secured-temporal.ts, deploy/native/temporal-server-secured.yaml). Nothing of Temporal's
// security is mocked.
//   1. The server itself, through @temporalio/client and a bare TLS handshake: what it refuses (no client
//      certificate, a certificate of another CA, no token, a token for another namespace, a forged or an
//      expired token, a writer adding search attributes, the frontend's client certificate at the internal
//      frontend) and what it serves (a writer's workflow, an admin's search attribute): each refusal has its
//      control that is served.
//   2. The product (`src/main.ts`, SCHEDULER_ROLE=worker and =api in separate processes) configured only by
//      Temporal's client environment (TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_TLS_*) and a key file
//      (SCHEDULER_TEMPORAL_API_KEY_FILE) holding a namespace writer's JWT:
//      - a burst of ONE_TIME schedules with EVENT targets: every occurrence handed off once (none lost, none
//        doubled, counted by occurrence ID at the sink);
//      - key rotation: the processes start on a token that expires; a second one written to the key file is
//        taken up, and once the first expired (a raw client on it is refused) they still create and fire;
//      - an identity that may not create search attributes: on a namespace without them the start exits 1
//        with the commands to run; once an admin created them, the same start succeeds;
//      - the same start with the wrong CA, or without a token, exits 1;
//      - certificate rotation as docs/operations.md describes it ("read at start"): the client certificate and key
//        files overwritten with a fresh pair of the same CA change nothing in the running processes (they
//        keep creating and firing, and log nothing about it); a restarted worker starts on the new pair and
//        fires; a restart after the files were overwritten with garbage exits 1 with one `error:` line naming
//        TEMPORAL_TLS_CLIENT_CERT_PATH, while
//        the running processes still create and fire. (Runs last, alone: it restarts the file's worker.)
// The search attributes of the test namespace are created once by an admin identity with the product's own
// registration (src/runtime/namespace.ts registerSearchAttributes), as an operator does before deploying a
// namespace-scoped identity: the product processes never hold more than `<namespace>:write`.
import { copyFileSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, Connection, type ConnectionOptions } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerSearchAttributes } from '../../src/runtime/namespace.js';
import { schedulerSearchAttributes } from '../../src/workflows/search-attributes.js';
import { startEventSink } from '../helpers/http-api.js';
import type { Spawned } from '../helpers/process.js';
import { type ProductWorker, startProductWorker } from '../helpers/product.js';
import {
  issueCertificate,
  makeCertificateAuthority,
  SERVER_NAME,
  type SecuredTemporal,
  startSecuredTemporal,
  tlsHandshake,
} from '../helpers/secured-temporal.js';
import { tempDir } from '../helpers/servers.js';
import { OPEN_TARGETS, writeTenantsFile } from '../helpers/tenants.js';
import {
  type ApiProcess,
  eventually,
  killHard,
  type Stack,
  spawnProduct,
  startApiProcess,
} from './support.js';

const GRPC_PERMISSION_DENIED = 7;
const UNAUTHORIZED = 'Request unauthorized.';
/** The scheduler's HTTP API key (tenant acme), not a Temporal credential. */
const KEY = 'secured-temporal-acme-0123456789abcdef';
/**
 * Lifetime of the token the product processes start on: their start (a few seconds; tens on a loaded
 * machine) and the first burst must fit in it, and the rotation test waits for it to run out.
 */
const FIRST_TOKEN_LIFETIME_S = 60;

let dir: string;
let temporal: SecuredTemporal;
/** What support.ts's process helpers need of a stack: the directory, the address, the processes. */
let stack: Stack;

beforeAll(async () => {
  dir = tempDir('secured-temporal');
  temporal = await startSecuredTemporal({ dir, namespace: 'secured' });
  stack = { dir, server: { address: temporal.address }, processes: [] as Spawned[] } as unknown as Stack;
});
afterAll(async () => {
  await Promise.all((stack?.processes ?? []).map(killHard));
  await temporal?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function withConnection<T>(options: ConnectionOptions, fn: (c: Connection) => Promise<T>): Promise<T> {
  const connection = await Connection.connect(options);
  try {
    return await fn(connection);
  } finally {
    await connection.close();
  }
}

/** The gRPC status of a refused call: the error's own, or for Connection.connect the one it wraps. */
async function refusal(call: () => Promise<unknown>): Promise<{ code: number | undefined; details: string }> {
  try {
    await call();
  } catch (err) {
    type Status = { code?: number; details?: string; message: string };
    const e = err as Status & { cause?: Status };
    const status = e.code !== undefined ? e : (e.cause ?? e);
    return { code: status.code, details: status.details ?? status.message };
  }
  throw new Error('the call was served');
}

/** Writes a key file as a secret volume swaps it: whole, by rename (never a half-written file). */
function writeKeyFile(file: string, token: string): void {
  writeFileSync(`${file}.next`, `${token}\n`);
  renameSync(`${file}.next`, file);
}

/** What an operator sets on the product to reach the secured server: Temporal's own client variables. */
function productEnv(
  namespace: string,
  keyFile: string | null,
  ca = temporal.files.ca,
): Record<string, string> {
  return {
    TEMPORAL_NAMESPACE: namespace,
    TEMPORAL_TLS_SERVER_CA_CERT_PATH: ca,
    TEMPORAL_TLS_CLIENT_CERT_PATH: temporal.files.clientCert,
    TEMPORAL_TLS_CLIENT_KEY_PATH: temporal.files.clientKey,
    // The certificate names localhost and 127.0.0.1; with the name set, Node does not send an IP as SNI.
    TEMPORAL_TLS_SERVER_NAME: SERVER_NAME,
    ...(keyFile ? { SCHEDULER_TEMPORAL_API_KEY_FILE: keyFile } : {}),
  };
}

/** How a product start ends: `exit <code>`, or `ready` once it says so (then it is still running). */
async function outcome(p: Spawned, timeoutMs = 120_000): Promise<string> {
  return await Promise.race([
    p.exit.then(({ code, signal }) => `exit ${code ?? signal}`),
    // An exit rejects waitFor too: the exit's own branch answers then.
    p.waitFor(/ready; Ctrl-C/, timeoutMs).then(
      () => 'ready',
      () =>
        p.child.exitCode === null && p.child.signalCode === null
          ? `neither ready nor exited in ${timeoutMs} ms`
          : new Promise<string>(() => {}),
    ),
  ]);
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('the secured Temporal server', () => {
  it('refuses a client without a client certificate, or with one of another CA, at the TLS handshake', async () => {
    const { ca, clientCert, clientKey } = temporal.files;
    expect(await tlsHandshake(temporal.address, { ca })).toMatchObject({
      accepted: false,
      code: 'ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED',
    });
    const foreignCa = makeCertificateAuthority(join(dir, 'foreign'), 'foreign-ca');
    const foreign = issueCertificate(foreignCa, join(dir, 'foreign'), 'client', 'durable-scheduler', [
      'clientAuth',
    ]);
    expect(await tlsHandshake(temporal.address, { ca, cert: foreign.cert, key: foreign.key })).toMatchObject({
      accepted: false,
      code: 'ERR_SSL_TLSV1_ALERT_UNKNOWN_CA',
    });
    // The control: the harness's client certificate is accepted, and HTTP/2 (gRPC) follows.
    expect(await tlsHandshake(temporal.address, { ca, cert: clientCert, key: clientKey })).toEqual({
      accepted: true,
      alpn: 'h2',
    });
    // The SDK's client without a certificate gets no call through, an admin's token notwithstanding.
    await expect(
      Connection.connect({
        ...temporal.connectionOptions(temporal.adminToken(), { clientCert: false }),
        connectTimeout: 2000,
      }),
    ).rejects.toThrow(/Failed to connect before the deadline/);
  });

  it('a client certificate without a token: PermissionDenied on the namespace', async () => {
    await withConnection(temporal.connectionOptions(null), async (c) => {
      // GetSystemInfo (Connection.connect's probe) is a health check, open to every caller with a certificate.
      expect(
        await refusal(() => c.workflowService.listWorkflowExecutions({ namespace: temporal.namespace })),
      ).toEqual({ code: GRPC_PERMISSION_DENIED, details: UNAUTHORIZED });
    });
  });

  it('refuses a token for another namespace, a forged token and an expired one: PermissionDenied', async () => {
    const ns = temporal.namespace;
    await withConnection(
      temporal.connectionOptions(temporal.token({ permissions: ['elsewhere:write'] })),
      async (c) => {
        expect(await refusal(() => c.workflowService.listWorkflowExecutions({ namespace: ns }))).toEqual({
          code: GRPC_PERMISSION_DENIED,
          details: UNAUTHORIZED,
        });
      },
    );
    // A token the server cannot verify is refused before any call, health check included.
    for (const token of [
      temporal.token({ permissions: [`${ns}:write`], forged: true }),
      temporal.token({ permissions: [`${ns}:write`], expiresInS: -5 }),
    ]) {
      expect(await refusal(() => Connection.connect(temporal.connectionOptions(token)))).toEqual({
        code: GRPC_PERMISSION_DENIED,
        details: UNAUTHORIZED,
      });
    }
  });

  it('serves a writer token with the certificate: it starts, describes and lists a workflow', async () => {
    const ns = temporal.namespace;
    await withConnection(
      temporal.connectionOptions(temporal.token({ permissions: [`${ns}:write`] })),
      async (c) => {
        const client = new Client({ connection: c, namespace: ns });
        const handle = await client.workflow.start('NobodyRunsThis', {
          taskQueue: 'nobody-polls',
          workflowId: 'secured-positive-control',
        });
        expect((await handle.describe()).status.name).toBe('RUNNING');
        const listed = await eventually(
          'the workflow in a listing',
          async () => {
            const ids: string[] = [];
            for await (const w of client.workflow.list({ query: `WorkflowId = 'secured-positive-control'` }))
              ids.push(w.workflowId);
            return ids.length > 0 ? ids : undefined;
          },
          20_000,
        );
        expect(listed).toEqual(['secured-positive-control']);
        await handle.terminate('positive control done');
      },
    );
  });

  it('a writer may not add search attributes (PermissionDenied); an admin may', async () => {
    const ns = temporal.namespace;
    const writer = temporal.connectionOptions(temporal.token({ permissions: [`${ns}:write`] }));
    const probe = { SecuredProbe: 2 }; // INDEXED_VALUE_TYPE_KEYWORD
    await withConnection(writer, async (c) => {
      expect(
        await refusal(() =>
          c.operatorService.addSearchAttributes({ namespace: ns, searchAttributes: probe }),
        ),
      ).toEqual({ code: GRPC_PERMISSION_DENIED, details: UNAUTHORIZED });
      // Listing them is a read: a writer may.
      const listed = await c.operatorService.listSearchAttributes({ namespace: ns });
      expect(listed.customAttributes ?? {}).not.toHaveProperty('SecuredProbe');
    });
    await withConnection(temporal.adminConnectionOptions(), async (c) => {
      await c.operatorService.addSearchAttributes({ namespace: ns, searchAttributes: probe });
      const listed = await c.operatorService.listSearchAttributes({ namespace: ns });
      expect(listed.customAttributes ?? {}).toHaveProperty('SecuredProbe', 2);
    });
  });

  it("the internal frontend (every caller is admin there) refuses the frontend CA's client certificate", async () => {
    const { internodeCa, internodeCert, internodeKey, clientCert, clientKey } = temporal.files;
    expect(
      await tlsHandshake(temporal.internalFrontendAddress, {
        ca: internodeCa,
        cert: clientCert,
        key: clientKey,
      }),
    ).toMatchObject({ accepted: false, code: 'ERR_SSL_TLSV1_ALERT_UNKNOWN_CA' });
    // The control: the server's own internode certificate is accepted.
    expect(
      await tlsHandshake(temporal.internalFrontendAddress, {
        ca: internodeCa,
        cert: internodeCert,
        key: internodeKey,
      }),
    ).toEqual({ accepted: true, alpn: 'h2' });
  });
});

describe('the product through the secured server', () => {
  let sink: Awaited<ReturnType<typeof startEventSink>>;
  let api: ApiProcess;
  let worker: ProductWorker;
  let keyFile: string;
  let tenantsFile: string;
  let firstToken: { token: string; expiresAt: number };

  beforeAll(async () => {
    const ns = temporal.namespace;
    await withConnection(temporal.adminConnectionOptions(), (c) => registerSearchAttributes(c, ns));
    sink = await startEventSink();
    tenantsFile = writeTenantsFile(dir, { acme: OPEN_TARGETS });
    keyFile = join(dir, 'temporal-api-key');
    const issuedAt = Date.now();
    firstToken = {
      token: temporal.token({
        permissions: [`${ns}:write`],
        expiresInS: FIRST_TOKEN_LIFETIME_S,
        subject: 'scheduler-1',
      }),
      // `exp` is whole seconds: the token runs out at the start of the second after it.
      expiresAt: (Math.floor(issuedAt / 1000) + FIRST_TOKEN_LIFETIME_S + 1) * 1000,
    };
    writeKeyFile(keyFile, firstToken.token);
    [api, worker] = await Promise.all([
      startApiProcess(stack, `${KEY}=acme:ops`, productEnv(ns, keyFile)),
      startProductWorker(stack, { ...productEnv(ns, keyFile), SCHEDULER_TENANTS_FILE: tenantsFile }),
    ]);
    const left = firstToken.expiresAt - Date.now();
    if (left < 25_000)
      throw new Error(
        `the product took ${Date.now() - issuedAt} ms to start: too little of the first token's life is left for the burst (${left} ms)`,
      );
  });
  afterAll(async () => {
    await sink?.close();
  });

  const call = (method: string, path: string, body?: unknown) =>
    api.call(method, path, { key: KEY, ...(body === undefined ? {} : { body }) });

  /**
   * Creates `count` ONE_TIME schedules a few seconds ahead with EVENT targets, waits until each completed,
   * and checks every occurrence the schedules record was handed off to the sink exactly once.
   */
  async function burst(prefix: string, count = 5): Promise<void> {
    const at = new Date(Date.now() + 5000).toISOString();
    const ids = Array.from({ length: count }, (_, i) => `${prefix}-${i}`);
    for (const id of ids) {
      const created = await call('POST', '/v1/schedules', {
        schedule_id: id,
        timing: { kind: 'ONE_TIME', at },
        target: { type: 'EVENT', event_type: 'secured.tick', sink_url: sink.url },
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
    }
    const recorded: string[] = [];
    for (const id of ids) {
      await eventually(
        `${id} to complete`,
        async () =>
          (await call('GET', `/v1/schedules/${id}`)).body.status === 'COMPLETED' ? true : undefined,
        60_000,
      );
      const { items } = (await call('GET', `/v1/schedules/${id}/occurrences`)).body;
      // An EVENT occurrence ends HANDED_OFF: the sink answered 2xx (its completion is not tracked).
      expect(
        items.map((o: { status: string }) => o.status),
        id,
      ).toEqual(['HANDED_OFF']);
      recorded.push(items[0].occurrence_id);
    }
    const delivered = new Map<string, number>();
    for (const event of sink.events.filter((e) => ids.includes(e.body?.data?.schedule_id)))
      delivered.set(event.body.id, (delivered.get(event.body.id) ?? 0) + 1);
    expect({
      lost: recorded.filter((id) => !delivered.has(id)),
      doubled: [...delivered].filter(([, n]) => n > 1).map(([id]) => id),
      strays: [...delivered.keys()].filter((id) => !recorded.includes(id)),
    }).toEqual({ lost: [], doubled: [], strays: [] });
    expect(delivered.size).toBe(count);
  }

  it('worker and API processes start on the secured server and hand off a burst: 0 lost, 0 doubled', async () => {
    for (const p of [api, worker])
      expect(p.output()).toMatch(
        new RegExp(
          `Temporal: +${escapeRegExp(temporal.address)} \\(namespace ${temporal.namespace}, .*TLS with a client certificate \\(mTLS\\), CA from settings, server name ${SERVER_NAME}; API key from ${escapeRegExp(keyFile)}`,
        ),
      );
    await burst('first');
    expect(Date.now(), 'the burst ran on the first token').toBeLessThan(firstToken.expiresAt);
  });

  it.concurrent('key rotation: after the first token expired, the API still creates and the worker fires', async () => {
    const ns = temporal.namespace;
    const second = temporal.token({ permissions: [`${ns}:write`], subject: 'scheduler-2' });
    writeKeyFile(keyFile, second);
    const reloaded = new RegExp(`Temporal API key reloaded from ${escapeRegExp(keyFile)}`);
    await Promise.all([api.waitFor(reloaded, 20_000), worker.waitFor(reloaded, 20_000)]);
    await new Promise((r) => setTimeout(r, Math.max(0, firstToken.expiresAt + 1000 - Date.now())));
    // The control that the expiry is real: a client on the first token is refused now, one on the second served.
    expect(await refusal(() => Connection.connect(temporal.connectionOptions(firstToken.token)))).toEqual({
      code: GRPC_PERMISSION_DENIED,
      details: UNAUTHORIZED,
    });
    await withConnection(temporal.connectionOptions(second), (c) =>
      c.workflowService.listWorkflowExecutions({ namespace: ns, pageSize: 1 }),
    );
    await burst('after-expiry');
    // …by the same processes that started on the first token.
    for (const p of [api, worker]) expect(p.child.exitCode).toBeNull();
  });

  it.concurrent('an identity that may not create search attributes: the start lists them and exits 1; after an admin created them it starts', async () => {
    const ns = 'secured-fresh';
    await temporal.createNamespace(ns);
    const freshKey = join(dir, 'fresh-api-key');
    writeKeyFile(freshKey, temporal.token({ permissions: [`${ns}:write`], subject: 'scheduler-fresh' }));
    const start = () =>
      spawnProduct(stack, {
        SCHEDULER_ROLE: 'worker',
        TEMPORAL_TASK_QUEUE: 'fresh-scheduler',
        SCHEDULER_DATA_DIR: mkdtempSync(join(dir, 'fresh-')),
        SCHEDULER_TENANTS_FILE: tenantsFile,
        ...productEnv(ns, freshKey),
      });
    const refused = start();
    expect(await outcome(refused), refused.output()).toBe('exit 1');
    expect(refused.output()).toMatch(
      new RegExp(`missing in namespace ${ns} \\(this identity may not create them\\)`),
    );
    for (const key of schedulerSearchAttributes)
      expect(refused.output()).toContain(
        `temporal operator search-attribute create --namespace ${ns} --name ${key.name} --type `,
      );
    await withConnection(temporal.adminConnectionOptions(), async (c) => {
      const { customAttributes } = await c.operatorService.listSearchAttributes({ namespace: ns });
      expect(Object.keys(customAttributes ?? {}).filter((n) => n.startsWith('Scheduler'))).toEqual([]);
      await registerSearchAttributes(c, ns);
    });
    const started = start();
    await started.waitFor(/ready; Ctrl-C/, 120_000);
    started.child.kill('SIGTERM');
    expect((await started.exit).code, started.output()).toBe(0);
  });

  it.concurrent('the same start with the wrong CA, or without a token, exits 1', async () => {
    const ns = temporal.namespace;
    const foreignCa = makeCertificateAuthority(join(dir, 'wrong-ca'), 'wrong-ca');
    const start = (env: Record<string, string>) =>
      spawnProduct(stack, {
        SCHEDULER_ROLE: 'worker',
        TEMPORAL_TASK_QUEUE: 'refused-scheduler',
        SCHEDULER_DATA_DIR: mkdtempSync(join(dir, 'refused-')),
        SCHEDULER_TENANTS_FILE: tenantsFile,
        ...env,
      });
    const wrongCa = start(productEnv(ns, keyFile, foreignCa.cert));
    const noToken = start(productEnv(ns, null));
    const [a, b] = await Promise.all([outcome(wrongCa), outcome(noToken)]);
    expect(a, wrongCa.output()).toBe('exit 1');
    expect(wrongCa.output()).toMatch(/error: Temporal server at TEMPORAL_ADDRESS=\S+ is not reachable/);
    expect(b, noToken.output()).toBe('exit 1');
    expect(noToken.output()).toMatch(
      new RegExp(
        `error: this identity may not list the search attributes of namespace ${ns} \\(PermissionDenied\\)`,
      ),
    );
  });

  it('certificate rotation: running processes keep the pair they started with; a restart takes the new one; a restart on garbage exits 1', async () => {
    const ns = temporal.namespace;
    const { clientCert, clientKey } = temporal.files;
    // The harness's CA (scripts/secured-temporal.ts makeSecurityMaterial: <dir>/certs/ca.pem and ca.key).
    const ca = { cert: temporal.files.ca, key: join(dir, 'certs', 'ca.key') };
    const started = { cert: readFileSync(clientCert), key: readFileSync(clientKey) };
    const mark = { api: api.output().length, worker: worker.output().length };
    const [apiPid, workerPid] = [api.child.pid, worker.child.pid];

    // 1. A freshly issued pair of the same CA, written over the files the running processes started from (in
    // place, as a compose bind mount of the renewed files is).
    const fresh = issueCertificate(ca, join(dir, 'rotated'), 'client', 'durable-scheduler-rotated', [
      'clientAuth',
    ]);
    copyFileSync(fresh.cert, clientCert);
    copyFileSync(fresh.key, clientKey);
    expect(readFileSync(clientCert).equals(started.cert)).toBe(false);
    expect(readFileSync(clientKey).equals(started.key)).toBe(false);
    await burst('cert-rotated-running');
    // The same processes, and not a word about the files (the API key's file is the only one re-read).
    expect([api.child.pid, worker.child.pid]).toEqual([apiPid, workerPid]);
    for (const p of [api, worker]) expect(p.child.exitCode).toBeNull();
    const since = { api: api.output().slice(mark.api), worker: worker.output().slice(mark.worker) };
    expect(since.api, since.api).not.toMatch(/reload|certificate|TEMPORAL_TLS/i);
    expect(since.worker, since.worker).not.toMatch(/reload|certificate|TEMPORAL_TLS/i);

    // 2. The worker restarted (SIGTERM, started again with the same environment): it reads the new pair, the
    // only one on disk, and is the only worker on the queue, so every hand-off of the burst is its.
    await worker.stop();
    expect((await worker.exit).code, worker.output()).toBe(0);
    worker = await startProductWorker(stack, {
      ...productEnv(ns, keyFile),
      SCHEDULER_TENANTS_FILE: tenantsFile,
    });
    await burst('cert-rotated-restarted');

    // 3. The files overwritten with garbage: a restart exits 1 with one `error:` line; the processes that
    // are running (the API on the first pair, the worker on the second) still create and fire.
    writeFileSync(clientCert, 'not a certificate\n');
    writeFileSync(clientKey, 'not a key\n');
    try {
      const restarted = spawnProduct(stack, {
        SCHEDULER_ROLE: 'worker',
        SCHEDULER_DATA_DIR: mkdtempSync(join(dir, 'garbage-')),
        SCHEDULER_TENANTS_FILE: tenantsFile,
        ...productEnv(ns, keyFile),
      });
      const [ended] = await Promise.all([outcome(restarted), burst('cert-garbage-on-disk', 3)]);
      expect(ended, restarted.output()).toBe('exit 1');
      const errors = restarted
        .output()
        .split('\n')
        .filter((line) => line.startsWith('error:'));
      expect(errors, restarted.output()).toHaveLength(1);
      // Named before anything connects (src/runtime/temporal-connection.ts parses the pair at start).
      expect(errors[0]).toMatch(/^error: TEMPORAL_TLS_CLIENT_CERT_PATH: holds no PEM certificate$/);
      for (const p of [api, worker]) expect(p.child.exitCode).toBeNull();
    } finally {
      copyFileSync(fresh.cert, clientCert);
      copyFileSync(fresh.key, clientKey);
    }
  });
});
