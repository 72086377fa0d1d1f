import { describe, expect, it } from 'vitest';
import { armAtMs } from '../../src/model/arming.js';
import {
  admit,
  applyMisfirePolicy,
  handoffBound,
  horizonRefresh,
  type InertFacts,
  inertEligible,
  MAX_HANDOFFS_IN_FLIGHT,
  movedSlots,
  type OutcomeFacts,
  runOutcome,
  type StartModeFacts,
  slotsToArm,
  splitDue,
  startMode,
} from '../../src/workflows/policy.js';

const HOUR = 3_600_000;
const t0 = Date.parse('2026-03-01T00:00:00Z');
/** Hourly slots t0+1h … t0+nh. */
const hourly = (n: number) =>
  Array.from({ length: n }, (_, i) => {
    const at = new Date(t0 + (i + 1) * HOUR).toISOString();
    return { scheduledFor: at, fireAt: at };
  });

describe('splitDue', () => {
  it('takes slots whose fire time is at or before now, keeping order', () => {
    const slots = hourly(4);
    const { due, later } = splitDue(slots, t0 + 2 * HOUR);
    expect(due.map((s) => s.fireAt)).toEqual([slots[0]!.fireAt, slots[1]!.fireAt]);
    expect(later).toHaveLength(2);
  });
});

describe('applyMisfirePolicy after 6 hours of downtime', () => {
  // Worker back at t0 + 6h30m: slots at 1h..6h are 5h30m..30m late, max lateness 60 s.
  const due = hourly(6);
  const now = t0 + 6.5 * HOUR;
  const run = (misfire: 'SKIP' | 'FIRE_ONCE' | 'CATCH_UP', catchUpLimit = 100) =>
    applyMisfirePolicy(due, now, { misfire, maxLatenessMs: 60_000, catchUpLimit });

  it('SKIP fires none', () => {
    const decisions = run('SKIP');
    expect(decisions.filter((d) => d.action === 'FIRE')).toHaveLength(0);
    expect(decisions.every((d) => d.action === 'SKIP' && d.counter === 'skipped')).toBe(true);
  });

  it('FIRE_ONCE fires one occurrence, the newest missed slot', () => {
    const fired = run('FIRE_ONCE').filter((d) => d.action === 'FIRE');
    expect(fired).toHaveLength(1);
    expect(fired[0]!.slot).toBe(due[5]);
    expect(fired[0]!.action === 'FIRE' && fired[0]!.late).toBe(true);
  });

  it('CATCH_UP fires every missed slot', () => {
    expect(run('CATCH_UP').filter((d) => d.action === 'FIRE')).toHaveLength(6);
  });

  it('CATCH_UP is bounded: the newest slots fire, older ones expire', () => {
    const decisions = run('CATCH_UP', 2);
    expect(decisions.filter((d) => d.action === 'FIRE').map((d) => d.slot)).toEqual([due[4], due[5]]);
    expect(decisions.filter((d) => d.action === 'SKIP' && d.counter === 'expired')).toHaveLength(4);
  });

  it('a slot within max_lateness_s is on time whatever the policy', () => {
    const onTime = applyMisfirePolicy(hourly(1), t0 + HOUR + 59_000, {
      misfire: 'SKIP',
      maxLatenessMs: 60_000,
      catchUpLimit: 1,
    });
    expect(onTime).toEqual([{ slot: hourly(1)[0], action: 'FIRE', late: false, reason: null }]);
  });

  it('FIRE_ONCE adds nothing for missed slots when an on-time slot fires anyway', () => {
    const decisions = applyMisfirePolicy(hourly(3), t0 + 3 * HOUR + 1000, {
      misfire: 'FIRE_ONCE',
      maxLatenessMs: 60_000,
      catchUpLimit: 10,
    });
    expect(decisions.filter((d) => d.action === 'FIRE').map((d) => d.slot.fireAt)).toEqual([
      hourly(3)[2]!.fireAt,
    ]);
  });
});

