// A JOB target's `retry` (issue 42): what the API accepts, and the retry policy the server is given.
import { describe, expect, it } from 'vitest';
import { ScheduleSpec } from '../../src/model/contracts.js';
import { jobRetryPolicy } from '../../src/workflows/schedule/job-start.js';

const specWith = (retry: unknown) => ({
  target: { type: 'JOB', job_type: 'settle', retry },
  timing: { kind: 'INTERVAL', every: 'PT1H' },
});

describe('JOB retry', () => {
  it("RadixDB Jobs' policy (100 ms to 10 s, five attempts) as the server takes it", () => {
    const spec = ScheduleSpec.parse(specWith({ attempts: 5, initial_interval_s: 0.1, max_interval_s: 10 }));
    const target = spec.target as Extract<ScheduleSpec['target'], { type: 'JOB' }>;
    expect(jobRetryPolicy(target.retry!)).toEqual({
      maximumAttempts: 5,
      initialInterval: 100,
      backoffCoefficient: 2,
      maximumInterval: 10_000,
    });
  });

  it('defaults: a second after the first failure, doubling, at most 100 times the first wait', () => {
    const spec = ScheduleSpec.parse(specWith({ attempts: 3 }));
    const target = spec.target as Extract<ScheduleSpec['target'], { type: 'JOB' }>;
    expect(jobRetryPolicy(target.retry!)).toEqual({
      maximumAttempts: 3,
      initialInterval: 1000,
      backoffCoefficient: 2,
      maximumInterval: 100_000,
    });
  });

  it.each([
    [{ attempts: 0 }, 'target.retry.attempts'],
    [{ attempts: 3, initial_interval_s: 0.01 }, 'target.retry.initial_interval_s'],
    [{ attempts: 3, initial_interval_s: 60, max_interval_s: 10 }, 'target.retry.max_interval_s'],
    [{ attempts: 3, backoff: 0.5 }, 'target.retry.backoff'],
    [{ attempts: 3, jitter: true }, 'target.retry'],
    [{}, 'target.retry.attempts'],
  ])('refuses %o, naming %s', (retry, field) => {
    const parsed = ScheduleSpec.safeParse(specWith(retry));
    expect(parsed.success).toBe(false);
    expect(parsed.error!.issues[0]!.path.join('.')).toBe(field);
  });
});
