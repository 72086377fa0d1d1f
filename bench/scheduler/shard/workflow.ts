// A prototype for issue #22's CPU goal, run only by bench/scheduler/versus-schedules.ts `--shard-size`: one
// workflow arms the slot of many schedules in one wake, where the product runs one workflow (and one task
// per fire) per schedule. It measures what such a design would cost per fire; it is not the product. Left
// out, and what a real shard would need: definitions held and edited in the shard (updates, a ledger per
// schedule, continue-as-new as it grows), slots from the calendar (here every schedule's slot is the
// bench's T), pause/delete/revocation disarming, and a policy check per schedule at arming (the product's
// start activity below still checks the policy in force at each start).
import * as wf from '@temporalio/workflow';
import type { JobStartRequest, JobStartResult } from '../../../src/activities/handoff.js';
import { armAtMs } from '../../../src/model/arming.js';
import type { OccurrenceEnvelope } from '../../../src/model/contracts.js';
import { idempotencyKey, occurrenceId } from '../../../src/model/ids.js';
import { jobStartOptions } from '../../../src/workflows/schedule/job-start.js';

export interface ShardInput {
  tenant: string;
  scheduleIds: string[];
  /** The one slot every schedule of the shard has (epoch ms). */
  slotMs: number;
  /** Arms between this and half of it before the slot, at a point fixed by the shard's ID (as the product). */
  leadMs: number;
  jobType: string;
  jobTaskQueue: string;
  /** Starts per activity: each activity's result is one history event for all of them. */
  startsPerActivity: number;
}

export interface ShardActivities {
  startArmedJobs(requests: JobStartRequest[]): Promise<JobStartResult[]>;
}

const { startArmedJobs } = wf.proxyActivities<ShardActivities>({
  startToCloseTimeout: '2m',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '20s' },
});

export async function shardWorkflow(input: ShardInput): Promise<{ started: number; duplicates: number }> {
  const { workflowId } = wf.workflowInfo();
  await wf.sleep(Math.max(armAtMs(input.slotMs, input.leadMs, workflowId) - Date.now(), 0));
  const scheduledFor = new Date(input.slotMs).toISOString();
  const emittedAt = new Date().toISOString();
  const requests: JobStartRequest[] = input.scheduleIds.map((scheduleId) => {
    const occurrence: OccurrenceEnvelope = {
      occurrence_id: occurrenceId(input.tenant, scheduleId, scheduledFor),
      idempotency_key: idempotencyKey(scheduleId, scheduledFor),
      tenant_id: input.tenant,
      schedule_id: scheduleId,
      schedule_version: 1,
      scheduled_for: scheduledFor,
      emitted_at: emittedAt,
      trigger: 'SCHEDULE',
      payload_ref: null,
      payload: null,
    };
    return {
      ...jobStartOptions({ type: 'JOB', job_type: input.jobType }, occurrence, input.jobTaskQueue),
      occurrence,
      requestId: `${occurrence.occurrence_id}:${workflowId}`,
      beginAt: scheduledFor,
    };
  });
  const batches: JobStartRequest[][] = [];
  for (let i = 0; i < requests.length; i += input.startsPerActivity)
    batches.push(requests.slice(i, i + input.startsPerActivity));
  const results = (await Promise.all(batches.map((batch) => startArmedJobs(batch)))).flat();
  const duplicates = results.filter((r) => r.duplicate).length;
  return { started: results.length - duplicates, duplicates };
}
