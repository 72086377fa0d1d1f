// Side effects of a schedule that leave Temporal's own bookkeeping: starting a JOB's workflow (for schedules
// that never wait for it), signalling a workflow and publishing an event. Temporal retries an activity whose
// worker died after the effect but before the result was recorded, so each carries the occurrence's
// identity for the receiver to deduplicate on: a JOB's workflow ID is the occurrence ID (never reused),
// a signal and an event carry the idempotency key. Every hand-off is checked first against the tenant
// policy in force now (the definition was checked at create and edit against the policy of that day).
import { status } from '@grpc/grpc-js';
import { ApplicationFailure, Context, log } from '@temporalio/activity';
import {
  type Client,
  isGrpcServiceError,
  ServiceError,
  WorkflowExecutionAlreadyStartedError,
  WorkflowNotFoundError,
  type WorkflowStartOptions,
} from '@temporalio/client';
import { NamespaceNotFoundError, type SearchAttributePair, SearchAttributeType } from '@temporalio/common';
import {
  asNoticeTarget,
  type NotifyTarget,
  noticeField,
  type OccurrenceEnvelope,
  type ScheduleNotice,
  type Target,
} from '../model/contracts.js';
import {
  MAX_MISSING_TENANT_GRACE_MS,
  DEFAULT_MISSING_TENANT_GRACE_MS as MISSING_TENANT_GRACE_MS,
} from '../model/defaults.js';
import {
  FORBIDDEN_TARGET_ERROR,
  PERMANENT_HANDOFF_ERROR,
  TENANT_UNLISTED_ERROR,
} from '../model/handoff-failures.js';
import type { TargetField, TargetVerdict, TenantPolicy } from '../model/tenant-policy.js';
import { createEventDelivery, type EventDelivery } from './event-delivery.js';
import {
  cloudEventOf,
  type MessageResult,
  noticeEventOf,
  permanent,
  publishEvent,
  signalTarget,
} from './messages.js';

export { PERMANENT_HANDOFF_ERROR };

export interface HandoffRequest {
  target: Exclude<Target, { type: 'JOB' }>;
  occurrence: OccurrenceEnvelope;
}

/** A failure hook's notice and where it goes (src/workflows/schedule/hooks.ts). */
export interface NoticeRequest {
  target: NotifyTarget;
  notice: ScheduleNotice;
}

export interface HandoffResult extends MessageResult {
  /** The tenant's `max_handoffs_in_flight` in the policy in force (null: none); absent before v0.5.1. */
  inFlightLimit?: number | null;
}

/**
 * A JOB's start, as the schedule decided it (src/workflows/schedule/job-start.ts builds it: the same workflow ID,
 * search attributes, summary and details a child start carries).
 */
export interface JobStartRequest {
  workflowType: string;
  /** The occurrence ID. */
  workflowId: string;
  taskQueue: string;
  occurrence: OccurrenceEnvelope;
  /** DATETIME values arrive as ISO strings (the activity's input is JSON) and are revived here. */
  searchAttributes: SearchAttributePair[];
  staticSummary: string;
  staticDetails: string;
  /**
   * The same for every attempt of one emission (the schedule's run and its fire count): the server
   * answers a repeated start with this request ID with the run that the first attempt started.
   */
  requestId: string;
  /**
   * Armed ahead of its slot (PATCHES.ARMED_HANDOFFS): the instant the server begins the job at (the start
   * carries the delay to it from this attempt's clock); absent, or passed: at once.
   */
  beginAt?: string;
  /**
   * The slot's earlier armed job was disarmed (terminated before it began): its ID may be used again. Any
   * other closed job under the ID still refuses the start.
   */
  reuseDisarmed?: boolean;
  /** The job's own retry policy (JOB `retry`), as the server takes it; absent: a run is not retried. */
  retry?: JobRetryPolicy;
}

/** A JOB target's `retry` as Temporal's retry policy (intervals in milliseconds). */
export interface JobRetryPolicy {
  maximumAttempts: number;
  initialInterval: number;
  backoffCoefficient: number;
  maximumInterval: number;
}

export interface JobStartResult {
  workflowId: string;
  /** The job's workflow already existed from another emission of the slot: it was not started again. */
  duplicate: boolean;
  attempt: number;
  /** As in HandoffResult. */
  inFlightLimit?: number | null;
}

/** One start of a batch (startJobWorkflows): its result, or why it failed for good. */
export type JobStartOutcome = JobStartResult | { workflowId: string; failed: string };

/** A JOB's start as a policy question: what the schedule asks to start, where, for which tenant. */
export interface TargetAuthorizationRequest {
  tenant_id: string;
  target: Target;
  /** Where a JOB without task_queue starts (the schedule's workflow was given it at create). */
  defaultJobTaskQueue: string;
}

