// The HTTP API's infrastructure, before any route: Fastify with the zod type provider, errors as problems
// (framework, socket and handler errors alike), JSON bodies only, a 405 for a known path under another
// method, the OpenAPI document and its UI, then authentication and rate limits (./access.ts). Each step is
// registered in the order a request meets it; moving one changes which answer a request gets.
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import {
  jsonSchemaTransform,
  jsonSchemaTransformObject,
  serializerCompiler,
  validatorCompiler,
} from 'fastify-type-provider-zod';
import FindMyWay, { type HTTPMethod } from 'find-my-way';
import { z } from 'zod';
import { NextRun, Occurrence, Schedule, ScheduleDescription, ScheduleSpec } from '../../model/contracts.js';
import { Problem } from '../../model/http.js';
import type { Principal } from '../auth.js';
import { authenticate, limitRates, throttleFailedAuthentication } from './access.js';
import { DEFAULT_AUTH_FAILURES_PER_MINUTE } from './auth-throttle.js';
import { definitionFieldLabel, methodLabel } from './metric-labels.js';
import type { ApiMetrics } from './metrics.js';
import { HttpProblem, PROBLEM_CONTENT_TYPE, type RenderedProblem, renderProblem } from './problems.js';
import type { ApiDependencies } from './server.js';

export const DEFAULT_BODY_LIMIT_BYTES = 64 * 1024;

const HTTP_METHODS: HTTPMethod[] = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];
/** POST /v1/schedules/{id}/<action> whose body may be left out. */
const OPTIONAL_BODY_ACTIONS = ['pause', 'resume', 'trigger', 'cancel'];
/** Routes whose refused definitions count in `invalidDefinitions`. */
const DEFINITION_ROUTES = new Set(['/v1/schedules', '/v1/schedules/:id', '/v1/preview']);

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal | null;
  }
}

/** The request's path, without its query: what a problem's `instance` names. */
const pathOf = (request: { url: string }): string => request.url.split('?')[0]!;

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

export function sendProblem(reply: FastifyReply, rendered: RenderedProblem) {
  return reply
    .code(rendered.body.status)
    .headers(rendered.headers)
    .type(PROBLEM_CONTENT_TYPE)
    .send(rendered.body);
}

/**
 * An error Node's HTTP server raises before there is a request (headers over its limit, a request that is
 * not HTTP): a problem too, written on the socket, which is then closed as Node does.
 */
function answerOnSocket(err: NodeJS.ErrnoException, socket: Duplex): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const { body } = renderProblem(err, undefined);
  const json = JSON.stringify(body);
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${body.status} ${STATUS_CODES[body.status] ?? body.title}\r\nContent-Type: ${PROBLEM_CONTENT_TYPE}\r\nContent-Length: ${Buffer.byteLength(json)}\r\nConnection: close\r\n\r\n${json}`,
    );
  }
  socket.destroy(err);
}

function createFastify(deps: ApiDependencies): FastifyInstance {
  return Fastify({
    logger: deps.logger ?? false,
    bodyLimit: deps.bodyLimitBytes ?? DEFAULT_BODY_LIMIT_BYTES,
    // `request.ip`, which the per-address limits count by: behind these proxies, the client they forwarded for.
    ...(deps.trustProxy ? { trustProxy: deps.trustProxy } : {}),
    return503OnClosing: true,
    // Longer than any valid ID, so a too-long one is answered by the schema (400 naming params.id).
    routerOptions: { maxParamLength: 1024 },
    // Errors the router raises before a route runs (a malformed %-escape) are problems too.
    frameworkErrors: (err, request, reply) => {
      void sendProblem(reply as unknown as FastifyReply, renderProblem(err, pathOf(request)));
    },
    clientErrorHandler: answerOnSocket,
  });
}

/** Every label from a closed set: the route pattern (not the path), a known method, the status. */
function countRequests(app: FastifyInstance, metrics: ApiMetrics | undefined): void {
  app.addHook('onResponse', async (request, reply) => {
    metrics?.requests.inc({
      route: request.routeOptions.url ?? 'unmatched',
      method: methodLabel(request.method),
      status: String(reply.statusCode),
    });
  });
}

function answerErrorsAsProblems(app: FastifyInstance, metrics: ApiMetrics | undefined): void {
  app.setErrorHandler((err, request, reply) => {
    const rendered = renderProblem(err, pathOf(request));
    if (rendered.internal) request.log.error({ err }, 'internal error');
    // A definition the API refused for what it means or how it is shaped (not a missing key or a conflict).
    if (rendered.body.code === 'VALIDATION' && DEFINITION_ROUTES.has(request.routeOptions.url ?? '')) {
      // The label is the field mapped onto the definition's own fields: a key the caller made up is
      // `unknown_field`, never a series of its own.
      metrics?.invalidDefinitions.inc({ field: definitionFieldLabel(rendered.body.field) });
    }
    return sendProblem(reply, rendered);
  });
}

/** Action endpoints (pause, resume, trigger, cancel) take an optional body: none, or an empty one, is `{}`. */
function acceptOptionalJsonBodies(app: FastifyInstance): void {
  const json = app.getDefaultJsonParser('error', 'error');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (body === '') return done(null, {});
    json(request, body as string, done);
  });
  app.addHook('preValidation', async (request) => {
    if (request.method === 'POST' && request.body == null) request.body = {};
  });
}

/**
 * A path that exists under other methods is a 405 with `Allow`, not a 404: a second router that knows only
 * which methods each registered path has (Fastify's own answers just "no route"). Answers the problem for
 * a request no route takes.
 */
function answerUnroutedRequests(app: FastifyInstance): (request: FastifyRequest) => HttpProblem {
  const methodsOfPaths = FindMyWay();
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) methodsOfPaths.on(method as HTTPMethod, route.url, () => {});
  });
  const noRoute = (request: FastifyRequest): HttpProblem => {
    const path = pathOf(request);
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
  return noRoute;
}

async function registerDocs(app: FastifyInstance): Promise<void> {
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
      // The action endpoints take an optional body (none is `{}`: acceptOptionalJsonBodies): say so.
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
}

/** The app with every hook and plugin a route relies on, in the order requests meet them; no routes yet. */
export async function createApp(deps: ApiDependencies): Promise<FastifyInstance> {
  registerComponents();
  const app = createFastify(deps);
  // Only JSON bodies: anything else is a 415, not a body the schema then misreads.
  app.removeContentTypeParser('text/plain');
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.decorateRequest('principal', null);
  countRequests(app, deps.metrics);
  answerErrorsAsProblems(app, deps.metrics);
  acceptOptionalJsonBodies(app);
  const noRoute = answerUnroutedRequests(app);
  await registerDocs(app);
  throttleFailedAuthentication(
    app,
    deps.authFailuresPerMinute ?? DEFAULT_AUTH_FAILURES_PER_MINUTE,
    deps.now ?? Date.now,
  );
  authenticate(app, deps);
  // An unmatched request is answered before its body is read: a method Fastify reads bodies for (QUERY)
  // must not be judged on its Content-Type when no route takes it at all.
  app.addHook('onRequest', async (request) => {
    if (request.routeOptions.url === undefined) throw noRoute(request);
  });
  await limitRates(app, deps);
  return app;
}
