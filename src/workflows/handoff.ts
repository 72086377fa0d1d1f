// Handing a JOB occurrence off as a child workflow. The start is a command of the schedule's own workflow
// task, so the decision and the start are recorded together: no crash can fall between them. The child's
// workflow ID is the occurrence ID and IDs are never reused, so starting the same slot again (a backfill
// over a fired slot, a manual trigger of a slot that already ran) is refused by the server and counted as
// a prevented duplicate. The child outlives the schedule (ABANDON): cancelling a schedule never kills
// work already handed off unless asked to.
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import * as wf from '@temporalio/workflow';
import type { OccurrenceEnvelope, Target } from '../model/contracts.js';
import { OccurrenceIdKey, ScheduledForKey, ScheduleIdKey, TenantIdKey } from './search-attributes.js';

export type { OccurrenceEnvelope };

export type JobStart =
  | { duplicate: false; workflowId: string; result: Promise<unknown> }
  | { duplicate: true; workflowId: string };

export async function startJob(
  target: Extract<Target, { type: 'JOB' }>,
  occurrence: OccurrenceEnvelope,
  defaultTaskQueue: string,
): Promise<JobStart> {
  try {
    const child = await wf.startChild(target.job_type, {
      workflowId: occurrence.occurrence_id,
      taskQueue: target.task_queue ?? defaultTaskQueue,
      args: [occurrence],
      parentClosePolicy: 'ABANDON',
      cancellationType: 'ABANDON',
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      typedSearchAttributes: [
        { key: TenantIdKey, value: occurrence.tenant_id },
        { key: ScheduleIdKey, value: occurrence.schedule_id },
        { key: OccurrenceIdKey, value: occurrence.occurrence_id },
        { key: ScheduledForKey, value: new Date(occurrence.scheduled_for) },
      ],
      staticSummary: `Occurrence of schedule ${occurrence.schedule_id} for ${occurrence.scheduled_for}`,
      // The Web UI renders this as markdown: the link leads back to the schedule's own workflow page.
      staticDetails: `schedule [**${occurrence.schedule_id}**](/namespaces/${encodeURIComponent(wf.workflowInfo().namespace)}/workflows/${encodeURIComponent(wf.workflowInfo().workflowId)}) v${occurrence.schedule_version}, slot ${occurrence.scheduled_for}, trigger ${occurrence.trigger}, idempotency key \`${occurrence.idempotency_key}\``,
    });
    return { duplicate: false, workflowId: child.workflowId, result: child.result() };
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError) {
      return { duplicate: true, workflowId: occurrence.occurrence_id };
    }
    throw err;
  }
}

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
