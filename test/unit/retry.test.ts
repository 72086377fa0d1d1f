// The boundary's one retry/poll helper (src/api/retry.ts): how many tries, which waits between them, what a
// transient failure, an exhausted retry and a poll that never sees its condition answer. setTimeout is
// intercepted: the waits are recorded, not slept.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { backoff, poll, retry } from '../../src/api/retry.js';

/** Runs `run` to completion under fake timers, recording every wait it schedules. */
async function withWaits<T>(
  run: () => Promise<T>,
): Promise<{ result: PromiseSettledResult<T>; waits: number[] }> {
  const waits: number[] = [];
  const real = globalThis.setTimeout;
  const spy = vi.spyOn(globalThis, 'setTimeout').mockImplementation(((fn: () => void, ms: number) => {
    waits.push(ms);
    return real(fn, 0);
  }) as typeof setTimeout);
  try {
    const [result] = await Promise.allSettled([run()]);
    return { result: result!, waits };
  } finally {
    spy.mockRestore();
  }
}

describe('backoff', () => {
  it('doubles from the first wait up to its cap', () => {
    const delay = backoff({ firstMs: 250, maxMs: 4000 });
    expect([1, 2, 3, 4, 5, 6, 7].map(delay)).toEqual([250, 500, 1000, 2000, 4000, 4000, 4000]);
  });

  it('with factor 1 is a fixed wait', () => {
    expect([1, 2, 20].map(backoff({ firstMs: 100, factor: 1 }))).toEqual([100, 100, 100]);
  });
});

describe('retry', () => {
  afterEach(() => vi.restoreAllMocks());

  const transientError = new Error('transient');
  const policy = {
    attempts: 4,
    delay: backoff({ firstMs: 10 }),
    transient: (e: unknown) => e === transientError,
  };

  it('answers the first success, waiting the backoff after each transient failure', async () => {
    let calls = 0;
    const { result, waits } = await withWaits(() =>
      retry(async () => {
        calls += 1;
        if (calls < 3) throw transientError;
        return 'done';
      }, policy),
    );
    expect(result).toEqual({ status: 'fulfilled', value: 'done' });
    expect(calls).toBe(3);
    expect(waits).toEqual([10, 20]);
  });

  it('throws a failure that is not transient at once', async () => {
    let calls = 0;
    const fatal = new Error('fatal');
    const { result, waits } = await withWaits(() =>
      retry(async () => {
        calls += 1;
        throw fatal;
      }, policy),
    );
    expect(result).toEqual({ status: 'rejected', reason: fatal });
    expect(calls).toBe(1);
    expect(waits).toEqual([]);
  });

  it('after the last attempt throws the last failure, or what `exhausted` makes of it', async () => {
    let calls = 0;
    const failing = async () => {
      calls += 1;
      throw transientError;
    };
    const plain = await withWaits(() => retry(failing, policy));
    expect(plain.result).toEqual({ status: 'rejected', reason: transientError });
    expect(calls).toBe(4);
    expect(plain.waits).toEqual([10, 20, 40]);

    const replaced = new Error('gave up');
    const mapped = await withWaits(() => retry(failing, { ...policy, exhausted: () => replaced }));
    expect(mapped.result).toEqual({ status: 'rejected', reason: replaced });
  });

  it('`exhausted` never replaces a failure that is not transient', async () => {
    const fatal = new Error('fatal');
    const { result } = await withWaits(() =>
      retry(
        async () => {
          throw fatal;
        },
        { ...policy, exhausted: () => new Error('gave up') },
      ),
    );
    expect(result).toEqual({ status: 'rejected', reason: fatal });
  });
});

describe('poll', () => {
  afterEach(() => vi.restoreAllMocks());
  const policy = { attempts: 5, delay: backoff({ firstMs: 100, factor: 1 }) };

  it('reads until the condition holds', async () => {
    let reads = 0;
    const { result, waits } = await withWaits(() =>
      poll(
        async () => ++reads,
        (n) => n === 3,
        policy,
      ),
    );
    expect(result).toEqual({ status: 'fulfilled', value: 3 });
    expect(waits).toEqual([100, 100]);
  });

  it('answers the last reading when the condition never holds', async () => {
    let reads = 0;
    const { result, waits } = await withWaits(() =>
      poll(
        async () => ++reads,
        () => false,
        policy,
      ),
    );
    expect(result).toEqual({ status: 'fulfilled', value: 5 });
    expect(waits).toEqual([100, 100, 100, 100]);
  });

  it('throws a failed read at once', async () => {
    const failed = new Error('read failed');
    let reads = 0;
    const { result } = await withWaits(() =>
      poll(
        async () => {
          reads += 1;
          throw failed;
        },
        () => true,
        policy,
      ),
    );
    expect(result).toEqual({ status: 'rejected', reason: failed });
    expect(reads).toBe(1);
  });
});
