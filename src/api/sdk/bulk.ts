// SchedulerClient.bulk: one action on the schedules of the caller's tenant that a label selector picks
// (issue 42), each answered with what happened to it. The schedules are listed and read first, and the
// selector is tested on each as read (listing.ts), so a schedule relabelled a moment ago is judged by its
// labels now; a selector that picks more than BULK_MAX_SCHEDULES is refused before anything changes (listing.ts pickedBySelector), so a
// tired operator's typo never half-applies.
import {
  type BulkAction,
  BulkRequest,
  type BulkRequestInput,
  type BulkResult,
  type Schedule,
} from '../../model/contracts.js';
import { isTerminal } from '../../model/views.js';
import { parseOrThrow, refusalReason } from '../errors.js';
import { inTurns } from './in-turns.js';
import { pickedBySelector } from './listing.js';
import type { ScheduleCalls } from './schedule-calls.js';

/** Schedules acted on at once: each action is a signal or an update on the shared worker. */
const BULK_CONCURRENCY = 8;

/** How each action is done to one schedule (the client's own methods, so the checks are theirs). */
export type BulkActions = Record<BulkAction, (scheduleId: string, request: BulkRequest) => Promise<unknown>>;

export interface BulkHooks {
  /** Called once with the number of schedules read (each a query). */
  onRead?: (schedules: number) => void;
  /** Called once per schedule acted on, before the action. */
  onAct?: () => void;
}

/** Why `action` has nothing to do on `schedule`, or null when it has. */
export function nothingToDo(action: BulkAction, schedule: Schedule): string | null {
  const status = schedule.status;
  switch (action) {
    case 'pause':
      return status === 'ACTIVE'
        ? null
        : status === 'PAUSED'
          ? 'already paused'
          : `${status}: nothing to pause`;
    case 'resume':
      if (status === 'PAUSED' || (status === 'ACTIVE' && schedule.owner_revoked_at !== null)) return null;
      return status === 'ACTIVE' ? 'already active' : `${status}: cannot be resumed`;
    case 'cancel':
      return isTerminal(status) ? `already ${status}` : null;
    case 'delete':
      return null; // a deleted schedule is never picked; an ended one is deleted too
  }
}

export async function bulkOperation(
  calls: ScheduleCalls,
  input: BulkRequestInput,
  actions: BulkActions,
  hooks: BulkHooks = {},
): Promise<BulkResult> {
  const request = parseOrThrow(BulkRequest, input);
  const schedules = await pickedBySelector(calls, request.selector, 'selector');
  hooks.onRead?.(schedules.length);
  const results = await inTurns(schedules, BULK_CONCURRENCY, (s) => outcomeOf(s, request, actions, hooks));
  return {
    action: request.action,
    selector: request.selector,
    dry_run: request.dry_run,
    matched: schedules.length,
    results,
  };
}

async function outcomeOf(
  schedule: Schedule,
  request: BulkRequest,
  actions: BulkActions,
  hooks: BulkHooks,
): Promise<BulkResult['results'][number]> {
  const base = { schedule_id: schedule.schedule_id, status_before: schedule.status };
  const unchanged = nothingToDo(request.action, schedule);
  if (unchanged) return { ...base, outcome: 'UNCHANGED', reason: unchanged };
  if (request.dry_run) return { ...base, outcome: 'WOULD_DO', reason: null };
  hooks.onAct?.();
  try {
    await actions[request.action](schedule.schedule_id, request);
    return { ...base, outcome: 'DONE', reason: null };
  } catch (err) {
    // One schedule's refusal (its worker busy, an edit in between) is its own answer, not the batch's.
    return { ...base, outcome: 'FAILED', reason: refusalReason(err) };
  }
}
