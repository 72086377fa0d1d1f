// Who may call the API, and how often: API-key authentication of every route that is not public, the
// throttle on failed authentications per client address, and the rate limits (per client address on the
// public routes, per tenant weighted by cost behind a key). Registered by app.ts, in this order.
import fastifyRateLimit from '@fastify/rate-limit';
import type { FastifyInstance } from 'fastify';
import ipaddr from 'ipaddr.js';
import { FailedAuthThrottle } from './auth-throttle.js';
import { HttpProblem, unauthorized } from './problems.js';
import type { ApiDependencies } from './server.js';
import { requestCost, TenantRateLimiter } from './tenant-rate-limit.js';

export const DEFAULT_RATE_LIMIT_PER_MINUTE = 600;

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
  return PUBLIC_ROUTES.has(route) || route === '/docs' || route.startsWith('/docs/');
}

/**
 * The rate-limit bucket of a request without a principal (a public route): its client address, an IPv6
 * one by its /64 (one host usually holds a whole /64), as @fastify/rate-limit's own default does.
 */
function clientAddressKey(ip: string): string {
  if (!ipaddr.IPv6.isValid(ip)) return ip;
  const v6 = ipaddr.IPv6.parse(ip);
  if (v6.isIPv4MappedAddress()) return v6.toIPv4Address().toString();
  return `${ipaddr.IPv6.networkAddressFromCIDR(`${v6.toString()}/64`).toString()}/64`;
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
 * Every request that reaches a handler is limited (only /healthz opts out). A request without a principal
 * got here only through a public route (authentication refused the rest): those are counted per client
 * address (readiness checks Temporal, metrics render); callers with a key by the weighted per-tenant
 * limiter.
 */
export async function limitRates(app: FastifyInstance, deps: ApiDependencies): Promise<void> {
  const perTenantLimit = deps.rateLimitPerMinute ?? DEFAULT_RATE_LIMIT_PER_MINUTE;
  await app.register(fastifyRateLimit, {
    hook: 'preHandler',
    max: deps.publicRateLimitPerMinute ?? perTenantLimit,
    timeWindow: 60_000,
    allowList: (request) => request.principal !== null,
    keyGenerator: (request) => `address:${clientAddressKey(request.ip)}`,
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

/**
 * Per tenant (all its keys and owners share one budget, so one tenant's burst cannot starve another's),
 * weighted by cost (tenant-rate-limit.ts); a tenant's `quotas.api_units_per_minute` replaces the default.
 */
function limitTenants(app: FastifyInstance, deps: ApiDependencies, defaultLimit: number): void {
  const tenantLimiter = new TenantRateLimiter(60_000, deps.now ?? Date.now);
  app.addHook('preHandler', async (request, reply) => {
    const principal = request.principal;
    if (!principal) return;
    const tenant = principal.tenant_id;
    const limit = deps.tenantPolicy().quotas(tenant).api_units_per_minute ?? defaultLimit;
    const cost = requestCost(request.method, request.routeOptions.url, request.query);
    const decision = tenantLimiter.take(tenant, cost, limit);
    reply.headers({
      'x-ratelimit-limit': String(decision.limit),
      'x-ratelimit-remaining': String(decision.remaining),
      'x-ratelimit-reset': String(decision.resetSeconds),
    });
    if (!decision.allowed) {
      throw new HttpProblem(
        'rate-limited',
        `rate limit of ${limit} request units per minute for tenant ${tenant} exceeded (this request costs ${cost}, ${decision.remaining} left); retry in ${decision.resetSeconds} seconds`,
        { code: 'RATE_LIMITED' },
        { 'retry-after': String(decision.resetSeconds) },
      );
    }
  });
}
