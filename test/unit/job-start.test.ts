// The local activity that starts a JOB's workflow (src/activities/handoff.ts, startJobWorkflow), against a
// fake gRPC service: what the start request carries — above all the request ID, which the client takes
// from an SDK-internal option, so an SDK upgrade that stopped honouring it would fail here — and how
// the server's answers map to the hand-off's outcome.
import { Client, type ConnectionLike } from '@temporalio/client';
import { defaultPayloadConverter, SearchAttributeType } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';
import { MockActivityEnvironment } from '@temporalio/testing';
import { describe, expect, it } from 'vitest';
import { createHandoffActivities, type JobStartRequest } from '../../src/activities/handoff.js';
import type { OccurrenceEnvelope } from '../../src/model/contracts.js';
import { FORBIDDEN_TARGET_ERROR } from '../../src/model/handoff-failures.js';
import { TenantPolicy } from '../../src/model/tenant-policy.js';

type StartRequest = temporal.api.workflowservice.v1.IStartWorkflowExecutionRequest;

function fakeClient(answer: (req: StartRequest) => object) {
  const requests: StartRequest[] = [];
  const connection = {
    workflowService: {
      startWorkflowExecution: async (req: StartRequest) => {
        requests.push(req);
        return answer(req);
      },
    },
    operatorService: {},
    plugins: [],
    close: async () => {},
    ensureConnected: async () => {},
    withDeadline: <R>(_deadline: unknown, fn: () => Promise<R>) => fn(),
    withMetadata: <R>(_metadata: unknown, fn: () => Promise<R>) => fn(),
    withAbortSignal: <R>(_signal: unknown, fn: () => Promise<R>) => fn(),
  };
  return { client: new Client({ connection: connection as unknown as ConnectionLike }), requests };
}

const grpcError = (code: number, details: string) =>
  Object.assign(new Error(`${code} ${details}`), { code, details, metadata: { get: () => [] } });

const occurrence: OccurrenceEnvelope = {
  occurrence_id: 'occurrence/acme/report/2026-11-30T09:00:00.000Z',
  idempotency_key: 'schedule:report:2026-11-30T09:00:00.000Z',
  tenant_id: 'acme',
  schedule_id: 'report',
  schedule_version: 3,
  scheduled_for: '2026-11-30T09:00:00.000Z',
  emitted_at: '2026-11-30T09:00:00.120Z',
  trigger: 'SCHEDULE',
  payload_ref: null,
  payload: null,
};

// As the workflow sends it: JSON, so the DATETIME attribute arrives as a string.
const request: JobStartRequest = JSON.parse(
  JSON.stringify({
    workflowType: 'generateReport',
    workflowId: occurrence.occurrence_id,
    taskQueue: 'jobs',
    occurrence,
    searchAttributes: [
      { key: { name: 'SchedulerScheduleId', type: SearchAttributeType.KEYWORD }, value: 'report' },
      {
        key: { name: 'SchedulerScheduledFor', type: SearchAttributeType.DATETIME },
        value: new Date(occurrence.scheduled_for),
      },
    ],
    staticSummary: 'Occurrence of schedule report for 2026-11-30T09:00:00.000Z',
    staticDetails: 'schedule report v3',
    requestId: 'run-1/42',
  }),
);

const run = (client: Client) =>
  new MockActivityEnvironment({ activityType: 'startJobWorkflow', attempt: 2 }).run(
    createHandoffActivities({ client, tenantPolicy: () => TenantPolicy.openToAll() }).startJobWorkflow,
    request,
  );

