// Slot batches are computed in an activity (a local one before 0.3) and recorded in the workflow's history rather than
// recomputed on replay: a tzdata update in Node or a fix in src/calendar then never makes a running
// schedule's replay diverge, and a wake costs no recomputation.
//
// The search runs on the worker's main thread, which every tenant's hand-off activities share, so it is
// bounded in wall time (security review N4), as the API bounds its own searches (SCHEDULER_CALENDAR_BUDGET_MS):
// - a schedule's next batch that runs out of budget after finding a slot ends there: a shorter batch (the
//   cursor after its last slot), and the workflow asks for the next one when it needs it, as after a batch the
//   calendar's candidate limit cut short. One that found nothing yet fails and is retried, each attempt with
//   the budget times its attempt number (a busy moment passes; the calendar's own candidate limit, about a
//   second and a half of search, still ends any search);
// - a backfill's batch (bounded by `until`: every slot of the range is wanted) that runs out fails at once, not
//   retried: the workflow refuses that backfill with the reason (422 through the API), and the schedule runs on.
import { ApplicationFailure, activityInfo } from '@temporalio/activity';
import { CalendarError } from '../calendar/errors.js';
/** Default wall time of one slot activity's calendar search (SCHEDULER_WORKER_CALENDAR_BUDGET_MS). */
import { DEFAULT_SLOT_BUDGET_MS } from '../model/defaults.js';
import { computeSlots, type SlotBatch, type SlotBatchRequest, wallTimeBudget } from '../model/slots.js';

/** The failure type of a batch refused for its budget (a backfill's: not retried). */
export const SLOT_BUDGET_ERROR = 'SlotBudgetExceeded';

export interface SlotActivityOptions {
  /** Wall time one attempt's search may take (ms); default DEFAULT_SLOT_BUDGET_MS. */
  budgetMs?: number;
  /** The clock the budget is measured on (ms, monotonic); default performance.now. Tests pass their own. */
  now?: () => number;
}

/** Why a worker's slot search was stopped. */
export function slotBudgetReason(budgetMs: number): string {
  return `the calendar search took longer than ${budgetMs} ms, the worker's budget for one slot batch (SCHEDULER_WORKER_CALENDAR_BUDGET_MS): backfill a shorter range, or simplify the rule (a rule that matches rarely, a COUNT counted from a start far in the past, a window or exclusions that leave almost no occurrence)`;
}

/** The attempt of the activity running now (1 outside one: a direct call). */
function currentAttempt(): number {
  try {
    return activityInfo().attempt;
  } catch {
    return 1;
  }
}

export function createSlotActivities(options: SlotActivityOptions = {}) {
  const budgetMs = options.budgetMs ?? DEFAULT_SLOT_BUDGET_MS;
  return {
    async computeSlotBatch(request: SlotBatchRequest): Promise<SlotBatch> {
      const backfill = request.until !== undefined;
      const attemptBudgetMs = backfill ? budgetMs : budgetMs * currentAttempt();
      const budget = wallTimeBudget(attemptBudgetMs, slotBudgetReason(attemptBudgetMs), {
        ...(options.now ? { now: options.now } : {}),
        partial: !backfill,
      });
      try {
        return computeSlots(request, budget);
      } catch (err) {
        if (backfill && err instanceof CalendarError && budget.spent())
          throw ApplicationFailure.create({
            message: err.reason,
            type: SLOT_BUDGET_ERROR,
            nonRetryable: true,
          });
        throw err;
      }
    },
  };
}
