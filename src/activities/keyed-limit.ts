/**
 * At most `limit` holders per key; the others wait in order, each until its signal aborts (then it leaves
 * the line, rejected with the signal's reason).
 */
export class KeyedLimit {
  private readonly lanes = new Map<string, { held: number; waiting: Array<() => void> }>();

  constructor(readonly limit: number) {}

  /** How many wait for `key`. */
  waiting(key: string): number {
    return this.lanes.get(key)?.waiting.length ?? 0;
  }

  /** Resolves with the release (call it once done) when `key` has room; rejects if `signal` aborts first. */
  acquire(key: string, signal: AbortSignal): Promise<() => void> {
    if (signal.aborted) return Promise.reject(signal.reason);
    let lane = this.lanes.get(key);
    if (!lane) {
      lane = { held: 0, waiting: [] };
      this.lanes.set(key, lane);
    }
    const held = lane;
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      const next = held.waiting.shift();
      if (next)
        next(); // the place passes on: `held` stays
      else if (--held.held === 0) this.lanes.delete(key);
    };
    if (held.held < this.limit) {
      held.held++;
      return Promise.resolve(release);
    }
    return new Promise((resolve, reject) => {
      const granted = () => {
        signal.removeEventListener('abort', aborted);
        resolve(release);
      };
      const aborted = () => {
        held.waiting.splice(held.waiting.indexOf(granted), 1);
        reject(signal.reason);
      };
      held.waiting.push(granted);
      signal.addEventListener('abort', aborted, { once: true });
    });
  }
}