describe('startJobWorkflow (local activity)', () => {
  it('starts the job under the occurrence ID, never reused, with the emission as request ID', async () => {
    const { client, requests } = fakeClient(() => ({ runId: 'job-run' }));
    expect(await run(client)).toEqual({
      workflowId: occurrence.occurrence_id,
      duplicate: false,
      attempt: 2,
      inFlightLimit: null,
    });
    const [req] = requests;
    expect(req?.requestId).toBe('run-1/42');
    expect(req?.workflowId).toBe(occurrence.occurrence_id);
    expect(req?.workflowType?.name).toBe('generateReport');
    expect(req?.taskQueue?.name).toBe('jobs');
    expect(req?.workflowIdReusePolicy).toBe(3); // WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE
    expect(defaultPayloadConverter.fromPayload(req!.input!.payloads![0]!)).toEqual(occurrence);
    const attributes = req?.searchAttributes?.indexedFields ?? {};
    expect(defaultPayloadConverter.fromPayload(attributes.SchedulerScheduledFor!)).toBe(
      occurrence.scheduled_for,
    );
    expect(Buffer.from(attributes.SchedulerScheduledFor!.metadata!.type!).toString()).toBe('Datetime');
    expect(defaultPayloadConverter.fromPayload(req!.userMetadata!.summary!)).toBe(request.staticSummary);
    expect(defaultPayloadConverter.fromPayload(req!.userMetadata!.details!)).toBe(request.staticDetails);
  });

  it('a start refused as already started is another emission of the slot: a duplicate, not a failure', async () => {
    const { client } = fakeClient(() => {
      throw grpcError(6, 'Workflow execution is already running'); // ALREADY_EXISTS
    });
    expect(await run(client)).toEqual({
      workflowId: occurrence.occurrence_id,
      duplicate: true,
      attempt: 2,
      inFlightLimit: null,
    });
  });

  it('a malformed start is permanent; anything else is retried', async () => {
    const invalid = fakeClient(() => {
      throw grpcError(3, 'task queue name is invalid'); // INVALID_ARGUMENT
    });
    await expect(run(invalid.client)).rejects.toMatchObject({
      type: 'PermanentHandoffError',
      nonRetryable: true,
    });
    const unavailable = fakeClient(() => {
      throw grpcError(14, 'connection refused'); // UNAVAILABLE
    });
    await expect(run(unavailable.client)).rejects.not.toMatchObject({ nonRetryable: true });
  });
});

describe('startJobWorkflows (the armed slots of one pass, PATCHES.BATCHED_ARMING)', () => {
  const batch: JobStartRequest[] = [1, 2, 3].map((n) => ({
    ...request,
    workflowId: `${occurrence.occurrence_id}-${n}`,
    requestId: `run-1/${41 + n}/armed${n}`,
  }));
  const runBatch = (client: Client, tenantPolicy = TenantPolicy.openToAll()) =>
    new MockActivityEnvironment({ activityType: 'startJobWorkflows', attempt: 1 }).run(
      createHandoffActivities({ client, tenantPolicy: () => tenantPolicy }).startJobWorkflows,
      batch,
    );

  it("starts every job with its own request ID; a start that fails for good is that slot's outcome", async () => {
    const { client, requests } = fakeClient((req) => {
      if (req.workflowId?.endsWith('-2')) throw grpcError(3, 'search attribute is invalid'); // INVALID_ARGUMENT
      return { runId: `run-of-${req.workflowId}` };
    });
    const outcomes = await runBatch(client);
    expect(requests.map((r) => r.requestId).sort()).toEqual(batch.map((r) => r.requestId).sort());
    expect(outcomes).toEqual([
      { workflowId: batch[0]!.workflowId, duplicate: false, attempt: 1, inFlightLimit: null },
      {
        workflowId: batch[1]!.workflowId,
        failed: expect.stringMatching(/starting generateReport failed: .*invalid/),
      },
      { workflowId: batch[2]!.workflowId, duplicate: false, attempt: 1, inFlightLimit: null },
    ]);
  });

  it('any other failure fails the batch, to be retried whole (each start is named by its request ID)', async () => {
    const { client, requests } = fakeClient((req) => {
      if (req.workflowId?.endsWith('-3')) throw grpcError(14, 'connection refused'); // UNAVAILABLE
      return { runId: 'job-run' };
    });
    await expect(runBatch(client)).rejects.not.toMatchObject({ nonRetryable: true });
    expect(requests).toHaveLength(3);
  });

  it('a target the policy in force refuses starts nothing', async () => {
    const { client, requests } = fakeClient(() => ({ runId: 'job-run' }));
    const policy = TenantPolicy.fromTenants({ acme: { job_task_queues: ['jobs'], job_types: ['other'] } });
    await expect(runBatch(client, policy)).rejects.toMatchObject({
      type: FORBIDDEN_TARGET_ERROR,
      nonRetryable: true,
    });
    expect(requests).toEqual([]);
  });
});
