import { describe, expect, it } from 'vitest';
import { applyMisfirePolicy, applyOverlapPolicy, splitDue } from '../../src/workflows/policy.js';

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

describe('applyOverlapPolicy', () => {
  const busy = { running: 1, queued: 0, queueLimit: 2 };
  it('starts when nothing runs, whatever the policy', () => {
    for (const policy of ['ALLOW', 'SKIP', 'QUEUE', 'COALESCE', 'REPLACE'] as const) {
      expect(applyOverlapPolicy(policy, { running: 0, queued: 0, queueLimit: 1 })).toEqual({
        action: 'START',
      });
    }
  });
  it('decides per policy while the previous one runs', () => {
    expect(applyOverlapPolicy('ALLOW', busy).action).toBe('START');
    expect(applyOverlapPolicy('SKIP', busy).action).toBe('SKIP');
    expect(applyOverlapPolicy('QUEUE', busy).action).toBe('ENQUEUE');
    expect(applyOverlapPolicy('COALESCE', busy).action).toBe('COALESCE');
    expect(applyOverlapPolicy('REPLACE', busy).action).toBe('REPLACE');
  });
  it('QUEUE is bounded', () => {
    const full = applyOverlapPolicy('QUEUE', { running: 1, queued: 2, queueLimit: 2 });
    expect(full).toEqual({ action: 'SKIP', reason: 'overlap QUEUE: queue full (queue_limit=2)' });
  });
});
