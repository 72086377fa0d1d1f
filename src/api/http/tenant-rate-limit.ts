// The authenticated API's rate limit: one budget of request units per tenant and minute, each request
// weighted by what it costs the deployment (security review M3: a backfill hands off up to 1,000 slots and
// a list of 100 runs 100 workflow queries, so counting requests let one key order far more work than its
// limit suggests; and the budget is the tenant's, so a tenant with many owners does not get many budgets).
// @fastify/rate-limit counts requests and cannot weigh them, so it keeps only the public routes (per client
// address); this module is the one for callers with a key. In memory, per API process. Not
// rate-limiter-flexible: it counts refused requests too, and cannot carry a charge into the next windows.

/** What one request costs, in units of a single read (docs/tenancy-and-security.md, "Rate limits"). */
export const REQUEST_UNIT_COSTS = {
  read: 1, // GET a schedule, describe, occurrences; a preview or an interpret (pure calendar work)
  create: 2, // a start, and with a max_schedules quota a visibility count
  edit: 3, // PATCH: read, update, read back
  action: 2, // trigger, cancel, delete: one update
  pauseResume: 5, // a signal, then up to 20 reads until it took effect
  backfill: 50, // up to 1,000 hand-offs in one update
  /**
   * One schedule's recompute: an update and a slot batch (as an action). A tenant-wide recompute costs it
   * for its listing, then again for every schedule it asks, charged as it asks them (security review N3).
   */
  recompute: 2,
  /**
   * One schedule's audit: a workflow query and up to 5,000 slots computed. A tenant-wide audit costs it,
   * then its listing and every schedule it audits again, charged before it reads them.
   */
  audit: 5,
  /** A list costs a unit per 10 schedules it may read (each is a workflow query): limit=100 costs 10. */
  listPer10: 1,
  /**
   * Charged before the body is read and validated, so that a request refused for its body (malformed JSON,
   * 413, 415, a schema error) costs its tenant too (security review N10); the rest of a request's cost is
   * charged once it passed validation.
   */
  beforeValidation: 1,
} as const;

/** A tenant's tenant-wide recompute (POST /v1/recompute) runs at most once in this interval (per API process). */
export const TENANT_RECOMPUTE_INTERVAL_MS = 10 * 60_000;

/** What reading `schedules` schedules costs, as a list of them does. */
export const listReadCost = (schedules: number): number =>
  Math.ceil(schedules / 10) * REQUEST_UNIT_COSTS.listPer10;

/** The cost of a request by its route pattern (never the raw path), method and list `limit`. */
export function requestCost(method: string, route: string | undefined, query: unknown): number {
  const c = REQUEST_UNIT_COSTS;
  if (route === '/v1/schedules' && method === 'GET') {
    const limit = Number((query as { limit?: unknown } | undefined)?.limit ?? 20);
    const pageSize = Number.isFinite(limit) ? Math.min(Math.max(limit, 1), 100) : 20;
    return listReadCost(pageSize);
  }
  if (route === '/v1/schedules' && method === 'POST') return c.create;
  if (route === '/v1/schedules/:id' && method === 'PATCH') return c.edit;
  if (route === '/v1/schedules/:id' && method === 'DELETE') return c.action;
  if (route === '/v1/schedules/:id/backfill') return c.backfill;
  if (route === '/v1/schedules/:id/pause' || route === '/v1/schedules/:id/resume') return c.pauseResume;
  if (route === '/v1/schedules/:id/trigger' || route === '/v1/schedules/:id/cancel') return c.action;
  if (route === '/v1/schedules/:id/recompute' || route === '/v1/recompute') return c.recompute;
  if (route === '/v1/schedules/:id/audit' || route === '/v1/audit') return c.audit;
  return c.read;
}

export type RateDecision =
  | { allowed: true; limit: number; remaining: number; resetSeconds: number }
  | { allowed: false; limit: number; remaining: number; resetSeconds: number };

interface Window {
  startedAt: number;
  spent: number;
  /** The tenant's limit when last asked: what each later window pays off of a charge beyond it. */
  limit: number;
}

/**
 * A fixed one-minute window per tenant, opened by its first request (as @fastify/rate-limit's windows are):
 * a request is served while the units spent in the window plus its own cost stay within the limit. Work
 * charged after it was ordered (`charge`: a tenant-wide recompute, by the schedules it asked) may go beyond
 * the limit; the excess is carried into the windows that follow, each paying off up to the limit.
 */
