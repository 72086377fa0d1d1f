// The audit reads why a slot did not run from the reasons the schedule wrote: each reason here is made by
// the function that writes it (the misfire and overlap policies, the lifecycle's revocation, the hand-off's
// policy refusal), so a reworded reason fails this test instead of turning MISSED into SKIPPED silently.
import { describe, expect, it } from 'vitest';
import { outcomeOfRecord } from '../../src/api/sdk/audit.js';
import type { Occurrence } from '../../src/model/contracts.js';
import { REFUSED_BY_POLICY } from '../../src/model/handoff-failures.js';
import { admit, applyMisfirePolicy } from '../../src/workflows/policy.js';
import { Lifecycle } from '../../src/workflows/schedule/lifecycle.js';
import type { ScheduleState } from '../../src/workflows/schedule/state.js';

const DUE = '2026-12-07T10:00:00.000Z';
const occurrence = (over: Partial<Occurrence>): Occurrence => ({
  occurrence_id: `occurrence/acme/x/${DUE}`,
  schedule_id: 'x',
  schedule_version: 1,
  scheduled_for: DUE,
  fire_at: DUE,
  emitted_at: null,
  idempotency_key: `schedule:x:${DUE}`,
  target_ref: '',
  payload_ref: null,
  status: 'SKIPPED',
  attempt: 0,
  reason: null,
  trigger: 'SCHEDULE',
  duplicate_prevented: false,
  finished_at: null,
  ...over,
});
const outcome = (over: Partial<Occurrence>, nowMs = Date.parse(DUE) + 3_600_000) =>
  outcomeOfRecord(occurrence(over), 60, nowMs);

describe('audit: an occurrence record as an outcome', () => {
  it('every misfire the policy skips is MISSED', () => {
    const slots = [0, 1, 2].map((h) => {
      const at = new Date(Date.parse(DUE) + h * 3_600_000).toISOString();
      return { scheduledFor: at, fireAt: at };
    });
    const now = Date.parse(DUE) + 5 * 3_600_000;
    for (const misfire of ['SKIP', 'FIRE_ONCE', 'CATCH_UP'] as const) {
      const skipped = applyMisfirePolicy(slots, now, {
        misfire,
        maxLatenessMs: 60_000,
        catchUpLimit: 1,
      }).filter((d) => d.action === 'SKIP');
      expect(skipped.length).toBeGreaterThan(0);
      for (const d of skipped) expect(outcome({ reason: d.reason }).outcome).toBe('MISSED');
    }
  });

  it("the overlap policy's skips are SKIPPED; a revoked owner's and the tenant policy's refusals are REFUSED", () => {
    expect(
      outcome({ reason: admit('SKIP', { running: 1, queued: 0, queueLimit: 10 }).reason! }).outcome,
    ).toBe('SKIPPED');
    expect(
      outcome({ reason: admit('QUEUE', { running: 1, queued: 10, queueLimit: 10 }).reason! }).outcome,
    ).toBe('SKIPPED');
    const state = {
      ownerRevoked: { at: DUE, reason: 'owner acme/ops has no API key any more' },
    } as ScheduleState;
    expect(outcome({ reason: new Lifecycle(state).revocation()! }).outcome).toBe('REFUSED');
    expect(
      outcome({ status: 'FAILED', reason: `${REFUSED_BY_POLICY}: target.sink_url: not allowed` }).outcome,
    ).toBe('REFUSED');
    expect(outcome({ status: 'FAILED', reason: 'handoff failed: POST … answered 410' }).outcome).toBe(
      'FAILED',
    );
  });

  it('handed off: ON_TIME within late_after_s of fire_at, else LATE with the lateness; armed ones began at their instant', () => {
    const at = (s: number) => new Date(Date.parse(DUE) + s * 1000).toISOString();
    expect(outcome({ status: 'HANDED_OFF', emitted_at: at(0.4) })).toMatchObject({
      outcome: 'ON_TIME',
      lateness_s: 0.4,
    });
    expect(outcome({ status: 'COMPLETED', emitted_at: at(95) })).toMatchObject({
      outcome: 'LATE',
      lateness_s: 95,
    });
    // Armed ten minutes ahead: the server began it at its instant.
    expect(outcome({ status: 'HANDED_OFF', emitted_at: at(-600) })).toMatchObject({
      outcome: 'ON_TIME',
      lateness_s: 0,
    });
    expect(outcome({ status: 'ARMED', emitted_at: at(-600) }, Date.parse(DUE) - 1000).outcome).toBe(
      'PENDING',
    );
    expect(outcome({ status: 'CANCELLED' }).outcome).toBe('CANCELLED');
    expect(outcome({ status: 'RUNNING', emitted_at: at(1) }).outcome).toBe('RUNNING');
  });
});
