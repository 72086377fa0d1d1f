// A schedule does not keep its owner's permission forever: when the owner's key leaves the key file, the
// running API notices (file reload), the owner's schedules refuse their slots (each recorded with the
// reason) and an authorized caller of the tenant can take them over. Real dev server, real worker, the
// production `serveApi` with a real key file, a real HTTP sink.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashApiKey } from '../../src/api/auth.js';
import { type RunningApi, serveApi } from '../../src/api/http/serve.js';
import { TenantPolicy } from '../../src/model/tenant-policy.js';
import { freePort } from '../../src/runtime/ports.js';
import { OWNER_REGISTRY_WORKFLOW_ID, ownerRegistryDescribeQuery } from '../../src/workflows/definitions.js';
import {
  callWithKey,
  type InProcessSchedulerWorker,
  runSchedulerWorker,
  startEventSink,
} from '../helpers/http-api.js';
import { eventually, JOB_QUEUE, SCHEDULER_QUEUE, type Stack, startStack, stopStack } from './support.js';

const ALICE = 'key-acme-alice-0123456789';
const BOB = 'key-acme-bob-0123456789ab';

let stack: Stack;
let worker: InProcessSchedulerWorker;
let api: RunningApi;
let sink: Awaited<ReturnType<typeof startEventSink>>;
let keyFile: string;
const logs: string[] = [];

const call = (method: string, path: string, key: string, body?: unknown) =>
  callWithKey(api.url, key, method, path, body);

beforeAll(async () => {
  stack = await startStack('http-owners');
  worker = await runSchedulerWorker(stack, () => TenantPolicy.openToAll());
  sink = await startEventSink();
  keyFile = join(stack.dir, 'api-keys');
  // Production shape: hashed keys in a file.
  writeFileSync(keyFile, `# acme\n${hashApiKey(ALICE)}=acme:alice\n${hashApiKey(BOB)}=acme:bob\n`);
  api = await serveApi({
    client: stack.client,
    taskQueue: SCHEDULER_QUEUE,
    jobTaskQueue: JOB_QUEUE,
    host: '127.0.0.1',
    port: await freePort(),
    dataDir: stack.dir,
    apiKeyFile: keyFile,
    tenantPolicy: () => TenantPolicy.openToAll(),
    rateLimitPerMinute: 10_000,
    temporalTimeoutMs: 10_000,
    logLevel: 'silent',
    log: (line) => logs.push(line),
  });
  // Revocation is by difference: the owner registry learns the deployment's owners from the first report.
  await eventually(
    'the first owner report',
    async () =>
      (await stack.client.workflow.getHandle(OWNER_REGISTRY_WORKFLOW_ID).query(ownerRegistryDescribeQuery))
        .known.length === 2
        ? true
        : undefined,
    60_000,
  );
});

afterAll(async () => {
  await api?.close();
  await worker?.stop();
  await sink?.close();
  await stopStack(stack);
});

describe('owner revocation', () => {
  it("stops a removed owner's schedule (each refused slot recorded) until another owner takes it over", async () => {
    const created = await call('POST', '/v1/schedules', ALICE, {
      schedule_id: 'alice-heartbeat',
      timing: { kind: 'INTERVAL', every: 'PT2S' },
      target: { type: 'EVENT', event_type: 'heartbeat', sink_url: sink.url },
    });
    expect(created.status).toBe(201);
    expect(created.body.owner_ref).toBe('alice');
    await eventually('two events', async () => (sink.events.length >= 2 ? true : undefined), 20_000);

    // The operator removes alice's key from the file; the running API reloads it.
    writeFileSync(keyFile, `# acme\n${hashApiKey(BOB)}=acme:bob\n`);
    const revoked = await eventually(
      'the schedule to learn its owner was revoked',
      async () => {
        const got = await call('GET', '/v1/schedules/alice-heartbeat', BOB);
        return got.body?.owner_revoked_at ? got.body : undefined;
      },
      30_000,
    );
    expect(revoked.status).toBe('ACTIVE');
    expect(revoked.owner_ref).toBe('alice');
    expect((await call('GET', '/v1/schedules', ALICE)).status).toBe(401);
    expect(logs.some((l) => /API keys reloaded/.test(l))).toBe(true);

    // No event for slots after the revocation; the refused slots are on record.
    const eventsAtRevocation = sink.events.length;
    const revokedAt = Date.parse(revoked.owner_revoked_at);
    const refused = await eventually(
      'two refused slots',
      async () => {
        const occ = await call('GET', '/v1/schedules/alice-heartbeat/occurrences', BOB);
        const skipped = occ.body.items.filter(
          (o: { status: string; reason: string | null }) =>
            o.status === 'SKIPPED' && /no API key/.test(o.reason ?? ''),
        );
        return skipped.length >= 2 ? skipped : undefined;
      },
      20_000,
    );
    expect(refused[0].reason).toMatch(/acme\/alice/);
    // Only hand-offs already in flight when the revocation landed can arrive after it: slots due before it.
    // How many were in flight depends on the machine's speed, so each one is checked, not their number.
    expect(sink.events.filter((e) => Date.parse(e.body.time) > revokedAt + 1000)).toEqual([]);
    const arrivedAfter = sink.events.slice(eventsAtRevocation);
    expect(
      arrivedAfter.filter((e) => Date.parse(e.body.data.scheduled_for) > revokedAt).map((e) => e.body.id),
    ).toEqual([]);
    // And no refused slot reached the sink.
    const delivered = new Set(sink.events.map((e) => e.body.id));
    expect(refused.filter((o: { occurrence_id: string }) => delivered.has(o.occurrence_id))).toEqual([]);

    // Bob takes it over: he becomes the owner and slots are handed off again.
    const takenOver = await call('POST', '/v1/schedules/alice-heartbeat/resume', BOB);
    expect(takenOver.status).toBe(200);
    expect(takenOver.body).toMatchObject({ owner_ref: 'bob', owner_revoked_at: null, status: 'ACTIVE' });
    const before = sink.events.length;
    await eventually(
      'events again',
      async () => (sink.events.length >= before + 2 ? true : undefined),
      20_000,
    );
    const ids = sink.events.map((e) => e.body.id);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