export interface HandoffDependencies {
  client: Client;
  /**
   * The tenant policy in force (re-read when its file changes). Required: a worker that was told nothing
   * reaches nothing. Development and tests pass `() => TenantPolicy.openToAll()` explicitly.
   */
  tenantPolicy: () => TenantPolicy;
  /** How EVENTs are POSTed (tests inject a resolver); default: SSRF-safe delivery, names resolved by c-ares. */
  eventDelivery?: EventDelivery;
  /**
   * How long a hand-off whose tenant has no entry in the policy is retried before it is recorded refused,
   * counted from the hand-off's first attempt: a policy file that lost an entry mid-edit, or a ConfigMap
   * that reaches this replica later than the API's. Default DEFAULT_MISSING_TENANT_GRACE_MS (src/model/defaults.ts says why).
   */
  missingTenantGraceMs?: number;
}

const isPermanent = (err: unknown): boolean =>
  err instanceof ApplicationFailure && err.type === PERMANENT_HANDOFF_ERROR;

/** Hand-offs the current tenant policy refused: nothing was delivered. Labels from closed sets. */
function countRefused(tenant: string, target: Target['type'], field: TargetField) {
  Context.current()
    .metricMeter.withTags({ tenant, target, field })
    .createCounter('scheduler_handoffs_refused', undefined, 'hand-offs the tenant policy in force refused')
    .add(1);
}

/**
 * The client's start request takes its request ID from this (SDK-internal, `Symbol.for`-registered) option;
 * without it every attempt would send a fresh random one. The package version is pinned, and
 * test/unit/job-start.test.ts fails if the option stops reaching the request.
 */
const CLIENT_START_OPTIONS = Symbol.for('__temporal_internal_client_workflow_start_options');

const reviveSearchAttributes = (pairs: SearchAttributePair[]): SearchAttributePair[] =>
  pairs.map((pair) =>
    pair.key.type === SearchAttributeType.DATETIME && typeof pair.value === 'string'
      ? ({ key: pair.key, value: new Date(pair.value) } as SearchAttributePair)
      : pair,
  );

/** A start that retrying cannot fix: malformed (a bad task queue name or attribute), or no such namespace. */
const isPermanentStartError = (err: unknown): boolean => {
  if (err instanceof NamespaceNotFoundError || err instanceof WorkflowNotFoundError) return true;
  const cause = err instanceof ServiceError ? err.cause : err;
  return isGrpcServiceError(cause) && cause.code === status.INVALID_ARGUMENT;
};

/** Hand-offs under way in this worker: signals, events, and JOB starts made from an activity. */
function handoffsInFlight(tenant: string, target: string) {
  return Context.current()
    .metricMeter.withTags({ tenant, target })
    .createUpDownCounter?.('scheduler_handoffs_in_flight', undefined, 'hand-offs under way in this worker');
}

/** The refusal the workflow records for a target the policy does not allow: never retried. */
function forbiddenTarget(
  verdict: Extract<TargetVerdict, { allowed: false }>,
  field: string = verdict.field,
): ApplicationFailure {
  return ApplicationFailure.create({
    type: FORBIDDEN_TARGET_ERROR,
    nonRetryable: true,
    message: `${field}: ${verdict.reason}`,
    details: [{ field }],
  });
}

/** Measured when the start is sent, so that the activity's own wait does not make the job late. */
function startDelayTo(beginAt: string | undefined): Pick<WorkflowStartOptions, 'startDelay'> {
  const delayMs = beginAt === undefined ? 0 : Date.parse(beginAt) - Date.now();
  return delayMs > 0 ? { startDelay: delayMs } : {};
}

/**
 * The client's start options for a JOB; IDs are never reused (but for a disarmed slot's, whose job never
 * ran), and every attempt carries one request ID.
 */
function jobStartOptionsOf(request: JobStartRequest): WorkflowStartOptions {
  const options: WorkflowStartOptions = {
    workflowId: request.workflowId,
    taskQueue: request.taskQueue,
    args: [request.occurrence],
    // A terminated run counts as failed: the disarmed job is the only closed run a re-arm meets.
    workflowIdReusePolicy: request.reuseDisarmed ? 'ALLOW_DUPLICATE_FAILED_ONLY' : 'REJECT_DUPLICATE',
    ...startDelayTo(request.beginAt),
    workflowIdConflictPolicy: 'FAIL',
    typedSearchAttributes: reviveSearchAttributes(request.searchAttributes),
    staticSummary: request.staticSummary,
    staticDetails: request.staticDetails,
    ...(request.retry ? { retry: request.retry } : {}),
  };
  return Object.assign(options, { [CLIENT_START_OPTIONS]: { requestId: request.requestId } });
}