describe('admit: a slot is due while earlier occurrences run or wait', () => {
  const START = { occurrence: 'START', skipQueued: false, cancelRunning: false };
  const idle = { running: 0, queued: 0, queueLimit: 2 };
  const running = { running: 1, queued: 0, queueLimit: 2 };
  const queuedOnly = { running: 0, queued: 1, queueLimit: 2 };
  const queueFull = { running: 1, queued: 2, queueLimit: 2 };
  // One row per (policy, situation), as Temporal's buffer_test.go tabulates ProcessBuffer.
  const cases = [
    ['ALLOW', idle, START],
    ['ALLOW', queueFull, START],
    ['SKIP', idle, START],
    [
      'SKIP',
      running,
      { ...START, occurrence: 'SKIP', reason: 'overlap SKIP: the previous occurrence is still running' },
    ],
    [
      'SKIP',
      queuedOnly,
      { ...START, occurrence: 'SKIP', reason: 'overlap SKIP: the previous occurrence is still running' },
    ],
    ['QUEUE', idle, START],
    ['QUEUE', running, { ...START, occurrence: 'ENQUEUE' }],
    [
      'QUEUE',
      queueFull,
      { ...START, occurrence: 'SKIP', reason: 'overlap QUEUE: queue full (queue_limit=2)' },
    ],
    ['COALESCE', idle, START],
    ['COALESCE', running, { ...START, occurrence: 'ENQUEUE', skipQueued: true }],
    ['COALESCE', queueFull, { ...START, occurrence: 'ENQUEUE', skipQueued: true }],
    ['REPLACE', idle, START],
    ['REPLACE', running, { ...START, cancelRunning: true }],
    ['REPLACE', queuedOnly, { ...START, cancelRunning: true }],
  ] as const;
  it.each(cases)('%s with %o', (policy, state, plan) => {
    expect(admit(policy, state)).toEqual(plan);
  });
  it('never both skips the occurrence and touches what runs or waits', () => {
    for (const policy of ['ALLOW', 'SKIP', 'QUEUE', 'COALESCE', 'REPLACE'] as const)
      for (const state of [idle, running, queuedOnly, queueFull]) {
        const plan = admit(policy, state);
        if (plan.occurrence === 'SKIP') expect([plan.skipQueued, plan.cancelRunning]).toEqual([false, false]);
        else expect(plan.reason).toBeUndefined();
      }
  });
});

describe('handoffBound', () => {
  it("is the tenant's quota when it is the smallest", () => {
    expect(handoffBound(3, 0)).toBe(3);
    expect(handoffBound(50, 200)).toBe(50);
  });

  it('without a quota, 100 for a small payload', () => {
    expect(handoffBound(null, 0)).toBe(MAX_HANDOFFS_IN_FLIGHT);
    expect(handoffBound(undefined, 4)).toBe(100);
  });

  it('a large payload lowers it to what fits 1 MiB of commands: 60 KB, 16; 16 KiB, 56', () => {
    expect(handoffBound(null, 60_011)).toBe(16);
    expect(handoffBound(50, 16 * 1024)).toBe(50);
    expect(handoffBound(null, 16 * 1024)).toBe(56);
  });

  it('never below one, however large the payload or small the quota', () => {
    expect(handoffBound(null, 5_000_000)).toBe(1);
    expect(handoffBound(0, 10)).toBe(1);
  });
});

describe('startMode', () => {
  const job = (over: Partial<StartModeFacts> = {}): StartModeFacts => ({
    targetType: 'JOB',
    trigger: 'SCHEDULE',
    watchesCompletion: false,
    jobsFromActivity: true,
    startsMayBeInert: false,
    ...over,
  });

  it('signals and events go through the handOff activity, whatever else holds', () => {
    for (const targetType of ['WORKFLOW_SIGNAL', 'EVENT'] as const) {
      expect(startMode(job({ targetType }))).toBe('HANDOFF_ACTIVITY');
      expect(startMode(job({ targetType, watchesCompletion: true, startsMayBeInert: true }))).toBe(
        'HANDOFF_ACTIVITY',
      );
    }
  });

  it('a JOB whose completion the schedule needs is a child, even in a pass that may start inertly', () => {
    expect(startMode(job({ watchesCompletion: true }))).toBe('CHILD_JOB');
    expect(startMode(job({ watchesCompletion: true, startsMayBeInert: true }))).toBe('CHILD_JOB');
  });

  it('a scheduled JOB fire in an inert pass starts locally; a trigger or backfill in that pass does not', () => {
    expect(startMode(job({ startsMayBeInert: true }))).toBe('INERT_LOCAL_JOB_START');
    expect(startMode(job({ startsMayBeInert: true, trigger: 'MANUAL' }))).toBe('JOB_START_ACTIVITY');
    expect(startMode(job({ startsMayBeInert: true, trigger: 'BACKFILL' }))).toBe('JOB_START_ACTIVITY');
  });

  it('before the per-fire-cost patch every JOB was a child', () => {
    expect(startMode(job({ jobsFromActivity: false }))).toBe('CHILD_JOB');
    expect(startMode(job())).toBe('JOB_START_ACTIVITY');
  });
});

