// The HTTP API as a user reaches it, for the integration tests: a real dev server, the real scheduler worker,
// a worker for test jobs, and the API listening on a real port. Every response a test reads through `call`
// is checked against the OpenAPI document the API itself serves (status documented, media type, schema),
// so the document cannot drift from what the API answers.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { Worker } from '@temporalio/worker';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { FastifyInstance } from 'fastify';
import { KeyRing } from '../../src/api/auth.js';
import { buildApi } from '../../src/api/http/server.js';
import { TenantPolicy } from '../../src/model/tenant-policy.js';
import { createSchedulerWorker, type SchedulerWorker } from '../../src/worker.js';
import { JOB_QUEUE, SCHEDULER_QUEUE, type Stack, startStack, stopStack } from '../integration/support.js';
import type { DevServerExtras } from './servers.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => void;
const jobWorkflows = fileURLToPath(new URL('../fixtures/jobs.ts', import.meta.url));

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

export interface CallOptions {
  key?: string | null;
  body?: unknown;
  /** Sent as is (for malformed JSON); sets content-type application/json unless `headers` say otherwise. */
  rawBody?: string;
  headers?: Record<string, string>;
}

type OpenApiDocument = {
  paths: Record<
    string,
    Record<string, { responses: Record<string, { content?: Record<string, { schema: unknown }> }> }>
  >;
  components?: unknown;
};

/** Validates responses against an OpenAPI 3.1 document (JSON Schema 2020-12 bodies). */
export class OpenApiResponseValidator {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true });
  private readonly compiled = new Map<string, ValidateFunction>();
  readonly checked: string[] = [];

  constructor(readonly doc: OpenApiDocument) {
    addFormats(this.ajv);
  }

  private operation(method: string, path: string) {
    for (const [template, operations] of Object.entries(this.doc.paths)) {
      const pattern = new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`);
      if (pattern.test(path)) {
        const op = operations[method.toLowerCase()];
        if (op) return { template, op };
      }
    }
    return null;
  }

  /** Throws with a readable message when the response is not what the document promises. */
  check(method: string, url: string, status: number, contentType: string | null, body: unknown): void {
    const path = url.split('?')[0]!;
    const found = this.operation(method, path);
    if (!found) {
      // Unknown routes answer 404 problems, a known path under another method 405; everything else must be
      // documented.
      if (status === 404 || status === 405) return;
      throw new Error(`${method} ${path} is not in the OpenAPI document`);
    }
    const response = found.op.responses[String(status)];
    if (!response) {
      throw new Error(
        `${method} ${found.template} answered ${status}, which the OpenAPI document does not list (${Object.keys(found.op.responses).join(', ')})`,
      );
    }
    this.checked.push(`${method} ${found.template} ${status}`);
    if (!response.content) {
      if (body !== undefined && body !== '')
        throw new Error(`${method} ${found.template} ${status}: body not documented`);
      return;
    }
    const mediaType = (contentType ?? '').split(';')[0]!.trim();
    const media = response.content[mediaType];
    if (!media) {
      throw new Error(
        `${method} ${found.template} ${status}: media type ${mediaType} not documented (${Object.keys(response.content).join(', ')})`,
      );
    }
    const key = `${method} ${found.template} ${status} ${mediaType}`;
    let validate = this.compiled.get(key);
    if (!validate) {
      // References are `#/components/schemas/…`: compile with the document's components at the root.
      validate = this.ajv.compile({ ...(media.schema as object), components: this.doc.components });
      this.compiled.set(key, validate);
    }
    if (!validate(body)) {
      throw new Error(
        `${method} ${found.template} ${status} does not match the OpenAPI schema: ${this.ajv.errorsText(validate.errors)}\n${JSON.stringify(body).slice(0, 2000)}`,
      );
    }
  }
}

export interface ApiStack {
  stack: Stack;
  app: FastifyInstance;
  base: string;
  validator: OpenApiResponseValidator;
  /** Occurrence IDs of the JOB runs (`recordedJob` on the jobs queue), in start order. */
  jobRuns: string[];
  /** Replaces the key configuration, as a reloaded key file would. */
  setKeys(spec: string): void;
  /** Replaces the tenant policy of the API and the worker, as a reloaded SCHEDULER_TENANTS_FILE would. */
  setTenantPolicy(policy: TenantPolicy): void;
  call<T = any>(method: string, path: string, options?: CallOptions): Promise<ApiResponse<T>>;
  stopWorker(): Promise<void>;
  startWorker(): Promise<void>;
  stop(): Promise<void>;
}

export interface ApiStackOptions {
  keys: string;
  /** Default: every tenant reaches every target. */
  tenantPolicy?: TenantPolicy;
  rateLimitPerMinute?: number;
  /**
   * Default 0, no limit: the suites send scores of invalid keys from 127.0.0.1 on purpose
   * (test/unit/http-auth-throttle.test.ts tests the limit).
   */
  authFailuresPerMinute?: number;
  temporalTimeoutMs?: number;
  /** ApiDependencies.now: the clock of the API's own windows (a TestClock's `now`); default Date.now. */
  now?: () => number;
  /** What the dev server sets beyond the defaults. */
  server?: DevServerExtras;
  /** Serve the console under /console/ (ApiDependencies.console). */
  console?: boolean;
}

export interface InProcessSchedulerWorker {
  worker: SchedulerWorker;
  /** `worker.run()`: settles once the worker has stopped. */
  done: Promise<void>;
  /** Shuts the worker down and waits for it to stop, however its run ended. */
  stop(): Promise<void>;
}

