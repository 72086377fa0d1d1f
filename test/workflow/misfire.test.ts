import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { MisfirePolicy } from '../../src/model/contracts.js';
import { SchedulerHarness } from '../helpers/scheduler-harness.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

// The schedule is paused for six hours, then resumed: resume judges what was missed by the misfire
// policy. (A real worker outage is tested on the dev server, test/integration/worker-outage.test.ts: the
// time-skipping server does not skip time past a workflow task that no worker picks up.)
describe('misfire policy for slots missed while paused (time-skipping server)', () => {
  let h: SchedulerHarness;
  beforeEach(async () => {
    h = await SchedulerHarness.start();
  });
  afterEach(async () => {
    await h?.teardown();
  });

  async function hourlyPausedForSixHours(misfire: MisfirePolicy) {
    const sdk = h.sdk();
    await sdk.create({
      schedule_id: 'hourly',
      target: { type: 'JOB', job_type: 'recordedJob' },
      timing: { kind: 'INTERVAL', every: 'PT1H' },
      misfire,
      max_lateness_s: 300,
    });
    await h.env.sleep(HOUR + MINUTE);
    expect(h.runs).toHaveLength(1); // the first slot fired on time

    await sdk.pause('hourly', 'maintenance');
    await h.env.sleep(6.5 * HOUR); // slots at +2h … +7h pass while paused, the last 30 min ago
    expect(h.runs).toHaveLength(1);
    expect((await sdk.get('hourly')).pause_note).toBe('maintenance');
    await sdk.resume('hourly');
    await h.env.sleep(MINUTE);

    const description = await sdk.describe('hourly');
    return { description, afterOutage: h.runs.slice(1) };
  }

  it('SKIP: no occurrence for the six missed slots', async () => {
    const { description, afterOutage } = await hourlyPausedForSixHours('SKIP');
    expect(afterOutage).toHaveLength(0);
    expect(description.counters.skipped).toBe(6);
    expect(description.recent_occurrences.filter((o) => o.status === 'SKIPPED')).toHaveLength(6);
  });

  it('FIRE_ONCE: one occurrence for all six, for the newest missed slot', async () => {
    const { description, afterOutage } = await hourlyPausedForSixHours('FIRE_ONCE');
    expect(afterOutage).toHaveLength(1);
    const fired = description.recent_occurrences.filter((o) => o.status !== 'SKIPPED');
    const newest = fired.at(-1)!;
    expect(afterOutage[0]!.occurrenceId).toBe(newest.occurrence_id);
    expect(newest.reason).toMatch(/FIRE_ONCE: one occurrence for 6 missed slot/);
    expect(description.counters.caught_up).toBe(1);
    expect(description.counters.skipped).toBe(5);
  });

  it('CATCH_UP: one occurrence per missed slot, each its own ID', async () => {
    const { description, afterOutage } = await hourlyPausedForSixHours('CATCH_UP');
    expect(afterOutage).toHaveLength(6);
    expect(new Set(afterOutage.map((r) => r.occurrenceId)).size).toBe(6);
    expect(description.counters.caught_up).toBe(6);
    // The slots are the hourly grid, not the time they were caught up at.
    const slots = description.recent_occurrences.map((o) => Date.parse(o.scheduled_for));
    for (let i = 1; i < slots.length; i++) expect(slots[i]! - slots[i - 1]!).toBe(HOUR);
  });
});
