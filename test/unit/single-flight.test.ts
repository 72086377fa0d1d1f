// The one cache of the readiness check and the metrics' visibility refresh (src/api/http/single-flight.ts):
// one run at a time, its answer kept for the interval from when it succeeded, a failure never kept.
import { describe, expect, it } from 'vitest';
import { singleFlight } from '../../src/api/http/single-flight.js';

/** A run that waits until the test settles it, counting how often it started and with what. */
function controlledRun() {
  const started: string[] = [];
  let settle: { resolve: (v: number) => void; reject: (e: unknown) => void } | null = null;
  const run = (arg: string) =>
    new Promise<number>((resolve, reject) => {
      started.push(arg);
      settle = { resolve, reject };
    });
  return { run, started, settle: () => settle! };
}

describe('singleFlight', () => {
  it('shares one run among the callers while it runs, with the first caller’s argument', async () => {
    const { run, started, settle } = controlledRun();
    const cached = singleFlight({ ttlMs: 1_000, now: () => 0 }, run);
    const first = cached('a');
    const second = cached('b');
    settle().resolve(7);
    expect(await Promise.all([first, second])).toEqual([7, 7]);
    expect(started).toEqual(['a']);
  });

  it('keeps the answer for the interval counted from when the run succeeded', async () => {
    let now = 0;
    const { run, started, settle } = controlledRun();
    const cached = singleFlight({ ttlMs: 1_000, now: () => now }, run);
    const first = cached('a');
    now = 500; // the run took 500 ms
    settle().resolve(1);
    await first;
    now = 1_499;
    expect(await cached('b')).toBe(1);
    expect(started).toEqual(['a']);
    now = 1_500;
    const again = cached('c');
    settle().resolve(2);
    expect(await again).toBe(2);
    expect(started).toEqual(['a', 'c']);
  });

  it('rejects the callers that shared a failed run, and keeps nothing of it', async () => {
    const { run, started, settle } = controlledRun();
    const cached = singleFlight({ ttlMs: 1_000, now: () => 0 }, run);
    const failing = [cached('a'), cached('b')];
    const boom = new Error('boom');
    settle().reject(boom);
    for (const result of await Promise.allSettled(failing))
      expect(result).toEqual({ status: 'rejected', reason: boom });
    const next = cached('c');
    settle().resolve(3);
    expect(await next).toBe(3);
    expect(started).toEqual(['a', 'c']);
  });
});