describe('inertEligible', () => {
  const now = t0;
  const facts = (over: Partial<InertFacts> = {}): InertFacts => ({
    enabled: true,
    active: true,
    commandsWaiting: 0,
    pendingFires: 1,
    firesPerPass: 50,
    nextFireAtMs: now + HOUR,
    nowMs: now,
    spacingMs: 30_000,
    historyFull: false,
    bounded: true,
    awaitingHandoff: 0,
    inFlight: 0,
    bound: 100,
    ...over,
  });

  it('a lone fire with the next slot an hour away, nothing waiting: inert', () => {
    expect(inertEligible(facts())).toBe(true);
  });

  it('not when the task would not end asleep on a timer', () => {
    expect(inertEligible(facts({ enabled: false }))).toBe(false);
    expect(inertEligible(facts({ active: false }))).toBe(false);
    expect(inertEligible(facts({ commandsWaiting: 1 }))).toBe(false);
    expect(inertEligible(facts({ pendingFires: 51 }))).toBe(false);
    expect(inertEligible(facts({ nextFireAtMs: null }))).toBe(false);
    expect(inertEligible(facts({ historyFull: true }))).toBe(false);
  });

  it('the next slot must be at least the spacing away', () => {
    expect(inertEligible(facts({ nextFireAtMs: now + 29_999 }))).toBe(false);
    expect(inertEligible(facts({ nextFireAtMs: now + 30_000 }))).toBe(true);
  });

  it('under the bound, only if every fire of the pass starts now', () => {
    expect(inertEligible(facts({ awaitingHandoff: 1 }))).toBe(false);
    expect(inertEligible(facts({ pendingFires: 3, inFlight: 1, bound: 3 }))).toBe(false);
    expect(inertEligible(facts({ pendingFires: 2, inFlight: 1, bound: 3 }))).toBe(true);
    // Runs before the bound ignore it.
    expect(inertEligible(facts({ bounded: false, awaitingHandoff: 1, inFlight: 9, bound: 3 }))).toBe(true);
  });
});

describe('runOutcome', () => {
  const idle: OutcomeFacts = {
    exhausted: true,
    buffered: 0,
    pendingFires: 0,
    queued: 0,
    awaitingHandoff: 0,
    inFlight: 0,
    running: 0,
    endsAfterItsSlots: true,
    failed: 0,
  };

  it('ends COMPLETED once nothing is left, FAILED if a finite schedule had a failure', () => {
    expect(runOutcome(idle)).toBe('COMPLETED');
    expect(runOutcome({ ...idle, failed: 1 })).toBe('FAILED');
    // A recurring schedule that ran out of slots (an UNTIL) completes whatever failed on the way.
    expect(runOutcome({ ...idle, endsAfterItsSlots: false, failed: 3 })).toBe('COMPLETED');
  });

  it('keeps running while anything is left to compute, decide, hand off or wait for', () => {
    const left: Array<Partial<OutcomeFacts>> = [
      { exhausted: false },
      { buffered: 1 },
      { pendingFires: 1 },
      { queued: 1 },
      { awaitingHandoff: 1 },
      { inFlight: 1 },
      { running: 1 },
    ];
    for (const over of left) expect(runOutcome({ ...idle, ...over }), JSON.stringify(over)).toBe('RUNNING');
  });
});

describe('horizonRefresh: no slot fires on instants computed more than the horizon before it', () => {
  const DAY = 24 * HOUR;
  const week = 7 * DAY;
  const facts = (nextInDays: number | null, computedDaysAgo: number | null) => ({
    nextFireAtMs: nextInDays === null ? null : t0 + nextInDays * DAY,
    computedAtMs: computedDaysAgo === null ? null : t0 - computedDaysAgo * DAY,
    nowMs: t0,
    horizonMs: week,
  });

  it('a daily schedule: trusted for a week after its batch, recomputed at the last wake before that', () => {
    expect(horizonRefresh(facts(1, 0))).toEqual({ now: false, wakeAtMs: null });
    expect(horizonRefresh(facts(1, 6))).toEqual({ now: false, wakeAtMs: null }); // day 7 = the horizon itself
    expect(horizonRefresh(facts(1, 6.5))).toEqual({ now: true, wakeAtMs: null });
  });

  it('a slot further than the horizon: wake a horizon before it, then recompute', () => {
    expect(horizonRefresh(facts(20, 0))).toEqual({ now: false, wakeAtMs: t0 + 13 * DAY });
    // At that wake the batch is 13 days old and the slot 7 days ahead: now.
    expect(horizonRefresh({ ...facts(7, 13), nowMs: t0 })).toEqual({ now: true, wakeAtMs: null });
    // Recomputed then, the same slot is within the horizon: no loop.
    expect(horizonRefresh(facts(7, 0))).toEqual({ now: false, wakeAtMs: null });
  });

  it('a buffer from before the horizon existed is recomputed at once; an empty one never', () => {
    expect(horizonRefresh(facts(1, null))).toEqual({ now: true, wakeAtMs: null });
    expect(horizonRefresh(facts(null, 30))).toEqual({ now: false, wakeAtMs: null });
  });
});