export class TenantRateLimiter {
  private readonly windows = new Map<string, Window>();

  constructor(
    private readonly windowMs = 60_000,
    private readonly now: () => number = Date.now,
  ) {}

  take(tenant: string, cost: number, limit: number): RateDecision {
    const now = this.now();
    const window = this.windowOf(tenant, now, limit);
    if (window.spent + cost > limit)
      return {
        allowed: false,
        limit,
        remaining: Math.max(0, limit - window.spent),
        resetSeconds: this.secondsUntilRoom(window, now, cost, limit),
      };
    window.spent += cost;
    return {
      allowed: true,
      limit,
      remaining: limit - window.spent,
      resetSeconds: this.resetSeconds(window, now),
    };
  }

  /** Charges `units` of work already ordered, beyond the limit if need be (paid off by the next windows). */
  charge(tenant: string, units: number, limit: number): RateDecision {
    const now = this.now();
    const window = this.windowOf(tenant, now, limit);
    window.spent += units;
    return {
      allowed: true,
      limit,
      remaining: Math.max(0, limit - window.spent),
      resetSeconds: this.resetSeconds(window, now),
    };
  }

  private windowOf(tenant: string, now: number, limit: number): Window {
    let window = this.windows.get(tenant);
    if (!window || now - window.startedAt >= this.windowMs) {
      window = { startedAt: now, spent: window ? this.carried(window, now) : 0, limit };
      this.windows.set(tenant, window);
      this.prune(now);
    }
    window.limit = limit;
    return window;
  }

  /** What is left of a window's charges beyond its limit, once the windows since have each paid one limit. */
  private carried(window: Window, now: number): number {
    const windowsSince = Math.floor((now - window.startedAt) / this.windowMs);
    return Math.max(0, window.spent - window.limit * windowsSince);
  }

  private resetSeconds(window: Window, now: number): number {
    return Math.max(1, Math.ceil((window.startedAt + this.windowMs - now) / 1000));
  }

  /** Seconds until a window in which `cost` fits, the debt carried into it counted. */
  private secondsUntilRoom(window: Window, now: number, cost: number, limit: number): number {
    const windows = cost > limit ? 1 : Math.max(1, Math.ceil((window.spent + cost - limit) / limit));
    return Math.max(1, Math.ceil((window.startedAt + windows * this.windowMs - now) / 1000));
  }

  /** Drops the windows that ended with nothing to carry (tenants come from the operator's key file: few). */
  private prune(now: number): void {
    for (const [tenant, window] of this.windows)
      if (now - window.startedAt >= this.windowMs && this.carried(window, now) === 0)
        this.windows.delete(tenant);
  }
}

/**
 * One tenant-wide recompute at a time per tenant, and then none for `intervalMs` (security review N3): each
 * sends an update to every running schedule of the tenant, a workflow task each on the worker all tenants
 * share. `enter` reserves the tenant's turn before any schedule is asked; a recompute that asked none (its
 * listing found nothing, or failed) gives it back with `release`. In memory, per API process.
 */
export class TenantRecomputeGate {
  private readonly started = new Map<string, { at: number; token: symbol }>();

  constructor(
    readonly intervalMs = TENANT_RECOMPUTE_INTERVAL_MS,
    private readonly now: () => number = Date.now,
  ) {}

  /** The tenant's turn (a token for `release`), or when its last one started and how long to wait. */
  enter(tenant: string): { token: symbol } | { startedAt: number; retryAfterSeconds: number } {
    const now = this.now();
    const last = this.started.get(tenant);
    if (last && now - last.at < this.intervalMs)
      return {
        startedAt: last.at,
        retryAfterSeconds: Math.max(1, Math.ceil((last.at + this.intervalMs - now) / 1000)),
      };
    for (const [other, entry] of this.started)
      if (now - entry.at >= this.intervalMs) this.started.delete(other);
    const token = Symbol(tenant);
    this.started.set(tenant, { at: now, token });
    return { token };
  }

  /** Gives back the turn `token` took (a recompute that asked no schedule); a later turn is left alone. */
  release(tenant: string, token: symbol): void {
    if (this.started.get(tenant)?.token === token) this.started.delete(tenant);
  }
}
