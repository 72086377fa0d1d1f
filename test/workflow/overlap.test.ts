import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { OverlapPolicy } from '../../src/model/contracts.js';
import { type JobRun, SchedulerHarness } from '../helpers/scheduler-harness.js';

const MINUTE = 60_000;

/** Pairs of runs whose [start, finish) intervals intersect. */
function overlapping(runs: JobRun[]): number {
  let pairs = 0;
  for (let i = 0; i < runs.length; i++) {
    for (let j = i + 1; j < runs.length; j++) {
      const a = runs[i]!;
      const b = runs[j]!;
      const aEnd = a.finishedAt ?? Number.POSITIVE_INFINITY;
      const bEnd = b.finishedAt ?? Number.POSITIVE_INFINITY;
      if (a.startedAt < bEnd && b.startedAt < aEnd) pairs++;
    }
  }
  return pairs;
}

// Every minute, a job that takes 2.5 minutes: each slot finds the previous one still running.
describe('overlap policies with a slow target (time-skipping server)', () => {
  // A fresh server per policy: the Java test server stops skipping time once a workflow closed while
  // children it abandoned still run, which is exactly how these tests leave the last job.
  let h: SchedulerHarness;
  beforeEach(async () => {
    h = await SchedulerHarness.start();
  });
  afterEach(async () => {
    await h?.teardown();
  });

  async function runFor(policy: OverlapPolicy, minutes: number) {
    const sdk = h.sdk(`t-${policy.toLowerCase()}`);
    const id = `overlap-${policy.toLowerCase()}`;
    await sdk.create({
      schedule_id: id,
      target: { type: 'JOB', job_type: 'recordedJob', payload: { sleep_ms: 150_000 } },
      timing: { kind: 'INTERVAL', every: 'PT1M' },
      overlap: policy,
      queue_limit: 2,
    });
    await h.env.sleep(minutes * MINUTE + 10_000);
    const description = await sdk.cancel(id, { running: 'KEEP' });
    const ids = new Set(description.recent_occurrences.map((o) => o.occurrence_id));
    const runs = h.runs.filter((r) => ids.has(r.occurrenceId));
    return { description, runs };
  }

  it('ALLOW starts every slot while earlier ones still run', async () => {
    const { description, runs } = await runFor('ALLOW', 5);
    expect(runs).toHaveLength(5);
    expect(overlapping(runs)).toBeGreaterThan(0);
    expect(description.counters.skipped).toBe(0);
  });

  it('SKIP drops a slot while the previous occurrence runs', async () => {
    const { description, runs } = await runFor('SKIP', 6);
    expect(overlapping(runs)).toBe(0);
    const skipped = description.recent_occurrences.filter((o) => o.status === 'SKIPPED');
    expect(skipped.length).toBeGreaterThan(0);
    expect(skipped[0]!.reason).toMatch(/overlap SKIP/);
    expect(runs.length + skipped.length).toBe(6);
  });

  it('QUEUE runs queued slots one after another, bounded by queue_limit', async () => {
    const { description, runs } = await runFor('QUEUE', 6);
    expect(overlapping(runs)).toBe(0);
    // Each queued run starts after the previous one finished.
    for (let i = 1; i < runs.length; i++)
      expect(runs[i]!.startedAt).toBeGreaterThanOrEqual(runs[i - 1]!.finishedAt!);
    const full = description.recent_occurrences.filter((o) => o.reason?.includes('queue full'));
    expect(full.length).toBeGreaterThan(0);
    expect(description.queued.length).toBeLessThanOrEqual(2);
  });

  it('COALESCE keeps one pending refresh: older waiting slots merge into the newest', async () => {
    const { description, runs } = await runFor('COALESCE', 6);
    expect(overlapping(runs)).toBe(0);
    const merged = description.recent_occurrences.filter((o) => o.reason?.includes('COALESCE: merged into'));
    expect(merged.length).toBeGreaterThan(0);
    expect(description.queued.length).toBeLessThanOrEqual(1);
  });

  it('REPLACE cancels the running occurrence and starts the new one', async () => {
    const { runs } = await runFor('REPLACE', 4);
    expect(runs.length).toBe(4);
    expect(runs.slice(0, -1).every((r) => r.outcome === 'CANCELLED')).toBe(true);
    expect(runs.at(-1)!.outcome).toBeUndefined(); // still running when the schedule was cancelled (KEEP)
  });

  it('FIXED_DELAY: the next slot counts from the completion of the previous job', async () => {
    const sdk = h.sdk('t-fixed-delay');
    await sdk.create({
      schedule_id: 'fixed-delay',
      target: { type: 'JOB', job_type: 'recordedJob', payload: { sleep_ms: 150_000 } },
      timing: { kind: 'INTERVAL', every: 'PT1M', mode: 'FIXED_DELAY' },
    });
    await h.env.sleep(12 * MINUTE);
    await sdk.pause('fixed-delay');
    await h.env.sleep(5 * MINUTE); // let the last job finish before the schedule closes
    await sdk.cancel('fixed-delay');
    const runs = h.runs;
    expect(runs.length).toBeGreaterThanOrEqual(3);
    expect(overlapping(runs)).toBe(0);
    // Each run starts one interval after the previous one finished (not on a fixed grid).
    for (let i = 1; i < runs.length; i++) {
      expect(runs[i]!.startedAt - runs[i - 1]!.finishedAt!).toBeGreaterThanOrEqual(MINUTE);
      expect(runs[i]!.startedAt - runs[i - 1]!.finishedAt!).toBeLessThan(MINUTE + 5_000);
    }
  });
});