/** What every hand-off reads: fixed when the worker's activities are made. */
interface HandoffContext {
  client: Client;
  tenantPolicy: () => TenantPolicy;
  delivery: EventDelivery;
  missingTenantGraceMs: number;
}

function handoffContextOf(deps: HandoffDependencies): HandoffContext {
  return {
    client: deps.client,
    tenantPolicy: deps.tenantPolicy,
    delivery: deps.eventDelivery ?? createEventDelivery(),
    missingTenantGraceMs: Math.min(
      deps.missingTenantGraceMs ?? MISSING_TENANT_GRACE_MS,
      MAX_MISSING_TENANT_GRACE_MS,
    ),
  };
}

/**
 * The tenant's bound on one schedule's hand-offs in flight, in the policy in force: each result tells the
 * workflow, so a quota an operator lowers reaches running schedules at their next hand-off.
 */
function inFlightLimit(ctx: HandoffContext, tenant: string): number | null {
  const limit = ctx.tenantPolicy().quotas(tenant).max_handoffs_in_flight;
  return Number.isFinite(limit) ? limit : null;
}

/**
 * The current policy's verdict on a target; a refusal is counted here, where the effect would happen. A
 * tenant with no entry at all is, within the grace, a retryable failure: the activity's retry asks again.
 */
function authorize(ctx: HandoffContext, request: TargetAuthorizationRequest): TargetVerdict {
  const { info } = Context.current();
  const policy = ctx.tenantPolicy();
  const verdict = policy.check(request.tenant_id, request.target, {
    schedulerTaskQueue: info.taskQueue,
    defaultJobTaskQueue: request.defaultJobTaskQueue,
  });
  if (verdict.allowed) return verdict;
  const waitedMs = Date.now() - info.scheduledTimestampMs;
  const graceMs = ctx.missingTenantGraceMs;
  if (verdict.tenantUnlisted && waitedMs < graceMs) {
    log.warn('tenant not in the policy in force: retrying the hand-off', {
      tenant: request.tenant_id,
      policy: policy.source,
      attempt: info.attempt,
      retriedForMs: waitedMs,
      graceMs,
    });
    throw ApplicationFailure.create({
      type: TENANT_UNLISTED_ERROR,
      nonRetryable: false,
      message: `${verdict.field}: ${verdict.reason} (retried until ${Math.round(graceMs / 1000)} s after the first attempt)`,
    });
  }
  countRefused(request.tenant_id, request.target.type, verdict.field);
  return verdict;
}

/** Throws the refusal the workflow records (FORBIDDEN_TARGET_ERROR, never retried) unless allowed. */
function requireAllowed(
  ctx: HandoffContext,
  request: TargetAuthorizationRequest,
): Extract<TargetVerdict, { allowed: true }> {
  const verdict = authorize(ctx, request);
  if (verdict.allowed) return verdict;
  throw forbiddenTarget(verdict);
}

/**
 * Starts a JOB's workflow; scheduled by the schedule's workflow task that decided the slot (a local
 * activity of that task before 0.3). IDs are never reused (REJECT_DUPLICATE): if the worker died after
 * this start but before its result was recorded, the retried attempt starts it again with the same
 * request ID and the server answers with the run it already
 * started; a start refused as already started is another emission of the same slot (a backfill or
 * trigger over a slot the schedule no longer remembers) and is reported as a duplicate. Either way the
 * occurrence's workflow runs once.
 */
async function startJobWorkflow(ctx: HandoffContext, request: JobStartRequest): Promise<JobStartResult> {
  requireJobAllowed(ctx, request);
  return await startAllowedJob(ctx, request, Context.current().info.attempt);
}

/**
 * Several armed starts of one schedule in one activity (PATCHES.BATCHED_ARMING): one target, so the policy
 * in force judges them all before any starts. A start that fails for good is that slot's outcome; any
 * other failure fails the batch, retried whole: each start carries its own request ID, and the server
 * answers a repeated one with the run the first made.
 */
async function startJobWorkflows(
  ctx: HandoffContext,
  requests: JobStartRequest[],
): Promise<JobStartOutcome[]> {
  for (const request of requests) requireJobAllowed(ctx, request);
  const { attempt } = Context.current().info;
  const settled = await Promise.allSettled(requests.map((r) => startAllowedJob(ctx, r, attempt)));
  const retryable = settled.find(
    (s): s is PromiseRejectedResult => s.status === 'rejected' && !isPermanent(s.reason),
  );
  if (retryable) throw retryable.reason;
  return settled.map((s, i) =>
    s.status === 'fulfilled'
      ? s.value
      : { workflowId: requests[i]!.workflowId, failed: (s.reason as Error).message },
  );
}

