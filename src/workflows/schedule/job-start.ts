// Handing a JOB occurrence off. The job's workflow ID is the occurrence ID and IDs are never reused, so
// starting the same slot again (a backfill over a fired slot, a manual trigger of a slot that already ran)
// is refused by the server and counted as a prevented duplicate. The job outlives the schedule: cancelling
// a schedule never kills work already handed off unless asked to. Two ways to start it, both decided in
// the schedule's workflow task that decided the slot:
// - `startJobInActivity`: an activity starts it through the client, for schedules that never wait for the
//   job (a regular activity since 0.3; a local activity of the deciding task before, see
//   PATCHES.NO_LOCAL_ACTIVITIES in patches.ts; why: docs/runtime.md); a retried start carries the same request ID;
// - `startJob`: a child workflow (a start command, then the child's started and closed events), for
//   schedules that need its completion (overlap other than ALLOW, FIXED_DELAY, ONE_TIME/DELAY/DEADLINE):
//   the child's result is how the schedule learns it, with no polling.
// Both start it with the same options (`jobStartOptions`).
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import * as wf from '@temporalio/workflow';
import type { DisarmActivities } from '../../activities/disarm.js';
import type {
  HandoffActivities,
  JobRetryPolicy,
  JobStartOutcome,
  JobStartRequest,
  JobStartResult,
} from '../../activities/handoff.js';
import type { OccurrenceEnvelope, Target } from '../../model/contracts.js';
import { PERMANENT_HANDOFF_ERROR } from '../../model/handoff-failures.js';
import { OccurrenceIdKey, ScheduledForKey, ScheduleIdKey, TenantIdKey } from '../search-attributes.js';
import { localActivities } from './legacy.js';

export type { OccurrenceEnvelope };

export type JobStart =
  | { duplicate: false; workflowId: string; result: Promise<unknown> }
  | { duplicate: true; workflowId: string };

type JobTarget = Extract<Target, { type: 'JOB' }>;

/** The target's `retry` as the server's retry policy of the job (the API filled its defaults). */
export function jobRetryPolicy(retry: NonNullable<JobTarget['retry']>): JobRetryPolicy {
  const initialMs = Math.round((retry.initial_interval_s ?? 1) * 1000);
  return {
    maximumAttempts: retry.attempts,
    initialInterval: initialMs,
    backoffCoefficient: retry.backoff ?? 2,
    maximumInterval:
      retry.max_interval_s !== undefined ? Math.round(retry.max_interval_s * 1000) : initialMs * 100,
  };
}

/** What every JOB start carries, however it is started. */
export function jobStartOptions(
  target: JobTarget,
  occurrence: OccurrenceEnvelope,
  defaultTaskQueue: string,
): Omit<JobStartRequest, 'occurrence' | 'requestId'> {
  const { namespace, workflowId } = wf.workflowInfo();
  return {
    workflowType: target.job_type,
    workflowId: occurrence.occurrence_id,
    taskQueue: target.task_queue ?? defaultTaskQueue,
    searchAttributes: [
      { key: TenantIdKey, value: occurrence.tenant_id },
      { key: ScheduleIdKey, value: occurrence.schedule_id },
      { key: OccurrenceIdKey, value: occurrence.occurrence_id },
      { key: ScheduledForKey, value: new Date(occurrence.scheduled_for) },
    ],
    staticSummary: `Occurrence of schedule ${occurrence.schedule_id} for ${occurrence.scheduled_for}`,
    // The Web UI renders this as markdown: the link leads back to the schedule's own workflow page.
    staticDetails: `schedule [**${occurrence.schedule_id}**](/namespaces/${encodeURIComponent(namespace)}/workflows/${encodeURIComponent(workflowId)}) v${occurrence.schedule_version}, slot ${occurrence.scheduled_for}, trigger ${occurrence.trigger}, idempotency key \`${occurrence.idempotency_key}\``,
    ...(target.retry ? { retry: jobRetryPolicy(target.retry) } : {}),
  };
}

export async function startJob(
  target: JobTarget,
  occurrence: OccurrenceEnvelope,
  defaultTaskQueue: string,
): Promise<JobStart> {
  const options = jobStartOptions(target, occurrence, defaultTaskQueue);
  try {
    const child = await wf.startChild(options.workflowType, {
      workflowId: options.workflowId,
      taskQueue: options.taskQueue,
      args: [occurrence],
      parentClosePolicy: 'ABANDON',
      cancellationType: 'ABANDON',
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      typedSearchAttributes: options.searchAttributes,
      staticSummary: options.staticSummary,
      staticDetails: options.staticDetails,
      ...(options.retry ? { retry: options.retry } : {}),
    });
    return { duplicate: false, workflowId: child.workflowId, result: child.result() };
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError) {
      return { duplicate: true, workflowId: occurrence.occurrence_id };
    }
    throw err;
  }
}

