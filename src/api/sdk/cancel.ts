// SchedulerClient.cancel and .delete: a schedule ended (its running jobs cancelled on request), or hidden
// from listings, or removed from Temporal once ended.
import { CancelRequest, type Occurrence, type ScheduleDescription } from '../../model/contracts.js';
import { withExplanation } from '../../model/explanation.js';
import { occurrenceIdPrefix, scheduleWorkflowId } from '../../model/ids.js';
import { cancelUpdate } from '../../workflows/definitions.js';
import { quoteQueryValue, ScheduleIdKey, TenantIdKey } from '../../workflows/search-attributes.js';
import { parseOrThrow, SchedulerError } from '../errors.js';
import type { ScheduleCalls } from './schedule-calls.js';

export async function cancelSchedule(
  calls: ScheduleCalls,
  scheduleId: string,
  request: Partial<CancelRequest>,
): Promise<ScheduleDescription> {
  const parsed = parseOrThrow(CancelRequest, request);
  const description = await calls.runUpdate(scheduleId, cancelUpdate, parsed);
  if (parsed.running === 'CANCEL') await cancelRunningJobs(calls, scheduleId, description.recent_occurrences);
  return { ...description, schedule: withExplanation(description.schedule) };
}

/**
 * The schedule's JOB workflows still running, cancelled from here (issue 40). The workflow asks for the
 * jobs it awaits as it ends, in the task that closes it, and the server drops a cancel requested by a
 * workflow that closed; the jobs it started without awaiting them (a recurring ALLOW JOB) it never
 * followed. The awaited ones come from its answer, the others from visibility (which may not list a job
 * started within the last second). Best effort: the schedule is cancelled whatever happens here.
 */
async function cancelRunningJobs(
  calls: ScheduleCalls,
  scheduleId: string,
  occurrences: readonly Occurrence[],
): Promise<void> {
  const prefix = occurrenceIdPrefix(calls.tenant, scheduleId);
  const jobs = new Set(
    occurrences
      .filter((o) => o.status === 'RUNNING' && o.target_ref.startsWith(prefix))
      .map((o) => o.target_ref),
  );
  const query = [
    `${TenantIdKey.name} = ${quoteQueryValue(calls.tenant)}`,
    `${ScheduleIdKey.name} = ${quoteQueryValue(scheduleId)}`,
    `ExecutionStatus = 'Running'`,
  ].join(' AND ');
  try {
    for await (const execution of calls.options.client.workflow.list({ query }))
      if (execution.workflowId.startsWith(prefix)) jobs.add(execution.workflowId);
  } catch {
    // Visibility unavailable: the awaited jobs are still cancelled.
  }
  await Promise.allSettled([...jobs].map((id) => calls.options.client.workflow.getHandle(id).cancel()));
}

/**
 * Cancels the schedule and hides it from listings (`deleted_at` is set; it stays readable by ID, with its
 * occurrences, for audit). A schedule that had already ended is removed from Temporal instead (the
 * server purges it asynchronously). Started target workflows are never touched.
 */
export async function deleteSchedule(
  calls: ScheduleCalls,
  scheduleId: string,
  request: Partial<CancelRequest>,
): Promise<void> {
  const parsed = parseOrThrow(CancelRequest, request);
  try {
    await calls.runUpdate(scheduleId, cancelUpdate, { ...parsed, delete: true });
  } catch (err) {
    if (!(err instanceof SchedulerError && err.code === 'INVALID_STATE')) throw err;
    await calls.call(scheduleId, async () => {
      await calls.options.client.workflowService.deleteWorkflowExecution({
        namespace: calls.options.client.options.namespace,
        workflowExecution: { workflowId: scheduleWorkflowId(calls.tenant, scheduleId) },
      });
    });
  }
}
