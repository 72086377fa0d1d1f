import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createActivities } from '../../src/activities/index.js';
import { SchedulerClient } from '../../src/api/client.js';
import { scheduleWorkflowId } from '../../src/model/ids.js';
import { TenantPolicy } from '../../src/model/tenant-policy.js';
import type { DevServer } from '../../src/runtime/dev-server.js';
import { registerSearchAttributes, SearchAttributesMissingError } from '../../src/runtime/namespace.js';
import { schedulerReplayOptions } from '../../src/worker.js';
import {
  NextRunAtKey,
  ScheduleStatusKey,
  schedulerSearchAttributes,
} from '../../src/workflows/search-attributes.js';
import { startTestDevServer, tempDir } from '../helpers/servers.js';
import { eventually } from './support.js';

const jobWorkflows = fileURLToPath(new URL('../fixtures/jobs.ts', import.meta.url));

// Visibility (search attributes, list filters, the Web UI's current details) needs the real server.
describe('schedules in Temporal visibility and the Web UI (dev server)', () => {
  let server: DevServer;
  let connection: Connection;
  let nativeConnection: NativeConnection;
  let client: Client;
  let workers: Promise<void>;
  let shutdown: () => void;

  beforeAll(async () => {
    server = await startTestDevServer(join(tempDir('visibility'), 'temporal.db'));
    connection = await Connection.connect({ address: server.address });
    await registerSearchAttributes(connection, 'default');
    client = new Client({ connection });
    nativeConnection = await NativeConnection.connect({ address: server.address });
    const scheduler = await Worker.create({
      connection: nativeConnection,
      taskQueue: 'scheduler',
      ...schedulerReplayOptions,
      activities: createActivities({ client, tenantPolicy: () => TenantPolicy.openToAll() }),
    });
    const jobs = await Worker.create({
      connection: nativeConnection,
      taskQueue: 'jobs',
      workflowsPath: jobWorkflows,
      activities: { jobStarted: async () => {}, jobFinished: async () => {} },
    });
    workers = Promise.all([scheduler.run(), jobs.run()]).then(() => undefined);
    shutdown = () => {
      scheduler.shutdown();
      jobs.shutdown();
    };
  });
  afterAll(async () => {
    shutdown?.();
    await workers;
    await nativeConnection?.close();
    await connection?.close();
    await server?.kill();
  });

  const sdkFor = (tenant: string) =>
    new SchedulerClient({
      client,
      taskQueue: 'scheduler',
      jobTaskQueue: 'jobs',
      principal: { tenant_id: tenant, owner_ref: 'ops' },
    });

  it('lists a tenant its own schedules only, filters by status, and shows the next run', async () => {
    const acme = sdkFor('acme');
    const globex = sdkFor('globex');
    const spec = {
      target: { type: 'JOB' as const, job_type: 'recordedJob' },
      timing: { kind: 'INTERVAL' as const, every: 'PT1H' },
    };
    await acme.create({ schedule_id: 'a1', ...spec });
    await acme.create({ schedule_id: 'a2', ...spec });
    await globex.create({ schedule_id: 'a1', ...spec }); // same ID, other tenant: a different schedule
    await acme.pause('a2', 'quiet hours');

    const acmeAll = await eventually(
      'both acme schedules listed',
      async () => {
        const list = await acme.list();
        return list.length === 2 ? list : undefined;
      },
      20_000,
    );
    expect(acmeAll.map((s) => s.schedule_id).sort()).toEqual(['a1', 'a2']);
    expect(acmeAll.every((s) => s.tenant_id === 'acme')).toBe(true);
    const paused = await eventually(
      'the paused schedule listed as PAUSED',
      async () => {
        const list = await acme.list({ status: 'PAUSED' });
        return list.length === 1 ? list : undefined;
      },
      20_000,
    );
    expect(paused.map((s) => s.schedule_id)).toEqual(['a2']);
    expect((await globex.list()).map((s) => `${s.tenant_id}/${s.schedule_id}`)).toEqual(['globex/a1']);
    // A tenant cannot reach another tenant's schedule by its ID.
    await expect(globex.describe('a2')).rejects.toMatchObject({ code: 'NOT_FOUND' });

    const handle = client.workflow.getHandle(scheduleWorkflowId('acme', 'a1'));
    const description = await handle.describe();
    const nextRunAt = description.typedSearchAttributes.get(NextRunAtKey);
    expect(nextRunAt?.toISOString()).toBe((await acme.get('a1')).next_run_at);
    expect(description.typedSearchAttributes.get(ScheduleStatusKey)).toBe('ACTIVE');
    // What the Web UI shows as the schedule's summary and current details.
    expect(await description.staticSummary()).toBe('Schedule a1 (INTERVAL → JOB)');
    const metadata = await handle.query<{ currentDetails?: string }>('__temporal_workflow_metadata');
    expect(metadata.currentDetails).toContain(`next run: ${nextRunAt?.toISOString()}`);
    expect(metadata.currentDetails).toContain('ACTIVE');

    for (const [sdk, id] of [
      [acme, 'a1'],
      [acme, 'a2'],
      [globex, 'a1'],
    ] as const)
      await sdk.cancel(id);
  });
  it('SCHEDULER_SEARCH_ATTRIBUTES=check on a namespace without them exits with each one, its type and the commands; register creates them, and check then starts', async () => {
    const namespace = 'sa-check';
    await connection.workflowService.registerNamespace({
      namespace,
      // protobufjs takes a number where the generated type says Long.
      workflowExecutionRetentionPeriod: { seconds: 86_400 } as never,
    });
    await eventually(
      'the new namespace',
      async () =>
        await connection.workflowService.describeNamespace({ namespace }).then(
          () => true,
          () => undefined,
        ),
      30_000,
    );
    const refusal = await registerSearchAttributes(connection, namespace, 'check').then(
      () => undefined,
      (err: Error) => err,
    );
    expect(refusal).toBeInstanceOf(SearchAttributesMissingError);
    const lines = refusal!.message.split('\n');
    expect(lines[0]).toMatch(
      /^12 search attribute\(s\) of the scheduler are missing in namespace sa-check \(SCHEDULER_SEARCH_ATTRIBUTES=check\): .*SchedulerNextRunAt \(Datetime\).*SchedulerZones \(KeywordList\).*SchedulerHolidayData \(Keyword\).*SchedulerLabels \(KeywordList\)/,
    );
    for (const key of schedulerSearchAttributes)
      expect(refusal!.message).toContain(`--name ${key.name} --type `);
    expect(lines.at(-1)).toMatch(
      /^ {2}tcld namespace search-attributes add --namespace sa-check --sa 'SchedulerTenantId=Keyword' /,
    );

    // What the listing says to run, run: register creates them all, and a check then passes.
    await registerSearchAttributes(connection, namespace, 'register');
    await eventually(
      'the attributes, listed',
      async () =>
        registerSearchAttributes(connection, namespace, 'check').then(
          () => true,
          () => undefined,
        ),
      30_000,
    );
    // skip asks nothing, even of a namespace that does not exist.
    await expect(registerSearchAttributes(connection, 'no-such-namespace', 'skip')).resolves.toBeUndefined();
  });
});