describe('movedSlots', () => {
  const slot = (scheduledFor: string) => ({ scheduledFor, fireAt: scheduledFor });
  const dropped = ['2027-02-28T09:00:00+02:00', '2027-03-01T09:00:00+02:00', '2027-03-02T09:00:00+02:00'].map(
    slot,
  );

  it('counts the dropped slots the recomputation did not give back, within what it covers', () => {
    const recomputed = [
      '2027-02-28T09:00:00+02:00',
      '2027-03-01T09:00:00+05:00',
      '2027-03-02T09:00:00+05:00',
      '2027-03-03T09:00:00+05:00',
    ].map(slot);
    expect(movedSlots(dropped, recomputed, false)).toBe(2);
    expect(movedSlots(dropped, dropped, false)).toBe(0);
  });

  it('a dropped slot beyond the last recomputed one is not counted, unless the calendar ended', () => {
    const recomputed = ['2027-02-28T09:00:00+02:00'].map(slot);
    expect(movedSlots(dropped, recomputed, false)).toBe(0);
    expect(movedSlots(dropped, recomputed, true)).toBe(2);
  });
});

describe('armAtMs and slotsToArm: a job started between the lead and half of it before its slot', () => {
  const LEAD = 120_000;
  const slot = (ms: number) => ({
    scheduledFor: new Date(ms).toISOString(),
    fireAt: new Date(ms).toISOString(),
  });

  it('arms each schedule at a point of its own within [slot − lead, slot − lead/2), the same every time', () => {
    const points = Array.from({ length: 500 }, (_, i) => armAtMs(t0, LEAD, `schedule-${i}`));
    for (const p of points) {
      expect(t0 - p).toBeGreaterThan(LEAD / 2);
      expect(t0 - p).toBeLessThanOrEqual(LEAD);
    }
    expect(armAtMs(t0, LEAD, 'schedule-7')).toBe(points[7]);
    // Spread over the half lead: 500 schedules due at one instant arm in every second of its 60, none in
    // more than three times its share.
    const perSecond = new Map<number, number>();
    for (const p of points)
      perSecond.set(Math.floor(p / 1000), (perSecond.get(Math.floor(p / 1000)) ?? 0) + 1);
    expect(perSecond.size).toBe(60);
    expect(Math.max(...perSecond.values())).toBeLessThanOrEqual((3 * 500) / 60);
  });

  it('nothing before the first slot’s arming point; then every slot within the lead, up to the limit', () => {
    const buffer = [t0, t0 + 30_000, t0 + 60_000, t0 + 130_000].map(slot);
    const at = armAtMs(t0, LEAD, 'k');
    expect(slotsToArm({ buffer, nowMs: at - 1, leadMs: LEAD, spreadKey: 'k', limit: 10 })).toEqual([]);
    const armed = slotsToArm({ buffer, nowMs: at, leadMs: LEAD, spreadKey: 'k', limit: 10 });
    expect(armed.map((s) => Date.parse(s.fireAt))).toEqual(
      [t0, t0 + 30_000, t0 + 60_000].filter((f) => f - at <= LEAD),
    );
    for (const s of armed) expect(Date.parse(s.fireAt) - at).toBeLessThanOrEqual(LEAD);
    expect(slotsToArm({ buffer, nowMs: at, leadMs: LEAD, spreadKey: 'k', limit: 1 })).toHaveLength(1);
    expect(slotsToArm({ buffer, nowMs: at, leadMs: 0, spreadKey: 'k', limit: 10 })).toEqual([]);
    expect(slotsToArm({ buffer: [], nowMs: at, leadMs: LEAD, spreadKey: 'k', limit: 10 })).toEqual([]);
  });
});
