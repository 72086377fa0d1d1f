// One run of an expensive read at a time, its answer reused for a short while: what lets public probes and
// scrapes arrive in floods without each costing Temporal a call (readiness.ts, metrics.ts). Ours, not
// p-memoize with expiry-map: those key the cache by the first argument (here a request's logger, different
// every time), read Date.now with a timer per entry, and take no clock a test can hold.

/**
 * `run` at most once per `ttlMs` on the clock `now`, counted from when a run succeeded: callers within that
 * interval get its answer, callers while it runs share it (run with the first one's argument). A run that
 * rejects rejects the callers that shared it and is not kept: the next caller runs again.
 */
export function singleFlight<A, T>(
  options: { ttlMs: number; now?: () => number },
  run: (arg: A) => Promise<T>,
): (arg: A) => Promise<T> {
  const { ttlMs, now = Date.now } = options;
  let last: { at: number; value: T } | null = null;
  let running: Promise<T> | null = null;
  return (arg) => {
    if (last && now() - last.at < ttlMs) return Promise.resolve(last.value);
    running ??= run(arg)
      .then((value) => {
        last = { at: now(), value };
        return value;
      })
      .finally(() => {
        running = null;
      });
    return running;
  };
}
