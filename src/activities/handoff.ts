// Side effects of a schedule: hand an occurrence to its target. Each is idempotent on the occurrence's
// key, because Temporal retries an activity whose worker died after the effect but before the result was
// recorded: a JOB's workflow ID is the occurrence ID (a second start finds the first), a signal and an
// event carry the idempotency key for the receiver to deduplicate on.
import { ApplicationFailure, Context } from '@temporalio/activity';
import { type Client, WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError } from '@temporalio/client';
import type { Target } from '../api/contracts.js';
import {
  OccurrenceIdKey,
  ScheduledForKey,
  ScheduleIdKey,
  TenantIdKey,
} from '../workflows/search-attributes.js';

/** Error type for failures that retrying cannot fix; the workflow records them on the occurrence. */
export const PERMANENT_HANDOFF_ERROR = 'PermanentHandoffError';

export interface OccurrenceEnvelope {
  occurrence_id: string;
  idempotency_key: string;
  tenant_id: string;
  schedule_id: string;
  schedule_version: number;
  scheduled_for: string;
  emitted_at: string;
  trigger: 'SCHEDULE' | 'MANUAL' | 'BACKFILL';
  payload_ref: string | null;
  payload: Record<string, unknown> | null;
}

export interface HandoffRequest {
  target: Target;
  occurrence: OccurrenceEnvelope;
}

export interface HandoffResult {
  /** What was started, signalled or published (workflow ID, or the sink URL). */
  targetRef: string;
  /** Run of a started JOB, to watch and to cancel. */
  runId: string | null;
  /** The target already had this occurrence: a retry found the first attempt's effect. */
  duplicate: boolean;
  attempt: number;
}

export interface CompletionRequest {
  workflowId: string;
  runId: string;
}

export interface CompletionResult {
  outcome: 'COMPLETED' | 'FAILED' | 'CANCELLED' | 'TERMINATED' | 'TIMED_OUT' | 'CONTINUED_AS_NEW';
  closedAt: string;
  message: string | null;
}

export interface HandoffDependencies {
  client: Client;
  /** Task queue for JOB targets that name none. */
  defaultJobTaskQueue: string;
  fetch?: typeof fetch;
}

function permanent(message: string): ApplicationFailure {
  return ApplicationFailure.nonRetryable(message, PERMANENT_HANDOFF_ERROR);
}

