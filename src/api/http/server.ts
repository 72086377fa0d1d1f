// The HTTP API (SPEC.md "Interfaces"): every schedule operation under /v1, on top of the client SDK.
// Fastify with the zod type provider: the model's zod schemas validate requests, serialize responses and
// generate the OpenAPI 3.1 document served at /openapi.json (and browsable at /docs) — no second copy.
import { STATUS_CODES } from 'node:http';
import fastifyRateLimit from '@fastify/rate-limit';
import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import type { Client } from '@temporalio/client';
import proto from '@temporalio/proto';
import Fastify, {
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
} from 'fastify';
import {
  jsonSchemaTransform,
  jsonSchemaTransformObject,
  serializerCompiler,
  validatorCompiler,
  type ZodTypeProvider,
} from 'fastify-type-provider-zod';
import FindMyWay, { type HTTPMethod } from 'find-my-way';
import ipaddr from 'ipaddr.js';
import { z } from 'zod';
import {
  BackfillRequest,
  BackfillResult,
  CancelRequest,
  NextRun,
  Occurrence,
  PauseRequest,
  Schedule,
  ScheduleDescription,
  ScheduleSpec,
  TriggerRequest,
} from '../../model/contracts.js';
import {
  CreateScheduleRequest,
  Health,
  ListOccurrencesQuery,
  ListSchedulesQuery,
  OccurrencePage,
  PatchScheduleRequest,
  PreviewRequest,
  PreviewResult,
  Problem,
  ScheduleIdParams,
  SchedulePage,
} from '../../model/http.js';
import type { TenantPolicy } from '../../model/tenant-policy.js';
import { BearerSecret, type KeyRing, type Principal } from '../auth.js';
import { previewRunsOn, SchedulerClient } from '../client.js';
import { SchedulerError } from '../errors.js';
import { BackfillSlotLedger } from '../quotas.js';
import { DEFAULT_AUTH_FAILURES_PER_MINUTE, FailedAuthThrottle } from './auth-throttle.js';
import { type CalendarPoolOptions, calendarRunner, DEFAULT_CALENDAR_POOL } from './calendar-pool.js';
import { definitionFieldLabel, methodLabel } from './metric-labels.js';
import type { ApiMetrics } from './metrics.js';
import {
  HttpProblem,
  PROBLEM_CONTENT_TYPE,
  problemTypes,
  RETRY_AFTER_SECONDS,
  type RenderedProblem,
  renderProblem,
} from './problems.js';
import { requestCost, TenantRateLimiter } from './tenant-rate-limit.js';

const HTTP_METHODS: HTTPMethod[] = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

export interface ApiDependencies {
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
  /** Fastify's pino logger options; false for none. */
  logger?: boolean | Record<string, unknown>;
  /**
   * Where the calendar's searches run (./calendar-pool.ts): worker threads, each request's under a time
   * budget, queued fairly per tenant. Default DEFAULT_CALENDAR_POOL; `threads: 0` runs them on the event
   * loop, unbounded (as up to 0.5).
   */
  calendar?: CalendarPoolOptions;
}

export const DEFAULT_BODY_LIMIT_BYTES = 64 * 1024;
export const DEFAULT_RATE_LIMIT_PER_MINUTE = 600;
export const DEFAULT_TEMPORAL_TIMEOUT_MS = 10_000;
/** POST /v1/schedules/{id}/<action> whose body may be left out. */
const OPTIONAL_BODY_ACTIONS = ['pause', 'resume', 'trigger', 'cancel'];
/** A poller seen this recently counts as a live worker for /readyz. */
const POLLER_FRESH_MS = 2 * 60_000;
/**
 * /readyz and /v1/health are public: within this long of a check they answer its result, so a flood of them
 * costs Temporal one check (two RPCs) per interval, not two RPCs per request.
 */
export const DEFAULT_READINESS_CACHE_MS = 2_000;

/** What /readyz says: fixed words only, so no Temporal error text or address reaches an unauthenticated caller. */
interface Readiness {
  temporal: 'reachable' | 'unreachable';
  worker: 'poller seen' | 'no poller' | 'unknown';
}

/**
 * `check` run at most once per `cacheMs` (counted from when it finished): callers within that interval get
 * its result, callers while it runs share it. `check` must not reject.
 */