function requireJobAllowed(ctx: HandoffContext, request: JobStartRequest): void {
  requireAllowed(ctx, {
    tenant_id: request.occurrence.tenant_id,
    target: { type: 'JOB', job_type: request.workflowType, task_queue: request.taskQueue },
    defaultJobTaskQueue: request.taskQueue,
  });
}

async function startAllowedJob(
  ctx: HandoffContext,
  request: JobStartRequest,
  attempt: number,
): Promise<JobStartResult> {
  const options = jobStartOptionsOf(request);
  const inFlight = handoffsInFlight(request.occurrence.tenant_id, 'JOB');
  inFlight?.add(1);
  const limit = inFlightLimit(ctx, request.occurrence.tenant_id);
  try {
    await ctx.client.workflow.start(request.workflowType, options);
    return { workflowId: request.workflowId, duplicate: false, attempt, inFlightLimit: limit };
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError) {
      return { workflowId: request.workflowId, duplicate: true, attempt, inFlightLimit: limit };
    }
    if (isPermanentStartError(err)) {
      const cause = err instanceof ServiceError && err.cause instanceof Error ? err.cause : (err as Error);
      throw permanent(`starting ${request.workflowType} failed: ${cause.message}`);
    }
    throw err;
  } finally {
    inFlight?.add(-1);
  }
}

/** Signals a workflow or publishes an event, once the policy in force allows the target. */
async function handOff(ctx: HandoffContext, request: HandoffRequest): Promise<HandoffResult> {
  const { target, occurrence } = request;
  const allowed = requireAllowed(ctx, { tenant_id: occurrence.tenant_id, target, defaultJobTaskQueue: '' });
  const inFlight = handoffsInFlight(occurrence.tenant_id, target.type);
  inFlight?.add(1);
  const limit = inFlightLimit(ctx, occurrence.tenant_id);
  try {
    const reached =
      target.type === 'WORKFLOW_SIGNAL'
        ? await signalTarget(ctx.client, target, occurrence)
        : await publishEvent(
            ctx.delivery,
            {
              tenant: occurrence.tenant_id,
              sinkUrl: target.sink_url,
              idempotencyKey: occurrence.idempotency_key,
              cloudEvent: cloudEventOf(target, occurrence),
            },
            allowed.sinkMayBePrivate,
          );
    return { ...reached, inFlightLimit: limit };
  } finally {
    inFlight?.add(-1);
  }
}

/** A failure hook's notice, once the policy in force allows its target (checked as a schedule's own). */
async function sendNotice(ctx: HandoffContext, request: NoticeRequest): Promise<HandoffResult> {
  const { target, notice } = request;
  const allowed = authorize(ctx, {
    tenant_id: notice.tenant_id,
    target: asNoticeTarget(target, notice.kind),
    defaultJobTaskQueue: '',
  });
  const hook = notice.kind === 'FAILING' ? 'on_failure' : 'on_recovery';
  if (!allowed.allowed) throw forbiddenTarget(allowed, noticeField(allowed.field, hook));
  if (target.type === 'WORKFLOW_SIGNAL') return signalTarget(ctx.client, target, notice);
  const post = {
    tenant: notice.tenant_id,
    sinkUrl: target.sink_url,
    idempotencyKey: notice.notice_id,
    cloudEvent: noticeEventOf(notice),
  };
  return publishEvent(ctx.delivery, post, allowed.sinkMayBePrivate);
}

export function createHandoffActivities(deps: HandoffDependencies) {
  const ctx = handoffContextOf(deps);
  return {
    startJobWorkflow: (request: JobStartRequest): Promise<JobStartResult> => startJobWorkflow(ctx, request),
    startJobWorkflows: (requests: JobStartRequest[]): Promise<JobStartOutcome[]> =>
      startJobWorkflows(ctx, requests),
    /**
     * Whether the policy in force allows a JOB the schedule starts itself (a child workflow, for schedules
     * that wait for the job): asked right before the start command, which no activity makes.
     */
    authorizeTarget: async (request: TargetAuthorizationRequest): Promise<TargetVerdict> =>
      authorize(ctx, request),
    handOff: (request: HandoffRequest): Promise<HandoffResult> => handOff(ctx, request),
    notify: (request: NoticeRequest): Promise<HandoffResult> => sendNotice(ctx, request),
  };
}

export type HandoffActivities = ReturnType<typeof createHandoffActivities>;