export function createHandoffActivities(deps: HandoffDependencies) {
  const httpFetch = deps.fetch ?? fetch;

  async function startJob(
    target: Extract<Target, { type: 'JOB' }>,
    occ: OccurrenceEnvelope,
  ): Promise<HandoffResult> {
    const attempt = Context.current().info.attempt;
    try {
      const handle = await deps.client.workflow.start(target.job_type, {
        workflowId: occ.occurrence_id,
        taskQueue: target.task_queue ?? deps.defaultJobTaskQueue,
        args: [occ],
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
        workflowIdConflictPolicy: 'FAIL',
        typedSearchAttributes: [
          { key: TenantIdKey, value: occ.tenant_id },
          { key: ScheduleIdKey, value: occ.schedule_id },
          { key: OccurrenceIdKey, value: occ.occurrence_id },
          { key: ScheduledForKey, value: new Date(occ.scheduled_for) },
        ],
        staticSummary: `Occurrence of schedule ${occ.schedule_id} for ${occ.scheduled_for}`,
        staticDetails: `schedule **${occ.schedule_id}** v${occ.schedule_version}, slot ${occ.scheduled_for}, trigger ${occ.trigger}, idempotency key \`${occ.idempotency_key}\``,
      });
      return { targetRef: handle.workflowId, runId: handle.firstExecutionRunId, duplicate: false, attempt };
    } catch (err) {
      if (err instanceof WorkflowExecutionAlreadyStartedError) {
        // The slot was already handed off (a retry after a crash, a backfill over a fired slot).
        const described = await deps.client.workflow.getHandle(occ.occurrence_id).describe();
        return { targetRef: occ.occurrence_id, runId: described.runId, duplicate: true, attempt };
      }
      throw err;
    }
  }

  async function signalTarget(
    target: Extract<Target, { type: 'WORKFLOW_SIGNAL' }>,
    occ: OccurrenceEnvelope,
  ): Promise<HandoffResult> {
    const attempt = Context.current().info.attempt;
    if (target.start) {
      const handle = await deps.client.workflow.signalWithStart(target.start.workflow_type, {
        workflowId: target.workflow_id,
        taskQueue: target.start.task_queue,
        signal: target.signal_name,
        signalArgs: [occ],
        args: [],
      });
      return { targetRef: handle.workflowId, runId: null, duplicate: false, attempt };
    }
    try {
      await deps.client.workflow.getHandle(target.workflow_id).signal(target.signal_name, occ);
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) {
        throw permanent(`workflow ${target.workflow_id} is not running and the target has no start options`);
      }
      throw err;
    }
    return { targetRef: target.workflow_id, runId: null, duplicate: false, attempt };
  }

  async function publishEvent(
    target: Extract<Target, { type: 'EVENT' }>,
    occ: OccurrenceEnvelope,
  ): Promise<HandoffResult> {
    const attempt = Context.current().info.attempt;
    // CloudEvents 1.0, structured JSON mode; `id` is the occurrence ID, so a sink can deduplicate retries.
    const event = {
      specversion: '1.0',
      id: occ.occurrence_id,
      source: `durable-scheduler/${occ.tenant_id}/${occ.schedule_id}`,
      type: target.event_type,
      time: occ.emitted_at,
      datacontenttype: 'application/json',
      subject: occ.scheduled_for,
      data: {
        schedule_id: occ.schedule_id,
        schedule_version: occ.schedule_version,
        scheduled_for: occ.scheduled_for,
        idempotency_key: occ.idempotency_key,
        trigger: occ.trigger,
        payload_ref: occ.payload_ref,
        payload: occ.payload,
      },
    };
    let response: Response;
    try {
      response = await httpFetch(target.sink_url, {
        method: 'POST',
        headers: { 'content-type': 'application/cloudevents+json', 'idempotency-key': occ.idempotency_key },
        body: JSON.stringify(event),
        signal: AbortSignal.timeout(15_000),
      });
    } catch (err) {
      throw new Error(`POST ${target.sink_url} failed: ${(err as Error).message}`);
    }
    await response.body?.cancel();
    if (response.ok)
      return { targetRef: target.sink_url, runId: null, duplicate: response.status === 208, attempt };
    const retryable = response.status >= 500 || response.status === 408 || response.status === 429;
    const message = `POST ${target.sink_url} answered ${response.status}`;
    if (retryable) throw new Error(message);
    throw permanent(message);
  }

  return {
    async handOff(request: HandoffRequest): Promise<HandoffResult> {
      const { target, occurrence } = request;
      switch (target.type) {
        case 'JOB':
          return await startJob(target, occurrence);
        case 'WORKFLOW_SIGNAL':
          return await signalTarget(target, occurrence);
        case 'EVENT':
          return await publishEvent(target, occurrence);
      }
    },

    /** Waits for a started JOB to close, heartbeating so a dead worker's watch is retried elsewhere. */
    async awaitTargetCompletion(request: CompletionRequest): Promise<CompletionResult> {
      const ctx = Context.current();
      const handle = deps.client.workflow.getHandle(request.workflowId, request.runId, { followRuns: false });
      const beat = setInterval(() => ctx.heartbeat(), 5_000);
      try {
        let message: string | null = null;
        try {
          await Promise.race([handle.result(), ctx.cancelled]);
        } catch (err) {
          if (ctx.cancellationSignal.aborted) throw err;
          message = (err as Error).message;
        }
        const described = await handle.describe();
        const outcome = (
          {
            COMPLETED: 'COMPLETED',
            FAILED: 'FAILED',
            CANCELLED: 'CANCELLED',
            TERMINATED: 'TERMINATED',
            TIMED_OUT: 'TIMED_OUT',
            CONTINUED_AS_NEW: 'CONTINUED_AS_NEW',
          } as const
        )[described.status.name as 'COMPLETED'];
        return {
          outcome: outcome ?? 'FAILED',
          closedAt: (described.closeTime ?? new Date()).toISOString(),
          message,
        };
      } finally {
        clearInterval(beat);
      }
    },

    /** REPLACE and cancel-with-running: ask a running JOB to cancel (it may clean up first). */
    async cancelTarget(request: CompletionRequest): Promise<void> {
      try {
        await deps.client.workflow.getHandle(request.workflowId, request.runId).cancel();
      } catch (err) {
        if (err instanceof WorkflowNotFoundError) return; // already closed: nothing to cancel
        throw err;
      }
    },
  };
}

export type HandoffActivities = ReturnType<typeof createHandoffActivities>;
