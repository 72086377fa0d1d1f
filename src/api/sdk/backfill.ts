// SchedulerClient.backfill: the slots of a past range run now, counted first against the tenant's backfill
// quotas (one backfill, and per hour on the ledger).
import { CalendarError } from '../../calendar/errors.js';
import { BackfillRequest, type BackfillResult, specOf } from '../../model/contracts.js';
import { backfillUpdate } from '../../workflows/definitions.js';
import { parseOrThrow, QuotaExceededError, SchedulerError, validationError } from '../errors.js';
import { PROCESS_BACKFILL_LEDGER, WORKFLOW_BACKFILL_LIMIT } from '../quotas.js';
import { IN_PROCESS_SLOTS } from '../slot-runner.js';
import { recordedOverride } from './override.js';
import type { ScheduleCalls } from './schedule-calls.js';

export async function backfillSchedule(
  calls: ScheduleCalls,
  scheduleId: string,
  request: BackfillRequest,
): Promise<BackfillResult> {
  const parsed = parseOrThrow(BackfillRequest, request);
  const slots = await backfillSlotCount(calls, scheduleId, parsed);
  const release =
    slots === null
      ? () => {}
      : (calls.options.backfillLedger ?? PROCESS_BACKFILL_LEDGER).reserve(
          calls.tenant,
          slots,
          calls.quotas().max_backfill_slots_per_hour,
        );
  try {
    return await calls.runUpdate(scheduleId, backfillUpdate, recordedOverride(parsed));
  } catch (err) {
    release(); // refused or failed: nothing was backfilled
    throw err;
  }
}

/**
 * The slots a backfill covers, counted as the workflow's slot activity will (same function, same
 * definition and creation instant), refusing more than quotas.max_backfill_slots. Null when no quota
 * applies, or when the range passes the workflow's own limit (it answers that one itself, 422). A range
 * that cannot be counted is refused (VALIDATION naming `to`), never sent on unchecked.
 */
async function backfillSlotCount(
  calls: ScheduleCalls,
  scheduleId: string,
  request: BackfillRequest,
): Promise<number | null> {
  const quotas = calls.quotas();
  if (!Number.isFinite(quotas.max_backfill_slots) && !Number.isFinite(quotas.max_backfill_slots_per_hour))
    return null;
  const current = await calls.sdk.get(scheduleId);
  const cap = Math.min(quotas.max_backfill_slots, WORKFLOW_BACKFILL_LIMIT);
  let count: number;
  try {
    const [batch] = await (calls.options.calendar ?? IN_PROCESS_SLOTS).slots(calls.tenant, [
      {
        scheduleId,
        spec: specOf(current),
        createdAt: current.created_at,
        after: new Date(Date.parse(request.from) - 1).toISOString(),
        until: request.to,
        count: cap + 1,
      },
    ]);
    count = batch!.slots.length;
  } catch (err) {
    // A range the calendar cannot count (not within the API's budget, or past its candidate limit) is
    // refused here: sent on uncounted, it would pass both quotas (security review N4). A busy calendar
    // pool's refusal is the answer.
    if (err instanceof CalendarError && err.code === 'SEARCH_LIMIT')
      throw new SchedulerError(
        'VALIDATION',
        `the slots from ${request.from} to this instant could not be counted, so this tenant's backfill quotas cannot be checked (${err.reason}): backfill a shorter range`,
        'to',
      );
    if (err instanceof CalendarError) throw validationError(err)!;
    throw err;
  }
  if (count <= cap) return count;
  if (quotas.max_backfill_slots >= WORKFLOW_BACKFILL_LIMIT) return null;
  throw new QuotaExceededError(
    `the range covers more than ${quotas.max_backfill_slots} slots, this tenant's quota for one backfill (quotas.max_backfill_slots): split it`,
    'to',
    quotas.max_backfill_slots,
    count,
  );
}
