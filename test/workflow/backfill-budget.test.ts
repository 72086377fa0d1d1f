// A backfill's calendar work is bounded on both sides (security review N4), on the time-skipping server with
// the real worker and activities:
// - the API (the SDK) counts a backfill's slots for the tenant's quotas under its time budget; a count that
//   fails is a VALIDATION naming `to` (422 through the HTTP API), never an update sent on unchecked (it
//   passed both backfill quotas before);
// - the worker computes a backfill's slots under its own budget, on the thread every tenant's hand-offs
//   share; past it the backfill is refused at once (one attempt, not five) with the reason, and the
//   schedule runs on.
// Both budgets read clocks this test drives: a search ends where the budget says, however fast the machine.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SLOT_BUDGET_ERROR } from '../../src/activities/slots.js';
import { batchesOf, runSlotTask, type SlotRunner } from '../../src/api/slot-runner.js';
import { scheduleWorkflowId } from '../../src/model/ids.js';
import { TenantPolicy } from '../../src/model/tenant-policy.js';
import { type HistoryEvent, historiesOfEveryRun } from '../helpers/history.js';
import { SchedulerHarness } from '../helpers/scheduler-harness.js';

const DAY = 86_400_000;
/** Every minute, but only ten of a day's 1,440 in the window: a backfill of 50 days is 500 slots, 72,000 candidates. */
const SPARSE = {
  timing: { kind: 'CRON', expression: '* * * * *', timezone: 'UTC' },
  window: { from: '09:00', to: '09:10', outside: 'SKIP' },
  target: { type: 'JOB', job_type: 'recordedJob' },
} as const;

/** A clock that moves `step()` each time it is read. */
const steppingClock = (step: () => number) => {
  let t = 0;
  return () => (t += step());
};

let h: SchedulerHarness;
/** How far the worker's clock moves per look (0: it stands still, so no batch of the worker runs out). */
let workerStep = 0;
beforeAll(async () => {
  h = await SchedulerHarness.start({
    slots: { budgetMs: 1000, now: steppingClock(() => workerStep) },
  });
  await h.sdk().create({ schedule_id: 'minutes', ...SPARSE });
});
afterAll(async () => {
  await h?.teardown();
});

/** Fifty whole days, ending a day before the server's now. */
async function fiftyDays() {
  const to = Math.floor((await h.now()) / DAY) * DAY - DAY;
  return { from: new Date(to - 50 * DAY).toISOString(), to: new Date(to).toISOString() };
}

const backfillOccurrences = async () =>
  (await h.sdk().describe('minutes')).recent_occurrences.filter((o) => o.trigger === 'BACKFILL');

describe('backfill: calendar work bounded at the API and at the worker', () => {
  it('a backfill whose slots the API cannot count within its budget is VALIDATION naming `to`; nothing is sent', async () => {
    // The API's pool budget, on a clock that moves a second per look: the count stops at its second look.
    const apiBudget: SlotRunner = {
      slots: async (_tenant, requests) =>
        batchesOf(
          runSlotTask(
            { requests, budgetMs: 1000 },
            steppingClock(() => 1000),
          ),
        ),
    };
    // A tenant with the default quotas (max_backfill_slots 1000, max_backfill_slots_per_hour 10000).
    const counted = h.sdk('acme', 'ops', {
      tenantPolicy: () => TenantPolicy.fromTenants({ acme: {} }),
      calendar: apiBudget,
    });
    const refused = await counted.backfill('minutes', await fiftyDays()).catch((err: unknown) => err);
    expect(refused).toMatchObject({ code: 'VALIDATION', field: 'to' });
    expect((refused as Error).message).toMatch(
      /could not be counted, so this tenant's backfill quotas cannot be checked/,
    );
    expect((refused as Error).message).toMatch(/SCHEDULER_CALENDAR_BUDGET_MS/);
    expect(await backfillOccurrences()).toEqual([]);
  });

  it('a backfill whose slots the worker cannot compute within its budget is refused at once; the schedule runs on', async () => {
    // No quota to count for (as the development policy): the update goes to the workflow unchecked.
    const range = await fiftyDays();
    workerStep = 1000;
    let refused: unknown;
    try {
      refused = await h
        .sdk()
        .backfill('minutes', range)
        .catch((err: unknown) => err);
    } finally {
      workerStep = 0;
    }
    expect(refused).toMatchObject({
      code: 'VALIDATION',
      reason: expect.stringMatching(
        /^backfill .*: the calendar search took longer than 1000 ms, the worker's budget for one slot batch/,
      ),
    });
    expect(await backfillOccurrences()).toEqual([]);

    // One attempt: the activity failed for good, not retried four more times on the shared thread.
    const events = (
      await historiesOfEveryRun((runId) =>
        h.env.client.workflow.getHandle(scheduleWorkflowId('acme', 'minutes'), runId),
      )
    ).flat();
    const failed = events.filter(
      (e: HistoryEvent) =>
        e.activityTaskFailedEventAttributes?.failure?.cause?.applicationFailureInfo?.type ===
          SLOT_BUDGET_ERROR ||
        e.activityTaskFailedEventAttributes?.failure?.applicationFailureInfo?.type === SLOT_BUDGET_ERROR,
    );
    expect(failed).toHaveLength(1);
    const started = events.find(
      (e) =>
        e.eventId?.toString() === failed[0]!.activityTaskFailedEventAttributes?.startedEventId?.toString(),
    );
    expect(started?.activityTaskStartedEventAttributes?.attempt).toBe(1);

    // The schedule is as it was, and a backfill within the budget is served.
    expect((await h.sdk().get('minutes')).status).toBe('ACTIVE');
    const oneDay = { from: new Date(Date.parse(range.to) - DAY).toISOString(), to: range.to };
    const served = await h.sdk().backfill('minutes', oneDay);
    expect(served.emitted).toHaveLength(10);
  });
});
