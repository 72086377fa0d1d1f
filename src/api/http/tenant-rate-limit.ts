// The authenticated API's rate limit: one budget of request units per tenant and minute, each request
// weighted by what it costs the deployment (security review M3: a backfill hands off up to 1,000 slots and
// a list of 100 runs 100 workflow queries, so counting requests let one key order far more work than its
// limit suggests; and the budget is the tenant's, so a tenant with many owners does not get many budgets).
// @fastify/rate-limit counts requests and cannot weigh them, so it keeps only the public routes (per client
// address); this module is the one for callers with a key. In memory, per API process.

/** What one request costs, in units of a single read. The README's "Rate limits" table lists them. */
export const REQUEST_UNIT_COSTS = {
  read: 1, // GET a schedule, describe, occurrences; a preview or an interpret (pure calendar work)
  create: 2, // a start, and with a max_schedules quota a visibility count
  edit: 3, // PATCH: read, update, read back
  action: 2, // trigger, cancel, delete: one update
  pauseResume: 5, // a signal, then up to 20 reads until it took effect
  backfill: 50, // up to 1,000 hand-offs in one update
  /** A list costs a unit per 10 schedules it may read (each is a workflow query): limit=100 costs 10. */
  listPer10: 1,
} as const;

/** The cost of a request by its route pattern (never the raw path), method and list `limit`. */
export function requestCost(method: string, route: string | undefined, query: unknown): number {
  const c = REQUEST_UNIT_COSTS;
  if (route === '/v1/schedules' && method === 'GET') {
    const limit = Number((query as { limit?: unknown } | undefined)?.limit ?? 20);
    const pageSize = Number.isFinite(limit) ? Math.min(Math.max(limit, 1), 100) : 20;
    return Math.ceil(pageSize / 10) * c.listPer10;
  }
  if (route === '/v1/schedules' && method === 'POST') return c.create;
  if (route === '/v1/schedules/:id' && method === 'PATCH') return c.edit;
  if (route === '/v1/schedules/:id' && method === 'DELETE') return c.action;
  if (route === '/v1/schedules/:id/backfill') return c.backfill;
  if (route === '/v1/schedules/:id/pause' || route === '/v1/schedules/:id/resume') return c.pauseResume;
  if (route === '/v1/schedules/:id/trigger' || route === '/v1/schedules/:id/cancel') return c.action;
  return c.read;
}

export type RateDecision =
  | { allowed: true; limit: number; remaining: number; resetSeconds: number }
  | { allowed: false; limit: number; remaining: number; resetSeconds: number };

/**
 * A fixed one-minute window per tenant, opened by its first request (as @fastify/rate-limit's windows are):
 * a request is served while the units spent in the window plus its own cost stay within the limit.
 */
export class TenantRateLimiter {
  private readonly windows = new Map<string, { startedAt: number; spent: number }>();

  constructor(
    private readonly windowMs = 60_000,
    private readonly now: () => number = Date.now,
  ) {}

  take(tenant: string, cost: number, limit: number): RateDecision {
    const now = this.now();
    let window = this.windows.get(tenant);
    if (!window || now - window.startedAt >= this.windowMs) {
      window = { startedAt: now, spent: 0 };
      this.windows.set(tenant, window);
      this.prune(now);
    }
    const resetSeconds = Math.max(1, Math.ceil((window.startedAt + this.windowMs - now) / 1000));
    if (window.spent + cost > limit)
      return { allowed: false, limit, remaining: Math.max(0, limit - window.spent), resetSeconds };
    window.spent += cost;
    return { allowed: true, limit, remaining: limit - window.spent, resetSeconds };
  }

  /** Drops the windows that ended (tenants come from the operator's key file: few, but not forever). */
  private prune(now: number): void {
    for (const [tenant, window] of this.windows)
      if (now - window.startedAt >= this.windowMs) this.windows.delete(tenant);
  }
}
