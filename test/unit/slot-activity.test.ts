// The slot activity's time budget (security review N4): the worker's calendar search runs on the main
// thread every tenant's hand-offs share, so it is bounded like the API's. A schedule's next batch that runs
// out ends shorter, and asking again from its cursor continues the very same sequence; one that found nothing
// fails to be retried with a larger budget; a backfill's batch that runs out fails for good with the reason.
// The real activity in the SDK's activity context (MockActivityEnvironment: its attempt number), on a clock
// the test drives.
import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { describe, expect, it } from 'vitest';
import { createSlotActivities, SLOT_BUDGET_ERROR, slotBudgetReason } from '../../src/activities/slots.js';
import { SEARCH_BUDGET_STRIDE } from '../../src/calendar/engine.js';
import { CalendarError } from '../../src/calendar/errors.js';
import { ScheduleSpec } from '../../src/model/contracts.js';
import { computeSlots, type SlotBatch, type SlotBatchRequest } from '../../src/model/slots.js';

const CREATED = '2026-03-01T00:00:00Z';
/** Every minute, but only ten of a day's 1,440 in the window: about 144 candidates searched per slot. */
const SPARSE = ScheduleSpec.parse({
  timing: { kind: 'CRON', expression: '* * * * *', timezone: 'UTC' },
  window: { from: '09:00', to: '09:10', outside: 'SKIP' },
  target: { type: 'JOB', job_type: 'x' },
});
/** Every minute of every day: a candidate is a slot. */
const DENSE = ScheduleSpec.parse({
  timing: { kind: 'CRON', expression: '* * * * *', timezone: 'UTC' },
  target: { type: 'JOB', job_type: 'x' },
});
const request = (spec: ScheduleSpec, extra: Partial<SlotBatchRequest> = {}): SlotBatchRequest => ({
  scheduleId: 's',
  spec,
  createdAt: CREATED,
  after: CREATED,
  count: 100,
  ...extra,
});

/** A clock that moves `stepMs` each time it is read (the budget reads it every SEARCH_BUDGET_STRIDE candidates). */
const steppingClock = (stepMs: number) => {
  let t = 0;
  return () => (t += stepMs);
};

/** The activity context of attempt `attempt`; its log (a failed attempt is logged) kept out of the output. */
const inAttempt = (attempt: number) =>
  new MockActivityEnvironment({ attempt }, { logger: new DefaultLogger('WARN', () => {}) });

describe('the slot activity’s time budget', () => {
  it("a schedule's batch that runs out ends shorter; asked again from its cursor, it continues the same slots", async () => {
    const unbounded = computeSlots(request(SPARSE));
    expect(unbounded.slots).toHaveLength(100);
    // A second of budget; each look at the clock moves it a second: the search stops at its second look.
    const { computeSlotBatch } = createSlotActivities({ budgetMs: 1000, now: steppingClock(1000) });
    const batches: SlotBatch[] = [];
    let next = request(SPARSE);
    while (batches.flatMap((b) => b.slots).length < 100) {
      const batch: SlotBatch = await inAttempt(1).run(computeSlotBatch, next);
      expect(batch.slots.length, 'a shorter batch, never an empty one').toBeGreaterThan(0);
      expect(batch.slots.length).toBeLessThan(100);
      expect(batch.exhausted).toBe(false);
      batches.push(batch);
      next = request(SPARSE, { after: batch.slots.at(-1)!.scheduledFor, cursor: batch.cursor });
    }
    // Each batch stopped at its second look at the clock: two strides (2,048 candidates) are under a day and a
    // half of minutes, ten slots a day; so at most two days' slots in a batch, and several batches.
    expect(2 * SEARCH_BUDGET_STRIDE).toBeLessThan(1.5 * 1440);
    expect(Math.max(...batches.map((b) => b.slots.length))).toBeLessThanOrEqual(20);
    expect(batches.length).toBeGreaterThanOrEqual(5);
    expect(
      batches
        .flatMap((b) => b.slots)
        .slice(0, 100)
        .map((s) => s.scheduledFor),
    ).toEqual(unbounded.slots.map((s) => s.scheduledFor));
  });

  it('within its budget a batch is exactly the unbounded one', async () => {
    const { computeSlotBatch } = createSlotActivities({ budgetMs: 60_000, now: steppingClock(1) });
    for (const spec of [SPARSE, DENSE])
      expect(await inAttempt(1).run(computeSlotBatch, request(spec))).toEqual(computeSlots(request(spec)));
  });

  it('a batch that found nothing within its budget fails (retried), each attempt with the budget times its number', async () => {
    // A window open one minute a week: from a Tuesday, some 8,600 candidates to Monday's slot; the budget
    // (a look at the clock per stride, each moving it a second) ends the search at 2,048, 3,072, … first.
    const weekly = ScheduleSpec.parse({
      timing: { kind: 'CRON', expression: '* * * * *', timezone: 'UTC' },
      window: { from: '09:00', to: '09:01', outside: 'SKIP', days: ['MO'] },
      target: { type: 'JOB', job_type: 'x' },
    });
    const { computeSlotBatch } = createSlotActivities({ budgetMs: 1000, now: steppingClock(1000) });
    for (const attempt of [1, 3]) {
      const failure = await inAttempt(attempt)
        .run(computeSlotBatch, request(weekly, { after: '2026-03-03T09:01:00Z', count: 1 }))
        .catch((err: unknown) => err);
      expect(failure).toBeInstanceOf(CalendarError);
      expect(failure).toMatchObject({ code: 'SEARCH_LIMIT', reason: slotBudgetReason(1000 * attempt) });
    }
  });

  it("a backfill's batch that runs out fails at once, not retried, with the reason", async () => {
    const { computeSlotBatch } = createSlotActivities({ budgetMs: 1000, now: steppingClock(1000) });
    const backfill = request(SPARSE, { count: 1001, until: '2026-04-20T00:00:00Z', cursor: undefined });
    const failure = await inAttempt(3)
      .run(computeSlotBatch, backfill)
      .catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(ApplicationFailure);
    // Its budget does not grow with attempts: it has only one.
    expect(failure).toMatchObject({
      type: SLOT_BUDGET_ERROR,
      nonRetryable: true,
      message: slotBudgetReason(1000),
    });
    // Unbounded, it was a valid backfill of 500 slots.
    expect(computeSlots(backfill).slots).toHaveLength(500);
  });
});
