// The one way the boundary tries something again: a bounded number of attempts with a wait between them
// from one backoff definition. `retry` repeats a call that failed transiently; `poll` repeats a read until
// it shows what the caller waits for (and answers the last reading when it never does). Not p-retry: it
// throws a TypeError for a thrown non-Error, never retries a TypeError, and has no `poll`
// (docs/architecture.md, "Libraries, and where we kept our own").

/** The wait after the `attempt`-th try (1-based), in ms. */
export type Backoff = (attempt: number) => number;

/** `firstMs`, multiplied by `factor` after every further try, at most `maxMs`; factor 1 is a fixed wait. */
export function backoff(options: { firstMs: number; factor?: number; maxMs?: number }): Backoff {
  const { firstMs, factor = 2, maxMs = Number.POSITIVE_INFINITY } = options;
  return (attempt) => Math.min(firstMs * factor ** (attempt - 1), maxMs);
}

export interface RepeatPolicy {
  /** Tries in all, the first included. */
  attempts: number;
  delay: Backoff;
}

type Outcome<T> = { ok: true; value: T } | { ok: false; error: unknown };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Tries `body` while `again` says its outcome is worth another try and attempts are left; the last outcome. */
async function repeat<T>(
  body: () => Promise<T>,
  policy: RepeatPolicy,
  again: (outcome: Outcome<T>) => boolean,
): Promise<Outcome<T>> {
  for (let attempt = 1; ; attempt++) {
    let outcome: Outcome<T>;
    try {
      outcome = { ok: true, value: await body() };
    } catch (error) {
      outcome = { ok: false, error };
    }
    if (attempt >= policy.attempts || !again(outcome)) return outcome;
    await sleep(policy.delay(attempt));
  }
}

export interface RetryPolicy extends RepeatPolicy {
  /** A failure worth another try; any other is thrown at once. */
  transient: (err: unknown) => boolean;
  /** What to throw when the last attempt failed transiently too (default: that failure). */
  exhausted?: (err: unknown) => unknown;
}

/** `body`'s answer, tried again after a transient failure. */
export async function retry<T>(body: () => Promise<T>, policy: RetryPolicy): Promise<T> {
  const outcome = await repeat(body, policy, (o) => !o.ok && policy.transient(o.error));
  if (outcome.ok) return outcome.value;
  const exhausted = policy.exhausted && policy.transient(outcome.error);
  throw exhausted ? policy.exhausted!(outcome.error) : outcome.error;
}

/** `read`'s answer once `done` holds for it, or its last answer when attempts ran out; a failed read throws. */
export async function poll<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  policy: RepeatPolicy,
): Promise<T> {
  const outcome = await repeat(read, policy, (o) => o.ok && !done(o.value));
  if (!outcome.ok) throw outcome.error;
  return outcome.value;
}