function cachedCheck<T>(
  check: (log: FastifyBaseLogger) => Promise<T>,
  cacheMs: number,
): (log: FastifyBaseLogger) => Promise<T> {
  let last: { at: number; result: T } | null = null;
  let running: Promise<T> | null = null;
  return (log) => {
    if (last && Date.now() - last.at < cacheMs) return Promise.resolve(last.result);
    running ??= check(log)
      .then((result) => {
        last = { at: Date.now(), result };
        return result;
      })
      .finally(() => {
        running = null;
      });
    return running;
  };
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

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal | null;
  }
}

const problemResponses = (...statuses: number[]) =>
  Object.fromEntries(
    statuses.map((status) => [
      status,
      {
        description: Object.values(problemTypes)
          .filter((t) => t.status === status)
          .map((t) => t.title)
          .join(' / '),
        content: { [PROBLEM_CONTENT_TYPE]: { schema: Problem } },
      },
    ]),
  );
/** What every authenticated /v1 route can answer besides its success. */
const common = [400, 401, 413, 415, 429, 431, 503];

const timeNow = () => new Date().toISOString();

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

/** Registers the shared schemas, so the OpenAPI document refers to them by name. */
function registerComponents(): void {
  const named: Array<[z.ZodType, string]> = [
    [Schedule, 'Schedule'],
    [ScheduleSpec, 'ScheduleSpec'],
    [Occurrence, 'Occurrence'],
    [ScheduleDescription, 'ScheduleDescription'],
    [NextRun, 'NextRun'],
    [Problem, 'Problem'],
  ];
  for (const [schema, id] of named) if (!z.globalRegistry.has(schema)) z.globalRegistry.add(schema, { id });
}