/** The real scheduler worker, run in this process against the stack's dev server on SCHEDULER_QUEUE. */
export async function runSchedulerWorker(
  stack: Stack,
  tenantPolicy: () => TenantPolicy,
): Promise<InProcessSchedulerWorker> {
  const worker = await createSchedulerWorker({
    address: stack.server.address,
    namespace: 'default',
    taskQueue: SCHEDULER_QUEUE,
    client: stack.client,
    tenantPolicy,
  });
  const done = worker.run();
  return {
    worker,
    done,
    stop: async () => {
      worker.shutdown();
      await done.catch(() => {});
    },
  };
}

/**
 * A call with an API key to an API other than startApiStack's (not checked against the OpenAPI document):
 * the body as JSON, null when there is none or it is not JSON.
 */
export async function callWithKey(
  base: string,
  key: string,
  method: string,
  path: string,
  body?: unknown,
  // biome-ignore lint/suspicious/noExplicitAny: problem and schedule bodies
): Promise<{ status: number; body: any }> {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${key}`,
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return { status: response.status, body: await response.json().catch(() => null) };
}

export async function startApiStack(prefix: string, options: ApiStackOptions): Promise<ApiStack> {
  const stack = await startStack(prefix, options.server);
  const jobRuns: string[] = [];
  let ring = KeyRing.fromConfig({ keys: options.keys });
  let tenantPolicy = options.tenantPolicy ?? TenantPolicy.openToAll();
  let scheduler: InProcessSchedulerWorker | null = null;
  const startSchedulerWorker = async () => {
    scheduler = await runSchedulerWorker(stack, () => tenantPolicy);
  };
  await startSchedulerWorker();
  const jobs = await Worker.create({
    connection: await (await import('@temporalio/worker')).NativeConnection.connect({
      address: stack.server.address,
    }),
    taskQueue: JOB_QUEUE,
    workflowsPath: jobWorkflows,
    activities: {
      jobStarted: async (occurrenceId: string) => {
        jobRuns.push(occurrenceId);
      },
      jobFinished: async () => {},
    },
  });
  const jobsDone = jobs.run();

  const app = await buildApi({
    client: stack.client,
    taskQueue: SCHEDULER_QUEUE,
    jobTaskQueue: JOB_QUEUE,
    keys: () => ring,
    tenantPolicy: () => tenantPolicy,
    ...(options.rateLimitPerMinute ? { rateLimitPerMinute: options.rateLimitPerMinute } : {}),
    authFailuresPerMinute: options.authFailuresPerMinute ?? 0,
    ...(options.temporalTimeoutMs ? { temporalTimeoutMs: options.temporalTimeoutMs } : {}),
    ...(options.now ? { now: options.now } : {}),
    ...(options.console ? { console: true } : {}),
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  const validator = new OpenApiResponseValidator(
    (await (await fetch(`${base}/openapi.json`)).json()) as OpenApiDocument,
  );

  const call = async <T>(
    method: string,
    path: string,
    callOptions: CallOptions = {},
  ): Promise<ApiResponse<T>> => {
    const headers: Record<string, string> = { ...(callOptions.headers ?? {}) };
    if (callOptions.key) headers.authorization = `Bearer ${callOptions.key}`;
    let body: string | undefined;
    if (callOptions.rawBody !== undefined) body = callOptions.rawBody;
    else if (callOptions.body !== undefined) body = JSON.stringify(callOptions.body);
    if (body !== undefined) headers['content-type'] ??= 'application/json';
    const response = await fetch(`${base}${path}`, {
      method,
      headers,
      ...(body !== undefined ? { body } : {}),
    });
    const text = await response.text();
    const contentType = response.headers.get('content-type');
    const parsed = text && /json/.test(contentType ?? '') ? JSON.parse(text) : text || undefined;
    validator.check(method, path, response.status, contentType, parsed);
    return { status: response.status, headers: response.headers, body: parsed as T };
  };

  return {
    stack,
    app,
    base,
    validator,
    jobRuns,
    setKeys: (spec) => {
      ring = KeyRing.fromConfig({ keys: spec });
    },
    setTenantPolicy: (policy) => {
      tenantPolicy = policy;
    },
    call,
    stopWorker: async () => {
      const current = scheduler as InProcessSchedulerWorker | null;
      if (!current) return;
      current.worker.shutdown();
      await current.done;
      scheduler = null;
    },
    startWorker: startSchedulerWorker,
    stop: async () => {
      await app.close();
      await (scheduler as InProcessSchedulerWorker | null)?.stop();
      jobs.shutdown();
      await jobsDone.catch(() => {});
      await stopStack(stack);
    },
  };
}

export interface ReceivedEvent {
  headers: IncomingMessage['headers'];
  body: any;
  at: number;
}

/** A local HTTP sink that records the CloudEvents POSTed to it (status 204). */
export async function startEventSink(): Promise<{
  url: string;
  events: ReceivedEvent[];
  close(): Promise<void>;
}> {
  const events: ReceivedEvent[] = [];
  const server: Server = createServer((request, response) => {
    let data = '';
    request.on('data', (chunk) => {
      data += chunk;
    });
    request.on('end', () => {
      events.push({ headers: request.headers, body: data ? JSON.parse(data) : null, at: Date.now() });
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks/scheduler`,
    events,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** A sink that accepts CloudEvents but answers none while it holds (from the start, and after `hold()`) until `release()`. */
export async function startHoldingEventSink() {
  const held: Array<() => void> = [];
  let holding = true;
  let received = 0;
  const server: Server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      received += 1;
      const answer = () => response.writeHead(204).end();
      if (holding) held.push(answer);
      else answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received: () => received,
    hold() {
      holding = true;
    },
    release() {
      holding = false;
      for (const answer of held.splice(0)) answer();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
