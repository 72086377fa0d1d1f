// Armed jobs against the tenant policy in force. An armed job's target was checked when it was armed, up to
// SCHEDULER_ARM_AHEAD_S before the server begins it with no scheduler code in between: so when this worker's
// policy changes (its file reloaded) or the worker starts (the file may have changed while it was down), it
// lists the jobs armed and not yet begun, checks each target against the policy now in force, and tells the
// schedule of every refused one (armedTargetsRefused), which takes it back as it takes back a paused one.
// Only the schedules this worker's task queue runs are told (another scheduler deployment in the namespace
// answers to its own policy). A tenant missing from the policy altogether is acted on only once it has
// stayed missing for the hand-off's grace (SCHEDULER_MISSING_TENANT_GRACE_S): a file mid-edit or a ConfigMap mid-sync loses entries for
// moments, and the hand-off itself waits as long before it refuses.
import type { Client } from '@temporalio/client';
import { occurrenceOf, scheduleWorkflowId } from '../model/ids.js';
import type { TenantPolicy } from '../model/tenant-policy.js';
import { armedTargetsRefusedSignal } from '../workflows/definitions.js';
import { ScheduledForKey } from '../workflows/search-attributes.js';

export interface ArmedPolicyCheckOptions {
  policy: TenantPolicy;
  /** The scheduler's own task queue (no target may name it). */
  schedulerTaskQueue: string;
  /** When each tenant was first seen missing from the policy: kept by the caller across checks. */
  unlistedSince: Map<string, number>;
  missingTenantGraceMs: number;
  now?: () => number;
}

export interface ArmedPolicyCheckResult {
  /** Armed jobs not begun, listed. */
  armed: number;
  /** Of those, refused by the policy in force and told to their schedules. */
  refused: number;
  /** Refused only because their tenant is missing, still within the grace: checked again after it. */
  deferred: number;
  /** Schedules that could not be told (ended since, or the server busy): the next check tells them. */
  failed: number;
}

/** A job whose slot is this far past may still be armed (its instant moved by jitter): listed too. */
const LISTED_BEFORE_NOW_MS = 60 * 60_000;

/** One pass: every armed job whose target the policy in force refuses, told to its schedule. */
export async function checkArmedTargets(
  client: Client,
  options: ArmedPolicyCheckOptions,
): Promise<ArmedPolicyCheckResult> {
  const now = options.now ?? Date.now;
  const since = new Date(now() - LISTED_BEFORE_NOW_MS).toISOString();
  const query = `ExecutionStatus = 'Running' AND ${ScheduledForKey.name} > '${since}'`;
  const result: ArmedPolicyCheckResult = { armed: 0, refused: 0, deferred: 0, failed: 0 };
  /** Per schedule workflow, the refused jobs by reason. */
  const refusals = new Map<string, Map<string, string[]>>();
  const seenUnlisted = new Set<string>();
  for await (const job of client.workflow.list({ query })) {
    const owner = occurrenceOf(job.workflowId);
    // Begun already (the server started its first task): it runs, as a paused schedule's would.
    if (!owner || (job.executionTime && job.executionTime.getTime() <= now())) continue;
    result.armed += 1;
    const verdict = options.policy.check(
      owner.tenantId,
      { type: 'JOB', job_type: job.type, task_queue: job.taskQueue },
      { schedulerTaskQueue: options.schedulerTaskQueue, defaultJobTaskQueue: job.taskQueue },
    );
    if (verdict.allowed) continue;
    if (verdict.tenantUnlisted) {
      seenUnlisted.add(owner.tenantId);
      const first = options.unlistedSince.get(owner.tenantId) ?? now();
      options.unlistedSince.set(owner.tenantId, first);
      if (now() - first < options.missingTenantGraceMs) {
        result.deferred += 1;
        continue;
      }
    }
    const schedule = scheduleWorkflowId(owner.tenantId, owner.scheduleId);
    const reason = `the tenant policy in force (${options.policy.source}) refuses it: ${verdict.field}: ${verdict.reason}`;
    const byReason = refusals.get(schedule) ?? new Map<string, string[]>();
    byReason.set(reason, [...(byReason.get(reason) ?? []), job.workflowId]);
    refusals.set(schedule, byReason);
  }
  for (const tenant of options.unlistedSince.keys())
    if (!seenUnlisted.has(tenant)) options.unlistedSince.delete(tenant);
  for (const [schedule, byReason] of refusals) {
    const handle = client.workflow.getHandle(schedule);
    const jobs = [...byReason.values()].flat().length;
    try {
      // Only the schedules this worker's queue runs: another deployment in the namespace has its own policy.
      if ((await handle.describe()).taskQueue !== options.schedulerTaskQueue) continue;
      for (const [reason, occurrenceIds] of byReason)
        await handle.signal(armedTargetsRefusedSignal, { occurrence_ids: occurrenceIds, reason });
      result.refused += jobs;
    } catch {
      result.failed += jobs;
    }
  }
  return result;
}

export interface ArmedPolicyWatchOptions {
  policy: () => TenantPolicy;
  /** Calls `listener` after each reload of the policy; returns how to stop. */
  onPolicyChange(listener: () => void): () => void;
  schedulerTaskQueue: string;
  missingTenantGraceMs: number;
  log: (line: string) => void;
}

/**
 * Checks at start and after every change of the policy (changes while a check runs are folded into one more
 * check after it); a check that deferred a missing tenant runs again once its grace is over, and one that
 * failed (visibility down, a schedule not told) runs again a minute later.
 */
export function watchArmedPolicy(client: Client, options: ArmedPolicyWatchOptions): { stop(): void } {
  const unlistedSince = new Map<string, number>();
  let running = false;
  let again = false;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const later = (ms: number) => {
    if (stopped) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => void check(), ms);
    timer.unref();
  };
  const check = async (): Promise<void> => {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = true;
    try {
      const result = await checkArmedTargets(client, {
        policy: options.policy(),
        schedulerTaskQueue: options.schedulerTaskQueue,
        unlistedSince,
        missingTenantGraceMs: options.missingTenantGraceMs,
      });
      if (result.refused > 0 || result.failed > 0)
        options.log(
          `armed jobs the tenant policy now refuses: ${result.refused} of ${result.armed} armed taken back${result.failed ? `, ${result.failed} not yet (retried in a minute)` : ''}`,
        );
      if (result.failed > 0) later(60_000);
      else if (result.deferred > 0) later(options.missingTenantGraceMs + 1_000);
    } catch (err) {
      options.log(
        `armed jobs not checked against the tenant policy (retried in a minute): ${(err as Error).message}`,
      );
      later(60_000);
    } finally {
      running = false;
      if (again) {
        again = false;
        void check();
      }
    }
  };
  const unsubscribe = options.onPolicyChange(() => void check());
  void check();
  return {
    stop() {
      stopped = true;
      unsubscribe();
      if (timer) clearTimeout(timer);
    },
  };
}