export async function buildApi(deps: ApiDependencies): Promise<FastifyInstance> {
  registerComponents();
  const timeoutMs = deps.temporalTimeoutMs ?? DEFAULT_TEMPORAL_TIMEOUT_MS;
  const app = Fastify({
    logger: deps.logger ?? false,
    bodyLimit: deps.bodyLimitBytes ?? DEFAULT_BODY_LIMIT_BYTES,
    return503OnClosing: true,
    // Longer than any valid ID, so a too-long one is answered by the schema (400 naming params.id).
    routerOptions: { maxParamLength: 1024 },
    // Errors the router raises before a route runs (a malformed %-escape) are problems too.
    frameworkErrors: (err, request, reply) => {
      void sendProblem(reply as unknown as FastifyReply, renderProblem(err, request.url.split('?')[0]!));
    },
    // Errors Node's HTTP server raises before there is a request (headers over its limit, a request that is
    // not HTTP): problems too, written on the socket, which is then closed as Node does.
    clientErrorHandler: (err, socket) => {
      if (err.code === 'ECONNRESET' || socket.destroyed) return;
      const { body } = renderProblem(err, undefined);
      const json = JSON.stringify(body);
      if (socket.writable) {
        socket.write(
          `HTTP/1.1 ${body.status} ${STATUS_CODES[body.status] ?? body.title}\r\nContent-Type: ${PROBLEM_CONTENT_TYPE}\r\nContent-Length: ${Buffer.byteLength(json)}\r\nConnection: close\r\n\r\n${json}`,
        );
      }
      socket.destroy(err);
    },
  });
  // Only JSON bodies: anything else is a 415, not a body the schema then misreads.
  app.removeContentTypeParser('text/plain');
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.decorateRequest('principal', null);
  const definitionRoutes = new Set(['/v1/schedules', '/v1/schedules/:id', '/v1/preview']);
  app.addHook('onResponse', async (request, reply) => {
    // Every label from a closed set: the route pattern (not the path), a known method, the status.
    deps.metrics?.requests.inc({
      route: request.routeOptions.url ?? 'unmatched',
      method: methodLabel(request.method),
      status: String(reply.statusCode),
    });
  });

  app.setErrorHandler((err, request, reply) => {
    const rendered = renderProblem(err, request.url.split('?')[0]!);
    if (rendered.internal) request.log.error({ err }, 'internal error');
    // A definition the API refused for what it means or how it is shaped (not a missing key or a conflict).
    if (rendered.body.code === 'VALIDATION' && definitionRoutes.has(request.routeOptions.url ?? '')) {
      // The label is the field mapped onto the definition's own fields: a key the caller made up is
      // `unknown_field`, never a series of its own.
      deps.metrics?.invalidDefinitions.inc({ field: definitionFieldLabel(rendered.body.field) });
    }
    return sendProblem(reply, rendered);
  });
  // Action endpoints (pause, resume, trigger, cancel) take an optional body: none, or an empty one, is `{}`.
  const json = app.getDefaultJsonParser('error', 'error');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (body === '') return done(null, {});
    json(request, body as string, done);
  });
  app.addHook('preValidation', async (request) => {
    if (request.method === 'POST' && request.body == null) request.body = {};
  });
  // A path that exists under other methods is a 405 with `Allow`, not a 404: a second router that knows only
  // which methods each registered path has (Fastify's own answers just "no route").
  const methodsOfPaths = FindMyWay();
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) methodsOfPaths.on(method as HTTPMethod, route.url, () => {});
  });
  const noRoute = (request: FastifyRequest): HttpProblem => {
    const path = request.url.split('?')[0]!;
    const allowed = HTTP_METHODS.filter((method) => methodsOfPaths.find(method, path) !== null);
    if (allowed.length > 0) {
      return new HttpProblem(
        'method-not-allowed',
        `${request.method} is not allowed on ${path}: use ${allowed.join(', ')}`,
        {},
        { allow: allowed.join(', ') },
      );
    }
    return new HttpProblem('not-found', `no route ${request.method} ${path}`, { code: 'NOT_FOUND' });
  };
  app.setNotFoundHandler((request) => {
    throw noRoute(request);
  });

  await app.register(fastifySwagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'durable-scheduler',
        version: '1',
        description:
          'Durable, versioned, exactly-once schedules on Temporal. Every error is application/problem+json (RFC 9457).',
      },
      components: {
        securitySchemes: { apiKey: { type: 'http', scheme: 'bearer', description: 'an API key' } },
      },
      security: [{ apiKey: [] }],
    },
    transform: jsonSchemaTransform,
    transformObject: (input) => {
      const doc = jsonSchemaTransformObject(input);
      // The action endpoints take an optional body (none is `{}`: the JSON parser below): say so.
      const paths = (
        doc as { paths?: Record<string, Record<string, { requestBody?: { required?: boolean } }>> }
      ).paths;
      for (const action of OPTIONAL_BODY_ACTIONS) {
        const requestBody = paths?.[`/v1/schedules/{id}/${action}`]?.post?.requestBody;
        if (requestBody) requestBody.required = false;
      }
      return doc;
    },
  });
  await app.register(fastifySwaggerUi, { routePrefix: '/docs' });

  // Failed authentications per client address (./auth-throttle.ts): counted when a presented key is
  // refused, and past the limit every non-public request from that address is 429 until its minute ends.
  const authFailures = new FailedAuthThrottle(deps.authFailuresPerMinute ?? DEFAULT_AUTH_FAILURES_PER_MINUTE);
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
  // Authentication for /v1; health, readiness, the documents and problem pages are public.
  // Decided on the route the router matched (never the raw URL, which an encoded path can disguise):
  // everything that is not explicitly public, unmatched paths included, needs a key.
  app.addHook('onRequest', async (request, reply) => {
    if (isPublicRoute(request.routeOptions.url)) return;
    request.principal = deps.keys().authenticate(request.headers.authorization);
    if (!request.principal) {
      reply.header('www-authenticate', 'Bearer');
      throw new HttpProblem(
        'unauthorized',
        request.headers.authorization
          ? 'the API key is not valid: check it, or ask the operator for one'
          : 'missing Authorization header: send `Authorization: Bearer <API key>`',
        { code: 'UNAUTHORIZED' },
      );
    }
  });
  // An unmatched request is answered before its body is read: a method Fastify reads bodies for (QUERY)
  // must not be judged on its Content-Type when no route takes it at all.
  app.addHook('onRequest', async (request) => {
    if (request.routeOptions.url === undefined) throw noRoute(request);
  });
  const perTenantLimit = deps.rateLimitPerMinute ?? DEFAULT_RATE_LIMIT_PER_MINUTE;
  const perAddressLimit = deps.publicRateLimitPerMinute ?? perTenantLimit;
  // Every request that reaches a handler is limited (only /healthz opts out, below). A request without a
  // principal got here only through a public route (the hook above refused the rest): those are counted
  // per client address here (readiness checks Temporal, metrics render); callers with a key by the
  // weighted per-tenant limiter below.
  await app.register(fastifyRateLimit, {
    hook: 'preHandler',
    max: perAddressLimit,
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
  // Per tenant (all its keys and owners share one budget, so one tenant's burst cannot starve another's),
  // weighted by cost (tenant-rate-limit.ts); a tenant's `quotas.api_units_per_minute` replaces the default.
  const tenantLimiter = new TenantRateLimiter();
  app.addHook('preHandler', async (request, reply) => {
    const principal = request.principal;
    if (!principal) return;
    const tenant = principal.tenant_id;
    const limit = deps.tenantPolicy().quotas(tenant).api_units_per_minute ?? perTenantLimit;
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
  const backfillLedger = new BackfillSlotLedger();
  const calendar = calendarRunner(deps.calendar ?? DEFAULT_CALENDAR_POOL);
  app.addHook('onClose', async () => calendar.close());

  const sdkFor = (request: FastifyRequest) =>
    new SchedulerClient({
      client: deps.client,
      taskQueue: deps.taskQueue,
      jobTaskQueue: deps.jobTaskQueue,
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

  app.get('/problems/:slug', { schema: { hide: true } }, async (request) => {
    // An own property only: `constructor` or `__proto__` are no problem types.
    const { slug } = request.params as { slug: string };
    const type = Object.hasOwn(problemTypes, slug) ? problemTypes[slug] : undefined;
    if (!type) throw new HttpProblem('not-found', 'no such problem type', { code: 'NOT_FOUND' });
    return {
      type: `/problems/${type.slug}`,
      title: type.title,
      status: type.status,
      description: type.description,
    };
  });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  if (deps.metrics) {
    const metrics = deps.metrics;
    const token = deps.metricsToken ? new BearerSecret(deps.metricsToken) : null;
    app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
      // The schedule gauges name every tenant with its volumes: in production they need the token.
      if (!token && deps.production) {
        throw new HttpProblem(
          'not-found',
          'GET /metrics is not served without SCHEDULER_METRICS_TOKEN in production: set it and send `Authorization: Bearer <token>`, or scrape the worker on SCHEDULER_METRICS_PORT',
          { code: 'NOT_FOUND' },
        );
      }
      if (token && !token.matches(request.headers.authorization)) {
        reply.header('www-authenticate', 'Bearer');
        throw new HttpProblem(
          'unauthorized',
          request.headers.authorization
            ? 'the metrics token is not valid'
            : 'missing Authorization header: send `Authorization: Bearer <SCHEDULER_METRICS_TOKEN>`',
          { code: 'UNAUTHORIZED' },
        );
      }
      return reply.type('text/plain; version=0.0.4; charset=utf-8').send(await metrics.render());
    });
  }

  // One check for /readyz and /v1/health. Its details (the gRPC error, the poller count) go to the log of
  // the request that ran it; callers see fixed words only.
  const readiness = cachedCheck(async (log): Promise<Readiness> => {
    try {
      await withDeadline(() => deps.client.workflowService.getSystemInfo({}));
    } catch (err) {
      log.warn({ err }, 'readiness: Temporal did not answer');
      return { temporal: 'unreachable', worker: 'unknown' };
    }
    try {
      const queue = await withDeadline(() =>
        deps.client.workflowService.describeTaskQueue({
          namespace: deps.client.options.namespace,
          taskQueue: { name: deps.taskQueue },
          taskQueueType: proto.temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
        }),
      );
      const fresh = (queue.pollers ?? []).filter(
        (p) => Date.now() - Number(p.lastAccessTime?.seconds ?? 0) * 1000 < POLLER_FRESH_MS,
      );
      if (fresh.length === 0) log.warn({ taskQueue: deps.taskQueue }, 'readiness: no scheduler worker polls');
      return { temporal: 'reachable', worker: fresh.length > 0 ? 'poller seen' : 'no poller' };
    } catch (err) {
      log.warn({ err, taskQueue: deps.taskQueue }, 'readiness: the task queue could not be described');
      return { temporal: 'reachable', worker: 'unknown' };
    }
  }, deps.readinessCacheMs ?? DEFAULT_READINESS_CACHE_MS);

  const api = app.withTypeProvider<ZodTypeProvider>();

  api.get(
    '/healthz',
    {
      schema: { tags: ['operations'], summary: 'The process is up', security: [], response: { 200: Health } },
      // A liveness probe must never be refused: this answer costs nothing, so it is not limited.
      config: { rateLimit: false },
    },
    async () => ({ status: 'ok' as const, checks: { process: 'up' } }),
  );
  api.get(
    '/readyz',
    {
      schema: {
        tags: ['operations'],
        summary: 'Temporal is reachable and a scheduler worker polls its task queue',
        security: [],
        response: { 200: Health, 503: Health, ...problemResponses(429) },
      },
    },
    async (request, reply) => {
      const checks = await readiness(request.log);
      const ready = checks.temporal === 'reachable' && checks.worker === 'poller seen';
      if (!ready) reply.code(503).header('retry-after', String(RETRY_AFTER_SECONDS));
      return { status: ready ? ('ok' as const) : ('unavailable' as const), checks: { ...checks } };
    },
  );
  // Kept for scripts written against 0.1: the same as /readyz's Temporal check.
  api.get('/v1/health', { schema: { hide: true } }, async (request, reply) => {
    const { temporal } = await readiness(request.log);
    if (temporal === 'reachable') return { status: 'ok', temporal };
    return reply
      .code(503)
      .header('retry-after', String(RETRY_AFTER_SECONDS))
      .send({ status: 'unavailable', temporal });
  });

  const tags = ['schedules'];

  api.post(
    '/v1/schedules',
    {
      schema: {
        tags,
        summary: 'Create a schedule (idempotent on schedule_id)',
        description:
          "The same schedule_id with the same definition answers 200 with the existing schedule; with another definition, 409. The owner is the caller. 403 FORBIDDEN_TARGET for a target outside the tenant policy; 403 QUOTA_EXCEEDED past the tenant's quotas (live schedules, minimum interval), with `limit` and `current`.",
        body: CreateScheduleRequest,
        response: { 200: Schedule, 201: Schedule, ...problemResponses(...common, 403, 409, 422) },
      },
    },
    async (request, reply) => {
      const { schedule, created } = await withDeadline(() => sdkFor(request).create(request.body));
      reply.code(created ? 201 : 200).header('location', `/v1/schedules/${schedule.schedule_id}`);
      return schedule;
    },
  );

  api.get(
    '/v1/schedules',
    {
      schema: {
        tags,
        summary: "List your tenant's schedules",
        querystring: ListSchedulesQuery,
        response: { 200: SchedulePage, ...problemResponses(...common) },
      },
    },
    async (request) =>
      withDeadline(() =>
        sdkFor(request).listPage({
          ...request.query,
          include_deleted: request.query.include_deleted === 'true',
        }),
      ).catch((err) => {
        if (err instanceof SchedulerError && err.field === 'cursor') {
          throw new HttpProblem('invalid-request', `querystring.cursor: ${err.reason}`, {
            code: 'VALIDATION',
            field: 'querystring.cursor',
            errors: [{ field: 'querystring.cursor', reason: err.reason }],
          });
        }
        throw err;
      }),
  );

  api.get(
    '/v1/schedules/:id',
    {
      schema: {
        tags,
        summary: 'Read a schedule (schedule.v1)',
        params: ScheduleIdParams,
        response: { 200: Schedule, ...problemResponses(...common, 404) },
      },
    },
    async (request) => withDeadline(() => sdkFor(request).get(request.params.id)),
  );

  api.get(
    '/v1/schedules/:id/describe',
    {
      schema: {
        tags,
        summary: 'A schedule with its next runs, recent occurrences and counters',
        params: ScheduleIdParams,
        response: { 200: ScheduleDescription, ...problemResponses(...common, 404) },
      },
    },
    async (request) => withDeadline(() => sdkFor(request).describe(request.params.id)),
  );

  api.patch(
    '/v1/schedules/:id',
    {
      schema: {
        tags,
        summary: 'Change definition fields (optimistic: expected_version)',
        description:
          "Each field given replaces the current one whole; null clears an optional field. A stale expected_version answers 409 with current_version. A changed timing quicker than the tenant's quotas.min_interval_s answers 403 QUOTA_EXCEEDED.",
        params: ScheduleIdParams,
        body: PatchScheduleRequest,
        response: { 200: Schedule, ...problemResponses(...common, 403, 404, 409, 422) },
      },
    },
    async (request) => withDeadline(() => sdkFor(request).patch(request.params.id, request.body)),
  );

  api.post(
    '/v1/schedules/:id/pause',
    {
      schema: {
        tags,
        summary: 'Pause: no occurrences until resumed (missed slots then go through the misfire policy)',
        params: ScheduleIdParams,
        body: PauseRequest,
        response: { 200: Schedule, ...problemResponses(...common, 404, 409) },
      },
    },
    async (request) =>
      withDeadline(() => sdkFor(request).pause(request.params.id, request.body.note, { wait: true })),
  );

  api.post(
    '/v1/schedules/:id/resume',
    {
      schema: {
        tags,
        summary: 'Resume a paused schedule; on one whose owner was revoked, take it over',
        params: ScheduleIdParams,
        body: z.object({}).strict(),
        response: { 200: Schedule, ...problemResponses(...common, 404, 409) },
      },
    },
    async (request) => withDeadline(() => sdkFor(request).resume(request.params.id, { wait: true })),
  );

  api.post(
    '/v1/schedules/:id/trigger',
    {
      schema: {
        tags,
        summary: 'Run one occurrence now (idempotent on scheduled_for)',
        params: ScheduleIdParams,
        body: TriggerRequest,
        response: { 200: Occurrence, ...problemResponses(...common, 404, 409) },
      },
    },
    async (request) => withDeadline(() => sdkFor(request).triggerNow(request.params.id, request.body)),
  );

  api.post(
    '/v1/schedules/:id/backfill',
    {
      schema: {
        tags,
        summary: 'Run the slots of a past range (each at most once)',
        description:
          "403 QUOTA_EXCEEDED when the range covers more slots than the tenant's quotas allow (one backfill, or per hour).",
        params: ScheduleIdParams,
        body: BackfillRequest,
        response: { 200: BackfillResult, ...problemResponses(...common, 403, 404, 409, 422) },
      },
    },
    async (request) => withDeadline(() => sdkFor(request).backfill(request.params.id, request.body)),
  );

  api.post(
    '/v1/schedules/:id/cancel',
    {
      schema: {
        tags,
        summary: 'Cancel: no future runs; the schedule stays readable (CANCELLED)',
        params: ScheduleIdParams,
        body: CancelRequest,
        response: { 200: Schedule, ...problemResponses(...common, 404, 409) },
      },
    },
    async (request) =>
      withDeadline(async () => (await sdkFor(request).cancel(request.params.id, request.body)).schedule),
  );

  api.delete(
    '/v1/schedules/:id',
    {
      schema: {
        tags,
        summary: 'Delete: cancel, and leave it out of listings (still readable by ID, with deleted_at)',
        description:
          'Target workflows already started are not touched. A schedule that had already ended (COMPLETED, FAILED, CANCELLED) is removed from Temporal instead, which the server does asynchronously.',
        params: ScheduleIdParams,
        response: { 204: z.undefined().describe('deleted'), ...problemResponses(...common, 404) },
      },
    },
    async (request, reply) => {
      await withDeadline(() => sdkFor(request).delete(request.params.id));
      return reply.code(204).send();
    },
  );

  api.get(
    '/v1/schedules/:id/occurrences',
    {
      schema: {
        tags,
        summary: 'Recent occurrences, newest first',
        description: 'A schedule keeps its most recent 256 occurrences (and every one still running).',
        params: ScheduleIdParams,
        querystring: ListOccurrencesQuery,
        response: { 200: OccurrencePage, ...problemResponses(...common, 404) },
      },
    },
    async (request) =>
      withDeadline(() => sdkFor(request).listOccurrencesPage(request.params.id, request.query)),
  );

  api.post(
    '/v1/preview',
    {
      schema: {
        tags: ['preview'],
        summary: 'The next runs of a timing, with DST and window notes (creates nothing)',
        body: PreviewRequest,
        response: { 200: PreviewResult, ...problemResponses(...common, 422) },
      },
    },
    async (request) => {
      const { timing, from, count, ...options } = request.body;
      const after = from ?? timeNow();
      try {
        const tenant = request.principal!.tenant_id;
        return {
          runs: await previewRunsOn(calendar, tenant, 'preview', { timing, ...options }, after, after, count),
        };
      } catch (err) {
        // `from` is what the calendar calls the creation instant and the search start.
        if (err instanceof SchedulerError && (err.field === 'createdAt' || err.field === 'after')) {
          throw new SchedulerError('VALIDATION', err.reason, 'from');
        }
        throw err;
      }
    },
  );

  return app;
}

function sendProblem(reply: FastifyReply, rendered: RenderedProblem) {
  return reply
    .code(rendered.body.status)
    .headers(rendered.headers)
    .type(PROBLEM_CONTENT_TYPE)
    .send(rendered.body);
}
