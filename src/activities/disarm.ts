// A JOB armed ahead of its slot is a workflow started with a start delay: until the delay elapses its history
// holds nothing but WorkflowExecutionStarted (the server schedules the first workflow task only then), so no
// worker has seen it. Terminating it in that window means the job never ran, and the slot may be armed again
// under the same workflow ID (ALLOW_DUPLICATE_FAILED_ONLY counts a terminated run as failed). A job that has
// begun belongs to its run: it is never terminated here.
import {
  type Client,
  type WorkflowExecutionDescription,
  type WorkflowHandle,
  WorkflowNotFoundError,
} from '@temporalio/client';
import proto from '@temporalio/proto';

export interface DisarmRequest {
  workflowId: string;
  /** Recorded on the termination (the Web UI shows it). */
  reason: string;
}

export interface DisarmResult {
  /**
   * DISARMED: terminated before it began (also answered again on a retry). BEGUN: it began, and was left
   * running unless the detail says otherwise. GONE: no such workflow, or it had already closed.
   */
  outcome: 'DISARMED' | 'BEGUN' | 'GONE';
  detail: string;
}

const { EventType } = proto.temporal.api.enums.v1;

/** Whether the run had a workflow task scheduled before it was terminated (or by now, if it was not). */
async function beganBeforeTermination(run: WorkflowHandle): Promise<boolean> {
  for (const event of (await run.fetchHistory()).events ?? []) {
    if (event.eventType === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_TERMINATED) return false;
    if (event.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED) return true;
  }
  return false;
}

export function createDisarmActivities(deps: { client: Client }) {
  async function disarmJob({ workflowId, reason }: DisarmRequest): Promise<DisarmResult> {
    let description: WorkflowExecutionDescription;
    try {
      description = await deps.client.workflow.getHandle(workflowId).describe();
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) return { outcome: 'GONE', detail: `${workflowId} not found` };
      throw err;
    }
    // Pinned to the run described: a later run under this ID is another arming's, not ours to terminate.
    const run = deps.client.workflow.getHandle(workflowId, description.runId);
    const status = description.status.name;
    // A retry whose earlier attempt terminated the job must answer as that attempt did.
    if (status === 'TERMINATED' && !(await beganBeforeTermination(run))) {
      return { outcome: 'DISARMED', detail: `${workflowId} was terminated before it began` };
    }
    if (status !== 'RUNNING') return { outcome: 'GONE', detail: `${workflowId} already closed (${status})` };
    // Any event past its start counts: a signal in the delay adds one without beginning it, and leaving such
    // a job to run is the safe side of the doubt.
    if (description.historyLength > 1) {
      return { outcome: 'BEGUN', detail: `${workflowId} has begun: left running` };
    }
    try {
      await run.terminate(reason);
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) {
        return { outcome: 'GONE', detail: `${workflowId} closed before it could be terminated` };
      }
      throw err;
    }
    // Its delay may have elapsed between the check and the terminate.
    if (await beganBeforeTermination(run)) {
      return { outcome: 'BEGUN', detail: `${workflowId} was terminated after it began` };
    }
    return { outcome: 'DISARMED', detail: `${workflowId} terminated before it began` };
  }

  return { disarmJob };
}

export type DisarmActivities = ReturnType<typeof createDisarmActivities>;
