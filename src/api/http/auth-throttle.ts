// Failed authentications counted per client address: past the limit, the address is answered 429 for the
// rest of its minute, without its key being looked at — a guess that happens to be right is refused too,
// or the throttle would only slow the misses. A request without an Authorization header is no guess and
// is not counted (a browser or a probe without a key keeps getting its 401).
//
// The address is `request.ip`: the TCP peer, or behind the reverse proxies SCHEDULER_TRUST_PROXY names, the
// client they forwarded for (src/model/trust-proxy.ts). Behind a proxy that is not named there every caller
// has the proxy's address, so one caller sending bad keys would shut all of them out. The map is bounded:
// when it is full, expired entries go first, then the oldest ones (an attacker with very many addresses can
// make room, which only lets its own addresses start over). Not toad-cache's LRU: a read would keep a
// refused address in the map ahead of newer ones.
import { normalizeIP } from '@fastify/rate-limit';

export { DEFAULT_AUTH_FAILURES_PER_MINUTE } from '../../model/defaults.js';

const WINDOW_MS = 60_000;
const MAX_TRACKED_ADDRESSES = 10_000;

interface Window {
  failures: number;
  endsAt: number;
}

/** One host usually has a whole IPv6 /64 to pick addresses from: it is one caller. */
export const CLIENT_IPV6_PREFIX_LENGTH = 64;

/**
 * Who one caller is, by address: an IPv4 address (also when written IPv4-mapped, `::ffff:a.b.c.d`), or the
 * /64 of an IPv6 address. @fastify/rate-limit's own normalisation, so the public routes' limit (access.ts)
 * and this throttle count the same callers.
 */
export const clientOf = (address: string): string => normalizeIP(address, CLIENT_IPV6_PREFIX_LENGTH);

export class FailedAuthThrottle {
  readonly #windows = new Map<string, Window>();

  constructor(
    /** Failed authentications a minute from one client before it is refused; 0: never. */
    readonly perMinute: number,
    private readonly now: () => number = Date.now,
    private readonly capacity = MAX_TRACKED_ADDRESSES,
  ) {}

  /** Seconds until the client may try again, or null when it may now. */
  retryAfterSeconds(address: string): number | null {
    if (this.perMinute <= 0) return null;
    const window = this.#windows.get(clientOf(address));
    const now = this.now();
    if (!window || window.endsAt <= now || window.failures < this.perMinute) return null;
    return Math.max(1, Math.ceil((window.endsAt - now) / 1000));
  }

  /** One failed authentication from the client. */
  recordFailure(address: string): void {
    if (this.perMinute <= 0) return;
    const client = clientOf(address);
    const now = this.now();
    const window = this.#windows.get(client);
    if (window && window.endsAt > now) {
      window.failures++;
      return;
    }
    this.#windows.delete(client);
    if (this.#windows.size >= this.capacity) this.#makeRoom(now);
    this.#windows.set(client, { failures: 1, endsAt: now + WINDOW_MS });
  }

  /** How many clients are tracked (bounded by the capacity). */
  get size(): number {
    return this.#windows.size;
  }

  #makeRoom(now: number): void {
    for (const [client, window] of this.#windows) if (window.endsAt <= now) this.#windows.delete(client);
    // Still full: the oldest windows (a Map iterates in insertion order) make way.
    for (const client of this.#windows.keys()) {
      if (this.#windows.size < this.capacity) break;
      this.#windows.delete(client);
    }
  }
}
