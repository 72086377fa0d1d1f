// The public routes an operator and a client's tooling use: the problem type pages, the OpenAPI document,
// Prometheus metrics, liveness and readiness. None needs a key (app.ts lists them as public).
import type { FastifyBaseLogger } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { Health } from '../../../model/http.js';
import { BearerSecret } from '../../auth.js';
import type { ApiMetrics } from '../metrics.js';
import { HttpProblem, problemTypes, RETRY_AFTER_SECONDS, unauthorized } from '../problems.js';
import type { Readiness } from '../readiness.js';

export interface OpsRouteOptions {
  readiness: (log: FastifyBaseLogger) => Promise<Readiness>;
  metrics?: ApiMetrics | undefined;
  /** When set, GET /metrics needs `Authorization: Bearer <metricsToken>`. */
  metricsToken?: string | undefined;
  /** Without a metricsToken, GET /metrics is not served (404). */
  production?: boolean | undefined;
}

type App = Parameters<FastifyPluginAsyncZod>[0];

function problemPages(app: App): void {
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
}

function prometheusMetrics(app: App, options: OpsRouteOptions, metrics: ApiMetrics): void {
  const token = options.metricsToken ? new BearerSecret(options.metricsToken) : null;
  app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
    // The schedule gauges name every tenant with its volumes: in production they need the token.
    if (!token && options.production) {
      throw new HttpProblem(
        'not-found',
        'GET /metrics is not served without SCHEDULER_METRICS_TOKEN in production: set it and send `Authorization: Bearer <token>`, or scrape the worker on SCHEDULER_METRICS_PORT',
        { code: 'NOT_FOUND' },
      );
    }
    if (token && !token.matches(request.headers.authorization)) {
      throw unauthorized(
        request.headers.authorization,
        'the metrics token is not valid',
        'missing Authorization header: send `Authorization: Bearer <SCHEDULER_METRICS_TOKEN>`',
      );
    }
    return reply.type('text/plain; version=0.0.4; charset=utf-8').send(await metrics.render());
  });
}

function probes(app: App, readiness: OpsRouteOptions['readiness']): void {
  app.get(
    '/healthz',
    {
      schema: { tags: ['operations'], summary: 'The process is up', security: [], response: { 200: Health } },
      // A liveness probe must never be refused: this answer costs nothing, so it is not limited.
      config: { rateLimit: false },
    },
    async () => ({ status: 'ok' as const, checks: { process: 'up' } }),
  );
  app.get(
    '/readyz',
    {
      schema: {
        tags: ['operations'],
        summary: 'Temporal is reachable and a scheduler worker polls its task queue',
        security: [],
        response: { 200: Health, 503: Health },
      },
      // Answered from the readiness cache (one check per interval, whoever asks): as cheap as /healthz, and
      // a load balancer's health checks must not share a bucket its callers can empty.
      config: { rateLimit: false },
    },
    async (request, reply) => {
      const checks = await readiness(request.log);
      const ready = checks.temporal === 'reachable' && checks.worker === 'poller seen';
      if (!ready) reply.code(503).header('retry-after', String(RETRY_AFTER_SECONDS));
      return { status: ready ? ('ok' as const) : ('unavailable' as const), checks: { ...checks } };
    },
  );
  // Kept for scripts written against 0.1: the same as /readyz's Temporal check.
  app.get('/v1/health', { schema: { hide: true }, config: { rateLimit: false } }, async (request, reply) => {
    const { temporal } = await readiness(request.log);
    if (temporal === 'reachable') return { status: 'ok', temporal };
    return reply
      .code(503)
      .header('retry-after', String(RETRY_AFTER_SECONDS))
      .send({ status: 'unavailable', temporal });
  });
}

export const opsRoutes: FastifyPluginAsyncZod<OpsRouteOptions> = async (app, options) => {
  problemPages(app);
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  if (options.metrics) prometheusMetrics(app, options, options.metrics);
  probes(app, options.readiness);
};
