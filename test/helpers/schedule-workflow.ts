// A schedule of tenant acme whose workflow is started directly, past the SDK and the API: raced by a test,
// standing for one created before a check existed, or started as an older release's workflow type.
import type { Client } from '@temporalio/client';
import { ScheduleSpec, type ScheduleSpecInput } from '../../src/model/contracts.js';
import { scheduleWorkflowId } from '../../src/model/ids.js';
import { SCHEDULE_WORKFLOW_TYPE } from '../../src/workflows/definitions.js';
import type { ScheduleWorkflowInput } from '../../src/workflows/schedule/workflow.js';

export interface DirectSchedule
  extends Partial<
    Pick<
      ScheduleWorkflowInput,
      'createdAt' | 'continueAsNewAfterEvents' | 'armLeadMs' | 'armAheadMs' | 'maxHandoffsInFlight'
    >
  > {
  scheduleId: string;
  spec: ScheduleSpecInput;
  /** Default the current type (SCHEDULE_WORKFLOW_TYPE). */
  type?: string;
  ownerRef?: string;
  memo?: Record<string, unknown>;
}

/** The queues every suite's workers poll: the scheduler's, and the jobs' (a JOB target's default). */
export const SCHEDULER_QUEUE = 'scheduler';
export const JOB_QUEUE = 'jobs';

export function startScheduleDirectly(client: Client, schedule: DirectSchedule) {
  const { scheduleId, spec, type, ownerRef, memo, ...options } = schedule;
  return client.workflow.start(type ?? SCHEDULE_WORKFLOW_TYPE, {
    taskQueue: SCHEDULER_QUEUE,
    workflowId: scheduleWorkflowId('acme', scheduleId),
    args: [
      {
        identity: { schedule_id: scheduleId, tenant_id: 'acme', owner_ref: ownerRef ?? 'ops' },
        spec: ScheduleSpec.parse(spec),
        defaultJobTaskQueue: JOB_QUEUE,
        ...options,
      } satisfies ScheduleWorkflowInput,
    ],
    ...(memo ? { memo } : {}),
  });
}
