// Owner revocation without gaps (issue #19): a revoked owner's schedule hands nothing off by any path —
// not by trigger, backfill or a queued occurrence; a signal cannot clear the revocation, only the API's
// takeover can; an edit makes the editor the owner (so a departing owner cannot leave a rewritten schedule
// under a colleague's name); a reconcile that met Temporal down is retried until it lands; an owner removed,
// added back and removed again is stopped again; and a replica still on older keys cannot revoke what newer
// keys added. Real dev server (killed and restarted on its own data), real worker, the production
// `serveApi` with a real key file (two of them for two replicas).
import { utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { temporal } from '@temporalio/proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashApiKey } from '../../src/api/auth.js';
import { type RunningApi, serveApi } from '../../src/api/http/serve.js';
import { scheduleWorkflowId } from '../../src/model/ids.js';
import { TenantPolicy } from '../../src/model/tenant-policy.js';
import { freePort } from '../../src/runtime/ports.js';
import {
  OWNER_REGISTRY_WORKFLOW_ID,
  ownerRegistryDescribeQuery,
  resumeSignal,
} from '../../src/workflows/definitions.js';
import { monthHalfAYearAway } from '../helpers/clock.js';
import {
  callWithKey,
  type InProcessSchedulerWorker,
  runSchedulerWorker,
  startEventSink,
} from '../helpers/http-api.js';
import { startTestDevServer } from '../helpers/servers.js';
import {
  eventually,
  JOB_QUEUE,
  SCHEDULER_QUEUE,
  type Stack,
  spawnProduct,
  startStack,
  stopStack,
} from './support.js';

const KEYS = {
  alice: 'key-acme-alice-0123456789',
  bob: 'key-acme-bob-0123456789ab',
  carol: 'key-acme-carol-0123456789',
  dave: 'key-acme-dave-0123456789a',
  erin: 'key-acme-erin-0123456789a',
  frank: 'key-acme-frank-012345678',
  gina: 'key-globex-gina-012345678',
} as const;
type Owner = keyof typeof KEYS;
/** A yearly slot months away whatever the date: no schedule here may come due while the file runs. */
const YEARLY_FAR = `0 9 1 ${monthHalfAYearAway('Europe/Riga')} *`;
const tenantOf = (o: Owner) => (o === 'gina' ? 'globex' : 'acme');

let stack: Stack;
let worker: InProcessSchedulerWorker;
let api: RunningApi;
let sink: Awaited<ReturnType<typeof startEventSink>>;
let keyFile: string;
const logs: string[] = [];

/** A key file as the operator writes it: hashed keys of these owners. */
const keyLines = (...owners: Owner[]) =>
  owners.map((o) => `${hashApiKey(KEYS[o])}=${tenantOf(o)}:${o}`).join('\n');
/** The API's key file, rewritten (the API re-reads it within 2 s). */
const writeKeys = (...owners: Owner[]) => writeFileSync(keyFile, keyLines(...owners));

/** The deployment's owner registry, as the API's reports left it. */
const registry = () =>
  stack.client.workflow.getHandle(OWNER_REGISTRY_WORKFLOW_ID).query(ownerRegistryDescribeQuery);

const call = (method: string, path: string, owner: Owner, body?: unknown) =>
  callWithKey(api.url, KEYS[owner], method, path, body);

const revokedSchedule = (id: string, asker: Owner) =>
  eventually(
    `${id} to learn its owner was revoked`,
    async () => {
      const got = await call('GET', `/v1/schedules/${id}`, asker);
      return got.body?.owner_revoked_at ? got.body : undefined;
    },
    60_000,
  );

/**
 * Creates `<owner>-events`, an EVENT every 2 s, as `owner` once the API has re-read a key file that gives
 * the owner's key back (it answers 401 until then).
 */
const createEventsOnceKeyIsBack = (owner: Owner) =>
  eventually(
    `${owner}'s key back`,
    async () => {
      const res = await call('POST', '/v1/schedules', owner, {
        schedule_id: `${owner}-events`,
        timing: { kind: 'INTERVAL', every: 'PT2S' },
        target: { type: 'EVENT', event_type: owner, sink_url: sink.url },
      });
      return res.status === 401 ? undefined : res;
    },
    20_000,
  );

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/**
 * True once the schedule's loop has applied the last resume signal of `history`. The loop applies a
 * signal in the workflow task that delivers it, unless it is waiting for an activity (a slot batch): then
 * in the first task that finds none open and starts none itself. So: a completed workflow task after the
 * signal with no activity open when it completed and none scheduled by it.
 */
function applied(history: temporal.api.history.v1.IHistory): true | undefined {
  const events = history.events ?? [];
  const id = (e: HistoryEvent) => String(e.eventId);
  const signal = events.findLastIndex(
    (e) => e.workflowExecutionSignaledEventAttributes?.signalName === resumeSignal.name,
  );
  if (signal < 0) return undefined;
  const open = new Set<string>();
  for (const [i, e] of events.entries()) {
    const scheduled = e.activityTaskScheduledEventAttributes;
    if (scheduled) open.add(id(e));
    const closed =
      e.activityTaskCompletedEventAttributes ??
      e.activityTaskFailedEventAttributes ??
      e.activityTaskTimedOutEventAttributes ??
      e.activityTaskCanceledEventAttributes;
    if (closed) open.delete(String(closed.scheduledEventId));
    if (i > signal && e.workflowTaskCompletedEventAttributes && open.size === 0) {
      const startsOne = events.some(
        (x) => String(x.activityTaskScheduledEventAttributes?.workflowTaskCompletedEventId) === id(e),
      );
      if (!startsOne) return true;
    }
  }
  return undefined;
}

/** An API replica of this deployment on `file`, logging into `into`. */
const startApi = async (file: string, into: string[]) =>
  serveApi({
    client: stack.client,
    taskQueue: SCHEDULER_QUEUE,
    jobTaskQueue: JOB_QUEUE,
    host: '127.0.0.1',
    port: await freePort(),
    dataDir: stack.dir,
    apiKeyFile: file,
    tenantPolicy: () => TenantPolicy.openToAll(),
    rateLimitPerMinute: 10_000,
    // A removed key is polled until the reloaded file takes it back: those 401s are not an attack.
    authFailuresPerMinute: 0,
    temporalTimeoutMs: 10_000,
    logLevel: 'silent',
    ownerReconcileIntervalMs: 3_000,
    log: (line) => into.push(line),
  });

const startWorker = async () => {
  worker = await runSchedulerWorker(stack, () => TenantPolicy.openToAll());
};

beforeAll(async () => {
  stack = await startStack('revocation-gaps');
  await startWorker();
  sink = await startEventSink();
  keyFile = join(stack.dir, 'api-keys');
  writeKeys('alice', 'bob', 'carol', 'dave', 'erin');
  api = await startApi(keyFile, logs);
  // The registry learns the deployment's owners from the API's first report; removals count from there.
  await eventually(
    'the first owner report',
    async () => ((await registry()).known.length === 5 ? true : undefined),
    60_000,
  );
}, 180_000);

afterAll(async () => {
  await api?.close();
  await worker?.stop();
  await sink?.close();
  await stopStack(stack);
});

describe('owner revocation without gaps', () => {
  it('a revoked schedule refuses trigger and backfill (409 naming the revocation) and its queued occurrence', async () => {
    // QUEUE overlap on a job queue nobody polls: the first run stays RUNNING, the next slots queue behind it.
    const created = await call('POST', '/v1/schedules', 'carol', {
      schedule_id: 'carol-queue',
      timing: { kind: 'INTERVAL', every: 'PT2S' },
      target: { type: 'JOB', job_type: 'carolJob', task_queue: 'nobody-polls' },
      overlap: 'QUEUE',
    });
    expect(created.status).toBe(201);
    const queued = await eventually(
      'a running and a queued occurrence',
      async () => {
        const d = await stack.sdk.describe('carol-queue');
        return d.running.length === 1 && d.queued.length >= 1 ? d : undefined;
      },
      30_000,
    );

    writeKeys('alice', 'bob', 'dave', 'erin');
    await revokedSchedule('carol-queue', 'bob');

    const trigger = await call('POST', '/v1/schedules/carol-queue/trigger', 'bob', {});
    expect(trigger.status).toBe(409);
    expect(trigger.body).toMatchObject({ code: 'INVALID_STATE' });
    expect(trigger.body.detail).toMatch(/owner carol was revoked.*takes it over/);
    const backfill = await call('POST', '/v1/schedules/carol-queue/backfill', 'bob', {
      from: new Date(Date.now() - 60_000).toISOString(),
      to: new Date(Date.now() - 10_000).toISOString(),
    });
    expect(backfill.status).toBe(409);
    expect(backfill.body.detail).toMatch(/revoked/);

    // The running job ends; what waited behind it is refused, not started under nobody's permission.
    await stack.client.workflow.getHandle(queued.running[0]!).terminate('test: the job ends');
    const waiting = queued.queued[0]!;
    const refused = await eventually(
      'the queued occurrence refused',
      async () => {
        const occ = (await stack.sdk.listOccurrences('carol-queue')).find((o) => o.occurrence_id === waiting);
        return occ?.status === 'SKIPPED' ? occ : undefined;
      },
      30_000,
    );
    expect(refused.reason).toMatch(/^refused: owner acme\/carol has no API key/);
    await expect(stack.client.workflow.getHandle(waiting).describe()).rejects.toThrow(/not found/i);
    await call('POST', '/v1/schedules/carol-queue/cancel', 'bob');
  });

  it('a resume signal does not clear a revocation; the API takeover does', async () => {
    // carol-queue is revoked (previous case); a fresh revoked schedule keeps this case on its own.
    writeKeys('alice', 'bob', 'carol', 'dave', 'erin');
    // The key file is polled every 2 s: carol's key works again once it was re-read.
    const created = await createEventsOnceKeyIsBack('carol');
    expect(created.status).toBe(201);
    writeKeys('alice', 'bob', 'dave', 'erin');
    await revokedSchedule('carol-events', 'bob');

    // What a sibling schedule's WORKFLOW_SIGNAL target would send (the API refuses such a target; a client
    // with namespace credentials could still send it by hand).
    const schedule = stack.client.workflow.getHandle(scheduleWorkflowId('acme', 'carol-events'));
    await schedule.signal(resumeSignal, { owner_ref: 'mallory' });
    await eventually('the forged signal applied', async () => applied(await schedule.fetchHistory()), 30_000);
    expect((await stack.sdk.get('carol-events')).owner_revoked_at).not.toBeNull();
    expect((await stack.sdk.get('carol-events')).owner_ref).toBe('carol');

    const takenOver = await call('POST', '/v1/schedules/carol-events/resume', 'bob');
    expect(takenOver.status).toBe(200);
    expect(takenOver.body).toMatchObject({ owner_ref: 'bob', owner_revoked_at: null, status: 'ACTIVE' });
    await call('POST', '/v1/schedules/carol-events/cancel', 'bob');
  });

  it('an edit makes the editor the owner: a departing owner cannot rewrite a colleague’s schedule and leave', async () => {
    const created = await call('POST', '/v1/schedules', 'bob', {
      schedule_id: 'bob-report',
      timing: { kind: 'CRON', expression: YEARLY_FAR, timezone: 'Europe/Riga' },
      target: { type: 'EVENT', event_type: 'report', sink_url: sink.url },
    });
    expect(created.status).toBe(201);
    // Dave, about to leave, rewrites Bob's schedule to fire every 2 s.
    const edited = await call('PATCH', '/v1/schedules/bob-report', 'dave', {
      expected_version: 1,
      timing: { kind: 'INTERVAL', every: 'PT2S' },
    });
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({ version: 2, owner_ref: 'dave' });
    // Dave's key is removed: the schedule he last defined stops with it.
    writeKeys('alice', 'bob', 'erin');
    const revoked = await revokedSchedule('bob-report', 'bob');
    expect(revoked.owner_ref).toBe('dave');
    await call('POST', '/v1/schedules/bob-report/cancel', 'bob');
  });

  it('a key file that names no owner of a tenant is refused, loudly, and revokes nothing', async () => {
    const created = await call('POST', '/v1/schedules', 'alice', {
      schedule_id: 'alice-yearly',
      timing: { kind: 'CRON', expression: YEARLY_FAR, timezone: 'Europe/Riga' },
      target: { type: 'EVENT', event_type: 'alice', sink_url: sink.url },
    });
    expect(created.status).toBe(201);
    const before = await registry();
    // The operator deploys the wrong key file: another tenant's only.
    writeKeys('gina');
    await eventually(
      'the refused report',
      async () =>
        logs.some((l) => /REFUSED mass revocation: .*every owner of tenant acme/.test(l)) ? true : undefined,
      30_000,
    );
    const after = await registry();
    expect(after.reconciles).toBeGreaterThan(before.reconciles);
    expect(after.known).toEqual(before.known);
    writeKeys('alice', 'bob', 'erin');
    await eventually(
      "alice's key back",
      async () =>
        (await call('GET', '/v1/schedules/alice-yearly', 'alice')).status === 200 ? true : undefined,
      20_000,
    );
    expect((await stack.sdk.get('alice-yearly')).owner_revoked_at).toBeNull();
  });

  it('an owner removed, added back, resuming its schedule and removed again is stopped again (N2)', async () => {
    // The keys so far: alice, bob, erin. Dave is added back and makes a schedule that hands off every 2 s.
    writeKeys('alice', 'bob', 'dave', 'erin');
    const created = await createEventsOnceKeyIsBack('dave');
    expect(created.status).toBe(201);
    const daves = () => sink.events.filter((e) => e.body?.type === 'dave');
    await eventually('an event of dave-events', async () => (daves().length >= 1 ? true : undefined), 20_000);

    // Dave's key is removed: his schedule is told and stops.
    writeKeys('alice', 'bob', 'erin');
    const first = await revokedSchedule('dave-events', 'bob');
    expect(first.owner_ref).toBe('dave');

    // Added back, dave resumes it himself (the takeover of his own schedule) and it hands off again.
    writeKeys('alice', 'bob', 'dave', 'erin');
    const resumed = await eventually(
      "dave's key back again",
      async () => {
        const res = await call('POST', '/v1/schedules/dave-events/resume', 'dave');
        return res.status === 401 ? undefined : res;
      },
      20_000,
    );
    expect(resumed.status).toBe(200);
    expect(resumed.body).toMatchObject({ owner_ref: 'dave', owner_revoked_at: null, status: 'ACTIVE' });
    const resumedAt = Date.now();
    await eventually(
      'dave-events handing off again',
      async () => (daves().some((e) => e.at > resumedAt) ? true : undefined),
      20_000,
    );

    // Removed for good: the same run of the same schedule under the same owner must be told again.
    writeKeys('alice', 'bob', 'erin');
    const again = await revokedSchedule('dave-events', 'bob');
    expect(again.owner_ref).toBe('dave');
    const revokedAt = Date.parse(again.owner_revoked_at);
    expect(revokedAt).toBeGreaterThan(Date.parse(first.owner_revoked_at));
    // And it stops handing off: its slots after the revocation are refused, recorded, and none arrives.
    const refused = await eventually(
      'two slots refused after the second removal',
      async () => {
        const occ = await call('GET', '/v1/schedules/dave-events/occurrences', 'bob');
        const skipped = occ.body.items.filter(
          (o: { status: string; reason: string | null; scheduled_for: string }) =>
            o.status === 'SKIPPED' &&
            /no API key/.test(o.reason ?? '') &&
            Date.parse(o.scheduled_for) > revokedAt,
        );
        return skipped.length >= 2 ? skipped : undefined;
      },
      20_000,
    );
    expect(refused[0].reason).toMatch(/acme\/dave/);
    // Only hand-offs already in flight when the revocation landed can arrive after it: slots due before it.
    expect(daves().filter((e) => Date.parse(e.body.data.scheduled_for) > revokedAt)).toEqual([]);
    await call('POST', '/v1/schedules/dave-events/cancel', 'bob');
  });

  it('a replica still on older keys, reporting after newer ones, cannot revoke the owner they added (N8)', async () => {
    // Both replicas' key files named alice, bob and erin. The edit that adds frank reaches this API's file;
    // the second replica's copy, written before the edit, has not been replaced yet (ConfigMap lag).
    const staleFile = join(stack.dir, 'api-keys-replica-2');
    writeFileSync(staleFile, keyLines('alice', 'bob', 'erin'));
    const writtenBefore = new Date(Date.now() - 60_000);
    utimesSync(staleFile, writtenBefore, writtenBefore);
    writeKeys('alice', 'bob', 'erin', 'frank');
    await eventually(
      'frank known to the registry',
      async () => ((await registry()).known.includes('acme/frank') ? true : undefined),
      30_000,
    );
    const created = await call('POST', '/v1/schedules', 'frank', {
      schedule_id: 'frank-yearly',
      timing: { kind: 'CRON', expression: YEARLY_FAR, timezone: 'Europe/Riga' },
      target: { type: 'EVENT', event_type: 'frank', sink_url: sink.url },
    });
    expect(created.status).toBe(201);

    // The second replica reports its owners (at its start, as after a restart; then every 3 s).
    const replicaLogs: string[] = [];
    const before = await registry();
    const replica = await startApi(staleFile, replicaLogs);
    try {
      const answered = await eventually(
        "the replica's report answered",
        async () =>
          replicaLogs.find((l) =>
            /key configuration not applied|owners revoked by the key configuration/.test(l),
          ),
        30_000,
      );
      expect(replicaLogs.filter((l) => /owners revoked by the key configuration/.test(l))).toEqual([]);
      expect(answered).toMatch(/is older than one already applied .*recorded, revokes nothing/);
      const after = await registry();
      expect(after.reconciles).toBeGreaterThan(before.reconciles);
      expect(after.known).toContain('acme/frank');
      expect(after.revoked).not.toContain('acme/frank');
      expect((await call('GET', '/v1/schedules/frank-yearly', 'frank')).body.owner_revoked_at).toBeNull();
    } finally {
      await replica.close();
    }
    await call('POST', '/v1/schedules/frank-yearly/cancel', 'frank');
    // The keys the cases below expect: frank's removal, by the newest file, revokes him.
    writeKeys('alice', 'bob', 'erin');
    await eventually(
      'frank revoked by the newer file',
      async () => ((await registry()).revoked.includes('acme/frank') ? true : undefined),
      30_000,
    );
  });

  it('a development start against this server (no keys) reports no owners and revokes nothing', async () => {
    const dev = spawnProduct(stack, {
      SCHEDULER_ROLE: 'api',
      // A named server is production unless the developer says it is their own (issue 38).
      SCHEDULER_DEVELOPMENT: 'on',
      SCHEDULER_API_PORT: String(await freePort()),
      SCHEDULER_DATA_DIR: join(stack.dir, 'laptop'),
    });
    await dev.waitFor(/ready; Ctrl-C/, 120_000);
    const before = await registry();
    expect(dev.output()).toMatch(/development key for tenant 'dev'/);
    // Its reconcile would run at start; the API of this file reports every 3 s meanwhile.
    await eventually(
      'two more reports',
      async () => ((await registry()).reconciles >= before.reconciles + 2 ? true : undefined),
      30_000,
    );
    // Every report the registry was sent, by whom: none named the development owner.
    const { events } = await stack.client.workflow.getHandle(OWNER_REGISTRY_WORKFLOW_ID).fetchHistory();
    const reports = (events ?? [])
      .flatMap(
        (e) => e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input?.args?.payloads ?? [],
      )
      .map((p) => Buffer.from(p.data ?? []).toString('utf8'));
    expect(reports.length).toBeGreaterThanOrEqual(2);
    expect(reports.filter((r) => r.includes('dev/developer'))).toEqual([]);
    expect((await stack.sdk.get('alice-yearly')).owner_revoked_at).toBeNull();
    dev.child.kill('SIGTERM');
    await dev.exit;
  });

  it('a key removed while Temporal is down revokes its owner once Temporal answers again (retried)', async () => {
    const created = await call('POST', '/v1/schedules', 'erin', {
      schedule_id: 'erin-events',
      timing: { kind: 'CRON', expression: YEARLY_FAR, timezone: 'Europe/Riga' },
      target: { type: 'EVENT', event_type: 'erin', sink_url: sink.url },
    });
    expect(created.status).toBe(201);

    const { address } = stack.server;
    const port = Number(address.split(':').pop());
    await worker.stop();
    await stack.server.kill();
    const failuresBefore = logs.filter((l) => /could not check schedule owners/.test(l)).length;
    writeKeys('alice', 'bob');
    // The reload's reconcile meets Temporal down and says it retries.
    await eventually(
      'a failed reconcile',
      async () =>
        logs.filter((l) => /could not check schedule owners.*retrying/.test(l)).length > failuresBefore
          ? true
          : undefined,
      60_000,
    );
    stack.server = await startTestDevServer(join(stack.dir, 'temporal.db'), port);
    await startWorker();
    const revoked = await revokedSchedule('erin-events', 'bob');
    expect(revoked.owner_ref).toBe('erin');
  }, 180_000);
});
