// The SDK's create and error mapping against a fake Temporal client: what create starts the workflow
// with, how a taken schedule ID is answered from DescribeWorkflowExecution alone, and which failures
// become UNAVAILABLE. The real servers run the same paths in test/workflow and test/integration.
import { ServiceError, type WorkflowStartOptions } from '@temporalio/client';
import { TypedSearchAttributes, WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { definitionHash, SchedulerClient } from '../../src/api/client.js';
import { type ScheduleDescription, ScheduleSpec } from '../../src/model/contracts.js';
import { DEFINITION_MEMO, STALE_CLOCK_REFUSAL, VERSION_MEMO } from '../../src/workflows/definitions.js';
import { NextRunAtKey, ScheduleStatusKey } from '../../src/workflows/search-attributes.js';

const NOW = Date.parse('2026-11-30T10:00:00.123Z');
const spec = {
  target: { type: 'JOB' as const, job_type: 'report' },
  timing: { kind: 'INTERVAL' as const, every: 'PT10M' },
};
const grpcError = (code: number, details: string) =>
  new ServiceError('Failed to query Workflow', {
    cause: Object.assign(new Error(details), { code, details }),
  });

interface Existing {
  memo?: Record<string, unknown>;
  status?: string;
  nextRunAt?: Date;
  execution?: string;
}

/** A client whose server holds `existing` under every ID (or nothing), and whose queries answer `query`. */
function fakeClient(options: { existing?: Existing; query?: () => Promise<ScheduleDescription> } = {}) {
  const started: WorkflowStartOptions[] = [];
  const client = {
    connection: { withDeadline: (_deadline: number, fn: () => Promise<unknown>) => fn() },
    workflow: {
      start: async (_type: string, opts: WorkflowStartOptions) => {
        started.push(opts);
        if (options.existing)
          throw new WorkflowExecutionAlreadyStartedError('exists', opts.workflowId, _type);
      },
      getHandle: () => ({
        describe: async () => {
          const e = options.existing!;
          return {
            memo: e.memo,
            status: { name: e.execution ?? 'RUNNING' },
            typedSearchAttributes: new TypedSearchAttributes([
              ...(e.status ? [{ key: ScheduleStatusKey, value: e.status }] : []),
              ...(e.nextRunAt ? [{ key: NextRunAtKey, value: e.nextRunAt }] : []),
            ]),
          };
        },
        query: options.query ?? (async () => Promise.reject(grpcError(4, 'query timed out'))),
      }),
    },
  };
  const sdk = new SchedulerClient({
    client: client as never,
    taskQueue: 'scheduler',
    jobTaskQueue: 'jobs',
    principal: { tenant_id: 'acme', owner_ref: 'ops' },
    clock: () => NOW,
  });
  return { sdk, started };
}

describe('definitionHash', () => {
  it('is one hash per definition, however it is spelled', () => {
    const a = definitionHash(ScheduleSpec.parse(spec));
    const b = definitionHash(
      ScheduleSpec.parse({
        timing: { every: 'PT10M', kind: 'INTERVAL' },
        misfire: 'FIRE_ONCE',
        target: { job_type: 'report', type: 'JOB' },
      }),
    );
    expect(a).toMatch(/^[0-9a-f]{64}$/);
    expect(b).toBe(a);
    expect(
      definitionHash(ScheduleSpec.parse({ ...spec, timing: { kind: 'INTERVAL', every: 'PT11M' } })),
    ).not.toBe(a);
  });
});

describe('SchedulerClient.create without the worker', () => {
  it('starts with the creation instant, the definition memo and the next run, and answers from them', async () => {
    const { sdk, started } = fakeClient();
    const { schedule, created } = await sdk.create({ schedule_id: 'r1', ...spec });
    expect(created).toBe(true);
    const [input] = started[0]!.args as [{ createdAt: string }];
    expect(input.createdAt).toBe(new Date(NOW).toISOString());
    expect(started[0]!.memo).toEqual({
      [DEFINITION_MEMO]: {
        sha256: definitionHash(ScheduleSpec.parse(spec)),
        created_at: new Date(NOW).toISOString(),
        owner_ref: 'ops',
      },
      [VERSION_MEMO]: 1,
    });
    const next = new Date(NOW + 10 * 60_000).toISOString();
    const attributes = started[0]!.typedSearchAttributes as Array<{ key: { name: string }; value: unknown }>;
    expect(attributes.find((p) => p.key.name === NextRunAtKey.name)?.value).toEqual(new Date(next));
    expect(schedule).toMatchObject({
      contract: 'schedule.v1',
      schedule_id: 'r1',
      tenant_id: 'acme',
      owner_ref: 'ops',
      status: 'ACTIVE',
      version: 1,
      next_run_at: next,
      last_run_at: null,
      created_at: new Date(NOW).toISOString(),
      updated_at: new Date(NOW).toISOString(),
    });
  });

  const memoOf = (definition: object, version = 1) => ({
    [DEFINITION_MEMO]: {
      sha256: definitionHash(ScheduleSpec.parse(definition)),
      created_at: '2026-11-30T09:58:00.000Z',
      owner_ref: 'creator',
    },
    [VERSION_MEMO]: version,
  });

  it('a retry with the same definition is created:false, built from the memo and search attributes', async () => {
    const nextRunAt = new Date('2026-11-30T10:08:00.000Z');
    const { sdk } = fakeClient({ existing: { memo: memoOf(spec), status: 'PAUSED', nextRunAt } });
    const { schedule, created } = await sdk.create({ schedule_id: 'r1', ...spec });
    expect(created).toBe(false);
    expect(schedule).toMatchObject({
      owner_ref: 'creator',
      status: 'PAUSED',
      version: 1,
      created_at: '2026-11-30T09:58:00.000Z',
      next_run_at: nextRunAt.toISOString(),
    });
  });

  it('a retry of a schedule that ended reports it ended, with no next run', async () => {
    const { sdk } = fakeClient({
      existing: { memo: memoOf(spec), status: 'ACTIVE', execution: 'TERMINATED' },
    });
    const { schedule } = await sdk.create({ schedule_id: 'r1', ...spec });
    expect(schedule).toMatchObject({ status: 'CANCELLED', next_run_at: null });
  });

  it('another definition, or an edited schedule, is ALREADY_EXISTS', async () => {
    const other = { ...spec, timing: { kind: 'INTERVAL' as const, every: 'PT5M' } };
    await expect(
      fakeClient({ existing: { memo: memoOf(other) } }).sdk.create({ schedule_id: 'r1', ...spec }),
    ).rejects.toMatchObject({ code: 'ALREADY_EXISTS', field: 'schedule_id' });
    await expect(
      fakeClient({ existing: { memo: memoOf(spec, 2) } }).sdk.create({ schedule_id: 'r1', ...spec }),
    ).rejects.toMatchObject({ code: 'ALREADY_EXISTS', field: 'schedule_id' });
  });

  it('a schedule started before the memo is compared through the workflow, and UNAVAILABLE without it', async () => {
    const { sdk } = fakeClient({ existing: { memo: {} } });
    await expect(sdk.create({ schedule_id: 'r1', ...spec })).rejects.toMatchObject({ code: 'UNAVAILABLE' });
  });
});

describe('SchedulerClient reads that need the worker', () => {
  it.each([
    [4, 'query timed out before a worker could process it'],
    [14, 'connection refused'],
    [8, 'consistent query buffer is full, this may be caused by too many queries'],
  ])('gRPC %i is UNAVAILABLE, a retryable error', async (code, details) => {
    const { sdk } = fakeClient({ query: () => Promise.reject(grpcError(code, details)) });
    const err = await sdk.describe('r1').catch((e) => e);
    expect(err).toMatchObject({ code: 'UNAVAILABLE', field: null });
    expect(err.reason).toMatch(/retry/);
  });

  // The worker refuses a query it was asked on a stale clock (src/workflows/stale-clock-guard.ts); the
  // client sees it as the failed query's message.
  const refusal = () =>
    new Error(`${STALE_CLOCK_REFUSAL}: history events 223-225 arrived without a workflow task`);
  // describe passes the workflow's answer through; only its identity matters here.
  const described = () =>
    ({
      schedule: { schedule_id: 'r1' },
      recent_occurrences: [],
      next_runs: [],
    }) as unknown as ScheduleDescription;

  it('a query refused on a stale clock is asked again, and answered', async () => {
    let asked = 0;
    const { sdk } = fakeClient({
      query: () => (++asked <= 2 ? Promise.reject(refusal()) : Promise.resolve(described())),
    });
    expect((await sdk.describe('r1')).schedule.schedule_id).toBe('r1');
    expect(asked).toBe(3);
  });

  it('a query refused again and again is UNAVAILABLE, not a server error', async () => {
    let asked = 0;
    const { sdk } = fakeClient({
      query: () => {
        asked += 1;
        return Promise.reject(refusal());
      },
    });
    await expect(sdk.describe('r1')).rejects.toMatchObject({ code: 'UNAVAILABLE' });
    expect(asked).toBe(6);
  });

  it('gRPC NOT_FOUND is NOT_FOUND', async () => {
    const { sdk } = fakeClient({ query: () => Promise.reject(grpcError(5, 'workflow not found')) });
    await expect(sdk.describe('r1')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});
