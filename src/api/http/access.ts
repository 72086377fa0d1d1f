// Who may call the API, and how often: API-key authentication of every route that is not public, the
// throttle on failed authentications per client address, and the rate limits (per client address on the
// public routes, per tenant weighted by cost behind a key). Registered by app.ts, in this order.
import fastifyRateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { checkZone } from '../../calendar/zone.js';
import { DEFAULT_RATE_LIMIT_PER_MINUTE } from '../../model/defaults.js';
import { CLIENT_IPV6_PREFIX_LENGTH, FailedAuthThrottle } from './auth-throttle.js';
import { HttpProblem, unauthorized } from './problems.js';
import type { ApiDependencies } from './server.js';
import {
  type RateDecision,
  REQUEST_UNIT_COSTS,
  requestCost,
  TenantRateLimiter,
  TenantRecomputeGate,
} from './tenant-rate-limit.js';

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * On a tenant-wide recompute (POST /v1/recompute): charges the caller's tenant for each schedule the
     * handler asks, as it asks it, beyond its limit if need be (./tenant-rate-limit.ts). Null elsewhere.
     */
    chargeTenant: ((units: number) => void) | null;
  }
}

const PUBLIC_ROUTES = new Set([
  '/healthz',
  '/readyz',
  '/metrics',
  '/openapi.json',
  '/problems/:slug',
  '/v1/health',
]);
function isPublicRoute(route: string | undefined): boolean {
  if (route === undefined) return false;
  if (route === '/console' || route.startsWith('/console/')) return true; // static files; /v1 needs the key
  return PUBLIC_ROUTES.has(route) || route === '/docs' || route.startsWith('/docs/');
}

/**
 * Failed authentications per client address (./auth-throttle.ts): counted when a presented key is
 * refused, and past the limit every non-public request from that address is 429 until its minute ends.
 */
export function throttleFailedAuthentication(
  app: FastifyInstance,
  perMinute: number,
  now: () => number = Date.now,
): void {
  const authFailures = new FailedAuthThrottle(perMinute, now);
  app.addHook('onRequest', async (request) => {
    if (isPublicRoute(request.routeOptions.url)) return;
    const retryAfter = authFailures.retryAfterSeconds(request.ip);
    if (retryAfter === null) return;
    throw new HttpProblem(
      'rate-limited',
      `too many requests with an invalid API key from this address (${authFailures.perMinute} a minute): check the key, and retry in ${retryAfter} s`,
      { code: 'RATE_LIMITED' },
      { 'retry-after': String(retryAfter) },
    );
  });
  app.addHook('onError', async (request, _reply, err) => {
    if (err instanceof HttpProblem && err.slug === 'unauthorized' && request.headers.authorization) {
      authFailures.recordFailure(request.ip);
    }
  });
}

/**
 * Authentication for /v1; health, readiness, the documents and problem pages are public. Decided on the
 * route the router matched (never the raw URL, which an encoded path can disguise): everything that is not
 * explicitly public, unmatched paths included, needs a key.
 */
export function authenticate(app: FastifyInstance, deps: ApiDependencies): void {
  app.addHook('onRequest', async (request) => {
    if (isPublicRoute(request.routeOptions.url)) return;
    request.principal = deps.keys().authenticate(request.headers.authorization);
    if (!request.principal) {
      throw unauthorized(
        request.headers.authorization,
        'the API key is not valid: check it, or ask the operator for one',
        'missing Authorization header: send `Authorization: Bearer <API key>`',
      );
    }
  });
}

/**
 * Every request that reaches a handler is limited (only /healthz and the readiness probes, answered from
 * their cache, opt out: ./routes/ops.ts). A request without a principal got here only through a public
 * route (authentication refused the rest): those are counted per client address (`request.ip`: the TCP
 * peer, or behind trusted proxies the client they forwarded for, SCHEDULER_TRUST_PROXY; an IPv6 one by its
 * /64); callers with a key by the weighted per-tenant limiter.
 */
export async function limitRates(app: FastifyInstance, deps: ApiDependencies): Promise<void> {
  const perTenantLimit = deps.rateLimitPerMinute ?? DEFAULT_RATE_LIMIT_PER_MINUTE;
  await app.register(fastifyRateLimit, {
    hook: 'preHandler',
    max: deps.publicRateLimitPerMinute ?? perTenantLimit,
    timeWindow: 60_000,
    allowList: (request) => request.principal !== null,
    // Its default key is ./auth-throttle.ts's `clientOf`: the address, an IPv6 one by its /64.
    ipv6Subnet: CLIENT_IPV6_PREFIX_LENGTH,
    errorResponseBuilder: (_request, context) => {
      const err = new Error(
        `rate limit of ${context.max} requests per minute for this client address exceeded; retry in ${context.after}`,
      ) as Error & { statusCode: number };
      err.statusCode = 429;
      return err;
    },
  });
  limitTenants(app, deps, perTenantLimit);
}

