// When a slot is armed and when a schedule created asleep wakes (src/model/arming.ts, startDelayMs): the
// lead, or how far the schedule arms ahead when that is longer; no lead, never armed.
import { describe, expect, it } from 'vitest';
import { startDelayMs, WAKE_MARGIN_MS } from '../../src/api/sdk/create.js';
import { armAtMs, armWithinMs, wakeBetweenMs } from '../../src/model/arming.js';

const MINUTE = 60_000;

describe('armWithinMs', () => {
  it('is the lead, or the ahead when longer', () => {
    expect(armWithinMs(2 * MINUTE, 10 * MINUTE)).toBe(10 * MINUTE);
    expect(armWithinMs(15 * MINUTE, 10 * MINUTE)).toBe(15 * MINUTE);
    expect(armWithinMs(2 * MINUTE, 0)).toBe(2 * MINUTE);
  });
  it('is 0 with no lead: a deployment that starts every job at its instant never arms ahead', () => {
    expect(armWithinMs(0, 10 * MINUTE)).toBe(0);
  });
});

describe('armAtMs', () => {
  it('arms within the second half of the window before the instant, the same point for one schedule', () => {
    const fireAt = Date.parse('2027-03-01T09:00:00Z');
    for (const id of ['a', 'b', 'vs-000017', 'vs-000018']) {
      const at = armAtMs(fireAt, 10 * MINUTE, id);
      expect(at).toBeGreaterThanOrEqual(fireAt - 10 * MINUTE);
      expect(at).toBeLessThan(fireAt - 5 * MINUTE);
      expect(armAtMs(fireAt, 10 * MINUTE, id)).toBe(at);
    }
  });
});

describe('wakeBetweenMs: a schedule armed ahead wakes between two slots, never on one', () => {
  it('inside the middle 80 % of the spacing, at a point fixed per schedule', () => {
    const from = Date.parse('2027-03-01T09:05:00Z');
    const to = from + MINUTE;
    const points = Array.from({ length: 200 }, (_, i) => wakeBetweenMs(from, to, `s-${i}`));
    for (const at of points) {
      expect(at).toBeGreaterThanOrEqual(from + 0.1 * MINUTE);
      expect(at).toBeLessThan(from + 0.9 * MINUTE);
    }
    expect(wakeBetweenMs(from, to, 's-7')).toBe(points[7]);
    // Spread over the minute, not bunched: 200 schedules of one cadence fill every 6-second tenth of it.
    const tenths = new Set(points.map((at) => Math.floor((at - from) / (MINUTE / 10))));
    expect(tenths.size).toBe(8);
  });
});

describe('startDelayMs: a schedule created asleep wakes where it arms its first run', () => {
  const createdAt = '2027-03-01T08:00:00.000Z';
  const firstRunAt = '2027-03-01T09:00:00.000Z';
  const firstRun = Date.parse(firstRunAt);
  it('at its arming point within how far it arms ahead', () => {
    const within = armWithinMs(2 * MINUTE, 10 * MINUTE);
    const delay = startDelayMs('daily', firstRunAt, createdAt, within);
    expect(Date.parse(createdAt) + delay).toBe(armAtMs(firstRun, 10 * MINUTE, 'daily'));
    expect(firstRun - (Date.parse(createdAt) + delay)).toBeGreaterThan(5 * MINUTE);
  });
  it('with the lead alone, a margin before the run at the latest', () => {
    const delay = startDelayMs('daily', firstRunAt, createdAt, 2 * MINUTE);
    expect(Date.parse(createdAt) + delay).toBe(
      Math.min(armAtMs(firstRun, 2 * MINUTE, 'daily'), firstRun - WAKE_MARGIN_MS),
    );
  });
  it('awake when its arming point is less than a margin away', () => {
    // Five minutes away: its arming point (5–10 minutes before) is now or past.
    expect(startDelayMs('soon', '2027-03-01T08:05:00.000Z', createdAt, 10 * MINUTE)).toBe(0);
  });
});
