// Where the SDK runs the calendar. By default in the caller's thread, synchronously, as it always did (an SDK
// embedded in a service); the HTTP API passes a pool of worker threads with a time budget per request and a
// fair, bounded queue per tenant (src/api/http/calendar-pool.ts), so that a definition whose search takes
// seconds holds one thread of the pool, never the event loop every other tenant's request waits on.
import { CalendarError, type CalendarErrorCode } from '../calendar/errors.js';
import type { SearchBudget } from '../calendar/index.js';
import {
  InterpretError,
  type InterpretProblem,
  type InterpretRequest,
  type InterpretResult,
  interpret,
} from '../model/interpret.js';
import { computeSlots, type SlotBatch, type SlotBatchRequest, wallTimeBudget } from '../model/slots.js';
import { type ValidationIssue, validationIssue } from '../model/validation.js';

export interface SlotRunner {
  /**
   * `computeSlots` of each request, in order, for `tenant`. Rejects with the first request's CalendarError
   * (the later ones are not computed), or with the runner's own refusal: a search past its budget
   * (CalendarError SEARCH_LIMIT), a tenant or a pool with too much waiting (an HTTP problem, 429 or 503).
   */
  slots(tenant: string, requests: SlotBatchRequest[]): Promise<SlotBatch[]>;
  /**
   * Words → a timing (src/model/interpret.ts) for `tenant`: the reading computes each reading's next runs
   * with the calendar, so it runs where the calendar runs, under the same bounds. Its outcome is data (see
   * {@link InterpretTaskOutcome}); a runner without it reads in the caller's thread.
   */
  interpret?(tenant: string, task: InterpretTask): Promise<InterpretTaskOutcome>;
}

/** The calendar in the caller's thread, unbounded but for the calendar's own candidate budget. */
export const IN_PROCESS_SLOTS: SlotRunner = {
  slots: async (_tenant, requests) => requests.map((request) => computeSlots(request)),
  interpret: async (_tenant, task) => runInterpretTask(task),
};

/** One reading of a text (POST /v1/interpret, the SDK's and the CLI's interpret). */
export interface InterpretTask {
  request: InterpretRequest;
  /** The caller's clock (ISO instant): `now` when the request gives none. */
  wallNow: string;
}

/**
 * What a reading came to, as data (it crosses from a pool thread): the result; the reader's question or
 * refusal (`problem`: AMBIGUOUS, UNREADABLE, ZONE_REQUIRED, REGION_REQUIRED); the calendar refusing a reading's timing
 * (`error`, naming the field); or the request itself refused by its contract (`invalid`).
 */
export type InterpretTaskOutcome =
  | { ok: true; result: InterpretResult }
  | { ok: false; problem: InterpretProblem }
  | { ok: false; error: { field: string; reason: string; code: CalendarErrorCode } }
  | { ok: false; invalid: ValidationIssue };

/** Reads a text where it is (a pool thread, or the caller's): every expected failure returned as data. */
export function runInterpretTask(task: InterpretTask): InterpretTaskOutcome {
  try {
    return { ok: true, result: interpret(task.request, new Date(task.wallNow)) };
  } catch (err) {
    if (err instanceof InterpretError) return { ok: false, problem: err.problem };
    if (err instanceof CalendarError) return { ok: false, error: err.toJSON() };
    const invalid = validationIssue(err);
    if (invalid) return { ok: false, invalid };
    throw err;
  }
}

/** One unit of work of the pool: every calendar search of one request, under one budget. */
export interface SlotTask {
  requests: SlotBatchRequest[];
  /** Wall time the whole task may search for (ms); null: no bound but the calendar's own. */
  budgetMs: number | null;
}

export type SlotTaskOutcome =
  | { ok: true; batches: SlotBatch[] }
  | { ok: false; error: { field: string; reason: string; code: CalendarErrorCode } };

/** The reason a search past the API's time budget is refused with. */
export function budgetReason(budgetMs: number): string {
  return `the calendar search for this definition took longer than ${budgetMs} ms, the API's budget for one request (SCHEDULER_CALENDAR_BUDGET_MS): a rule that matches rarely, a COUNT or max_count counted from a start far in the past, or a window or exclusions that leave almost no occurrence — simplify it`;
}

/** A budget that runs out `budgetMs` after it is made, on `now` (ms, monotonic). */
export function timeBudget(budgetMs: number, now?: () => number): SearchBudget {
  return wallTimeBudget(budgetMs, budgetReason(budgetMs), now ? { now } : {});
}

/**
 * Runs a task where it is (a pool thread calls it): every request in order under one budget, a
 * CalendarError returned as data (a thread's errors cross to the event loop as plain objects), anything else
 * thrown.
 */
export function runSlotTask(task: SlotTask, now?: () => number): SlotTaskOutcome {
  const budget = task.budgetMs === null ? undefined : timeBudget(task.budgetMs, now);
  const batches: SlotBatch[] = [];
  try {
    for (const request of task.requests) batches.push(computeSlots(request, budget));
  } catch (err) {
    if (err instanceof CalendarError) return { ok: false, error: err.toJSON() };
    throw err;
  }
  return { ok: true, batches };
}

/** The batches of an outcome, or its CalendarError thrown again on this side. */
export function batchesOf(outcome: SlotTaskOutcome): SlotBatch[] {
  if (outcome.ok) return outcome.batches;
  throw new CalendarError(outcome.error.field, outcome.error.reason, outcome.error.code);
}
