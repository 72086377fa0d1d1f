// Paths that only histories of old releases take: a newcomer may skip this file. Each names the release
// whose histories need it and the row of PATCHES after which a run no longer takes it (RunVersion.has). A
// path leaves this file when no recorded history under test/histories needs it any more — never before:
// those histories are schedules that ran, and each keeps running as its own type until it ends.
import type { SearchAttributeUpdatePair } from '@temporalio/common';
import * as wf from '@temporalio/workflow';
import type { HandoffActivities } from '../../activities/handoff.js';
import type { SlotBatch, SlotBatchRequest } from '../../model/slots.js';
import type { Lifecycle } from './lifecycle.js';

type SlotActivities = { computeSlotBatch(r: SlotBatchRequest): Promise<SlotBatch> };

/**
 * 0.1–0.2 (until NO_LOCAL_ACTIVITIES): slot batches and job starts were local activities of the task that
 * decided the slot, resolved within it. Same options as the regular activities that replaced them.
 */
export const localActivities = {
  slots: (options: wf.ActivityOptions) => wf.proxyLocalActivities<SlotActivities>(options),
  startJob: (options: wf.LocalActivityOptions) =>
    wf.proxyLocalActivities<Pick<HandoffActivities, 'startJobWorkflow'>>(options).startJobWorkflow,
};

/** 0.1 (until PER_FIRE_COST): every search attribute was upserted whenever any of them changed. */
export function upsertEveryAttribute(attributes: SearchAttributeUpdatePair[]): void {
  wf.upsertSearchAttributes(attributes);
}

/** 0.1–0.4 (until TARGETS_BOUND): a resume also took a revoked schedule over, as its caller. */
export function takeOverOnResume(lifecycle: Lifecycle, ownerRef: string | null): void {
  lifecycle.takeOver(ownerRef);
}