// One start RPC; a worker that dies mid-call is replaced by the retried task anyway.
const jobStartActivityOptions = {
  startToCloseTimeout: '10s',
  scheduleToCloseTimeout: '2m',
  retry: {
    initialInterval: '1s',
    backoffCoefficient: 2,
    maximumInterval: '20s',
    nonRetryableErrorTypes: [PERMANENT_HANDOFF_ERROR],
  },
} satisfies wf.ActivityOptions;
const startJobLocally = localActivities.startJob(jobStartActivityOptions);
// An inert start (PATCHES.INERT_LOCAL_START in patches.ts) must resolve before the next wake and retry
// within core: no backoff timer after its result (the retry threshold is above its whole budget).
const startJobInertly = wf.proxyLocalActivities<Pick<HandoffActivities, 'startJobWorkflow'>>({
  ...jobStartActivityOptions,
  startToCloseTimeout: '5s',
  scheduleToCloseTimeout: '10s',
  localRetryThreshold: '1m',
}).startJobWorkflow;
const startJobInTask =
  wf.proxyActivities<Pick<HandoffActivities, 'startJobWorkflow'>>(jobStartActivityOptions).startJobWorkflow;
// A batch is a few starts made side by side: the same budgets as one.
const startJobsInertly = wf.proxyLocalActivities<Pick<HandoffActivities, 'startJobWorkflows'>>({
  ...jobStartActivityOptions,
  startToCloseTimeout: '5s',
  scheduleToCloseTimeout: '10s',
  localRetryThreshold: '1m',
}).startJobWorkflows;
const startJobsInTask =
  wf.proxyActivities<Pick<HandoffActivities, 'startJobWorkflows'>>(jobStartActivityOptions).startJobWorkflows;

/** The tenant policy's verdict on a JOB the schedule is about to start as a child (PATCHES.TARGETS_BOUND). */
export const authorizeJobStart = wf.proxyActivities<Pick<HandoffActivities, 'authorizeTarget'>>({
  startToCloseTimeout: '10s',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '20s' },
}).authorizeTarget;

/**
 * Starts the job from an activity: a regular one since v0.3 (`local: false`), a local one of the current
 * workflow task before (see PATCHES.NO_LOCAL_ACTIVITIES in patches.ts, and docs/runtime.md for why). `emission` names this
 * hand-off for the server's request deduplication: the same on every attempt, different for another
 * emission of the slot.
 */
export function startJobInActivity(
  target: JobTarget,
  occurrence: OccurrenceEnvelope,
  defaultTaskQueue: string,
  emission: string,
  local: boolean | 'inert',
  armed: ArmedStart | null = null,
): Promise<JobStartResult> {
  return (local === 'inert' ? startJobInertly : local ? startJobLocally : startJobInTask)({
    ...jobStartOptions(target, occurrence, defaultTaskQueue),
    occurrence,
    requestId: emission,
    ...(armed ? { beginAt: armed.beginAt, reuseDisarmed: armed.reuseDisarmed } : {}),
  });
}

/** One armed slot of a batch: its occurrence, the emission that names its start, and when it begins. */
export interface ArmedJobStart {
  occurrence: OccurrenceEnvelope;
  emission: string;
  armed: ArmedStart;
}

/** Starts several armed jobs of one target from one activity (PATCHES.BATCHED_ARMING): one result each. */
export function startJobsInActivity(
  target: JobTarget,
  starts: readonly ArmedJobStart[],
  defaultTaskQueue: string,
  inert: boolean,
): Promise<JobStartOutcome[]> {
  return (inert ? startJobsInertly : startJobsInTask)(
    starts.map(({ occurrence, emission, armed }) => ({
      ...jobStartOptions(target, occurrence, defaultTaskQueue),
      occurrence,
      requestId: emission,
      beginAt: armed.beginAt,
      reuseDisarmed: armed.reuseDisarmed,
    })),
  );
}

/** A start ahead of the slot (PATCHES.ARMED_HANDOFFS): the server begins the job at the slot's instant. */
export interface ArmedStart {
  /** The slot's fireAt. */
  beginAt: string;
  reuseDisarmed: boolean;
}

/** Terminates an armed job that has not begun, and says whether it had (src/activities/disarm.ts). */
export const { disarmJob } = wf.proxyActivities<Pick<DisarmActivities, 'disarmJob'>>({
  startToCloseTimeout: '10s',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '20s', maximumAttempts: 10 },
});

/** Outcome of a finished child, as an occurrence status. */
export function jobOutcome(err: unknown): {
  status: 'COMPLETED' | 'CANCELLED' | 'FAILED';
  reason: string | null;
} {
  if (err === undefined) return { status: 'COMPLETED', reason: null };
  const cause = err instanceof wf.ChildWorkflowFailure && err.cause ? err.cause : err;
  if (cause instanceof wf.CancelledFailure || cause instanceof wf.TerminatedFailure) {
    return {
      status: 'CANCELLED',
      reason: `target ${cause instanceof wf.CancelledFailure ? 'cancelled' : 'terminated'}`,
    };
  }
  return { status: 'FAILED', reason: `target failed: ${(cause as Error).message}` };
}