/** The 429 of a tenant past its units, with the rate-limit headers of `decision`. */
function tenantLimited(tenant: string, cost: number, decision: RateDecision): HttpProblem {
  return new HttpProblem(
    'rate-limited',
    `rate limit of ${decision.limit} request units per minute for tenant ${tenant} exceeded (this request costs ${cost}, ${decision.remaining} left); retry in ${decision.resetSeconds} seconds`,
    { code: 'RATE_LIMITED' },
    { 'retry-after': String(decision.resetSeconds) },
  );
}

function rateHeaders(reply: FastifyReply, decision: RateDecision): void {
  reply.headers({
    'x-ratelimit-limit': String(decision.limit),
    'x-ratelimit-remaining': String(decision.remaining),
    'x-ratelimit-reset': String(decision.resetSeconds),
  });
}

/**
 * Whether a recompute's `zone` (if any) is one the calendar knows: one that is not is refused by the handler
 * (422 naming `zone`) and asks nothing, so it neither takes nor waits for the tenant's turn.
 */
function namesKnownZone(body: unknown): boolean {
  const zone = (body as { zone?: unknown } | undefined)?.zone;
  if (zone === undefined) return true;
  try {
    checkZone('zone', zone);
    return true;
  } catch {
    return false;
  }
}

/**
 * Per tenant (all its keys and owners share one budget, so one tenant's burst cannot starve another's),
 * weighted by cost (tenant-rate-limit.ts); a tenant's `quotas.api_units_per_minute` replaces the default.
 * A unit is charged when the request arrives, before its body is read and validated (a request refused for
 * its body costs its tenant too), the rest of its cost once it passed validation. A tenant-wide recompute
 * also waits its turn (once per TENANT_RECOMPUTE_INTERVAL_MS) and is charged per schedule it asks; a bulk
 * operation per schedule it reads and acts on.
 */
function limitTenants(app: FastifyInstance, deps: ApiDependencies, defaultLimit: number): void {
  const now = deps.now ?? Date.now;
  const tenantLimiter = new TenantRateLimiter(60_000, now);
  const recomputes = new TenantRecomputeGate(undefined, now);
  /** The recompute turn a request holds, and how many schedules it asked. */
  const turns = new WeakMap<FastifyRequest, { token: symbol; asked: number }>();
  const limitOf = (tenant: string) => deps.tenantPolicy().quotas(tenant).api_units_per_minute ?? defaultLimit;
  const take = (request: FastifyRequest, reply: FastifyReply, units: number, cost: number) => {
    const tenant = request.principal!.tenant_id;
    const decision = tenantLimiter.take(tenant, units, limitOf(tenant));
    rateHeaders(reply, decision);
    if (!decision.allowed) throw tenantLimited(tenant, cost, decision);
  };
  app.decorateRequest('chargeTenant', null);

  app.addHook('onRequest', async (request, reply) => {
    if (!request.principal) return;
    const cost = requestCost(request.method, request.routeOptions.url, request.query);
    take(request, reply, Math.min(REQUEST_UNIT_COSTS.beforeValidation, cost), cost);
  });
  app.addHook('preHandler', async (request, reply) => {
    const principal = request.principal;
    if (!principal) return;
    const cost = requestCost(request.method, request.routeOptions.url, request.query);
    const rest = cost - Math.min(REQUEST_UNIT_COSTS.beforeValidation, cost);
    if (rest > 0) take(request, reply, rest, cost);
    const tenant = principal.tenant_id;
    // Work a request orders beyond its own cost (a bulk operation's schedules, a recompute's): charged as it
    // is done, never refused halfway; the tenant's next requests pay it off.
    const charge = (units: number) => {
      const decision = tenantLimiter.charge(tenant, units, limitOf(tenant));
      if (!reply.sent) rateHeaders(reply, decision);
    };
    request.chargeTenant = charge;
    if (
      request.method === 'POST' &&
      request.routeOptions.url === '/v1/recompute' &&
      namesKnownZone(request.body)
    ) {
      const turn = recomputes.enter(tenant);
      if (!('token' in turn)) {
        const minutes = recomputes.intervalMs / 60_000;
        throw new HttpProblem(
          'rate-limited',
          `a tenant-wide recompute runs at most once every ${minutes} minutes for tenant ${tenant} (each asks every running schedule: a workflow task each on the worker all tenants share); the last one started at ${new Date(turn.startedAt).toISOString()}. Recompute single schedules with POST /v1/schedules/{id}/recompute, or retry in ${turn.retryAfterSeconds} seconds`,
          { code: 'RATE_LIMITED' },
          { 'retry-after': String(turn.retryAfterSeconds) },
        );
      }
      const held = { token: turn.token, asked: 0 };
      turns.set(request, held);
      request.chargeTenant = (units) => {
        held.asked += 1;
        charge(units);
      };
    }
  });
  // A tenant-wide recompute that asked no schedule (nothing listed, or its listing failed) gives its turn back.
  app.addHook('onResponse', async (request) => {
    const held = turns.get(request);
    if (held && held.asked === 0) recomputes.release(request.principal!.tenant_id, held.token);
  });
}
