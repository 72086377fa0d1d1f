// The HTTP API (SPEC.md "Interfaces"): every schedule operation under /v1, on top of the client SDK.
// Fastify with the zod type provider: the model's zod schemas validate requests, serialize responses and
// generate the OpenAPI 3.1 document served at /openapi.json (and browsable at /docs) — no second copy.
// The app and its hooks are app.ts; the routes, thin adapters over the SDK, are plugins in routes/.
import type { Client } from '@temporalio/client';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { DEFAULT_TEMPORAL_TIMEOUT_MS } from '../../model/defaults.js';
import type { TenantPolicy } from '../../model/tenant-policy.js';
import type { TrustProxy } from '../../model/trust-proxy.js';
import type { KeyRing } from '../auth.js';
import { SchedulerClient } from '../client.js';
import { BackfillSlotLedger } from '../quotas.js';
import { type ScheduleStartOptions, scheduleStartOptions } from '../sdk/options.js';
import { createApp } from './app.js';
import { type CalendarPoolOptions, calendarRunner, DEFAULT_CALENDAR_POOL } from './calendar-pool.js';
import { consoleRoutes } from './console.js';
import type { ApiMetrics } from './metrics.js';
import { DEFAULT_READINESS_CACHE_MS, readinessCheck } from './readiness.js';
import { interpretRoutes } from './routes/interpret.js';
import { opsRoutes } from './routes/ops.js';
import { previewRoutes } from './routes/preview.js';
import { scheduleRoutes } from './routes/schedules.js';

export { DEFAULT_RATE_LIMIT_PER_MINUTE, DEFAULT_TEMPORAL_TIMEOUT_MS } from '../../model/defaults.js';
export { DEFAULT_BODY_LIMIT_BYTES } from './app.js';
export { DEFAULT_READINESS_CACHE_MS } from './readiness.js';

export interface ApiDependencies extends ScheduleStartOptions {
  /** Temporal client for the scheduler's namespace. */
  client: Client;
  /** Task queue the scheduler's workers poll (readiness checks it has pollers). */
  taskQueue: string;
  /** Where JOB targets without a task_queue start. */
  jobTaskQueue: string;
  /** The current API keys; a function, so a reloaded key file takes effect without a restart. */
  keys: () => KeyRing;
  /** Failed authentications a minute from one client address before it is answered 429; 0: no limit. */
  authFailuresPerMinute?: number;
  /**
   * The reverse proxies whose X-Forwarded-For is believed (SCHEDULER_TRUST_PROXY, src/model/trust-proxy.ts):
   * the client address of the per-address limits is then the client they forwarded for. Default off: the
   * TCP peer.
   */
  trustProxy?: TrustProxy;
  /** Signs list cursors (SCHEDULER_CURSOR_SECRET): replicas with the same one accept each other's cursors. */
  cursorSecret?: string;
  /** The tenant policy in force: what each tenant's targets may reach (checked at create and edit). */
  tenantPolicy: () => TenantPolicy;
  /** Request units per minute per tenant, weighted by cost (tenant-rate-limit.ts; 429 beyond). */
  rateLimitPerMinute?: number;
  /**
   * Requests per minute per client address on the public routes other than /healthz (429 beyond); default
   * `rateLimitPerMinute`.
   */
  publicRateLimitPerMinute?: number;
  /** Largest request body accepted (413 beyond). */
  bodyLimitBytes?: number;
  /** How long a request waits for Temporal and the worker before answering 503. */
  temporalTimeoutMs?: number;
  /** Prometheus metrics served at GET /metrics; none when unset. */
  metrics?: ApiMetrics;
  /** When set, GET /metrics needs `Authorization: Bearer <metricsToken>` (401 otherwise). */
  metricsToken?: string | undefined;
  /**
   * A production deployment (serve.ts decides: keys configured, NODE_ENV=production or a non-loopback
   * host): GET /metrics is served only with a `metricsToken`, else it answers 404. Default false (open, as
   * in development).
   */
  production?: boolean;
  /** How long one readiness check of Temporal answers /readyz and /v1/health (default 2 s). */
  readinessCacheMs?: number;
  /**
   * The clock (epoch ms) of the API's own windows: the readiness cache, the per-tenant rate limit, the
   * failed-authentication throttle and the backfill slots counted per hour. Default Date.now; a test passes
   * one it drives, so that what it checks does not depend on how fast the machine sends its requests.
   * (Deadlines of Temporal calls are always on this machine's clock: they are the gRPC client's.)
   */
  now?: () => number;
  /** Fastify's pino logger options; false for none. */
  logger?: boolean | Record<string, unknown>;
  /**
   * Where the calendar's searches run (./calendar-pool.ts): worker threads, each request's under a time
   * budget, queued fairly per tenant. Default DEFAULT_CALENDAR_POOL; `threads: 0` runs them on the event
   * loop, unbounded (as up to 0.5).
   */
  calendar?: CalendarPoolOptions;
  /**
   * Serve the console under /console/ (./console.ts; SCHEDULER_CONSOLE, decided by consoleEnabled). Default
   * false: not served.
   */
  console?: boolean;
}

export async function buildApi(deps: ApiDependencies): Promise<FastifyInstance> {
  const timeoutMs = deps.temporalTimeoutMs ?? DEFAULT_TEMPORAL_TIMEOUT_MS;
  const app = await createApp(deps);
  const backfillLedger = new BackfillSlotLedger(deps.now);
  const calendar = calendarRunner(deps.calendar ?? DEFAULT_CALENDAR_POOL);
  app.addHook('onClose', async () => calendar.close());

  const sdkFor = (request: FastifyRequest) =>
    new SchedulerClient({
      client: deps.client,
      taskQueue: deps.taskQueue,
      jobTaskQueue: deps.jobTaskQueue,
      ...scheduleStartOptions(deps),
      principal: request.principal!,
      tenantPolicy: deps.tenantPolicy,
      // The SDK's own read deadline would replace the request's: keep them the same.
      readTimeoutMs: timeoutMs,
      backfillLedger,
      calendar,
      ...(deps.cursorSecret ? { cursorSecret: deps.cursorSecret } : {}),
    });
  /** Temporal calls of one request share a deadline: an outage answers 503, never hangs. */
  const withDeadline = <T>(fn: () => Promise<T>): Promise<T> =>
    deps.client.connection.withDeadline(Date.now() + timeoutMs, fn);

  await app.register(opsRoutes, {
    readiness: readinessCheck({
      client: deps.client,
      taskQueue: deps.taskQueue,
      withDeadline,
      cacheMs: deps.readinessCacheMs ?? DEFAULT_READINESS_CACHE_MS,
      ...(deps.now ? { now: deps.now } : {}),
    }),
    metrics: deps.metrics,
    metricsToken: deps.metricsToken,
    production: deps.production,
  });
  await app.register(scheduleRoutes, {
    sdkFor,
    withDeadline,
    onUnexplained: (tenant, slots) => deps.metrics?.auditUnexplained.inc({ tenant }, slots),
  });
  await app.register(previewRoutes, { calendar });
  await app.register(interpretRoutes, { sdkFor });
  if (deps.console) await app.register(consoleRoutes);
  return app;
}
