// The product as the console's browser test and its screenshots see it: a real dev server, the real
// scheduler worker, and the HTTP API with the console on (SCHEDULER_CONSOLE=on), listening on a free port,
// with two tenants' keys. Used by test/integration/console.test.ts and scripts/console-screenshots.ts.
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { KeyRing } from '../src/api/auth.js';
import { buildApi } from '../src/api/http/server.js';
import { TenantPolicy } from '../src/model/tenant-policy.js';
import { createSchedulerWorker } from '../src/worker.js';
import {
  JOB_QUEUE,
  SCHEDULER_QUEUE,
  type Stack,
  startStack,
  stopStack,
} from '../test/integration/support.js';

export interface ConsoleStack {
  base: string;
  app: FastifyInstance;
  stack: Stack;
  /** Tenant `acme`'s key and tenant `globex`'s. */
  keys: { acme: string; globex: string };
  /** A /v1 call with a key; 429 and 503 retried as Retry-After says (as the console does). */
  call(
    key: string,
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{ status: number; body: Record<string, unknown> | null }>;
  stop(): Promise<void>;
}

const newKey = () => `sk_${randomBytes(24).toString('base64url')}`;

export async function startConsoleStack(prefix: string): Promise<ConsoleStack> {
  const stack = await startStack(prefix);
  const keys = { acme: newKey(), globex: newKey() };
  const ring = KeyRing.fromConfig({ keys: `${keys.acme}=acme:ops,${keys.globex}=globex:ops` });
  const tenantPolicy = TenantPolicy.openToAll();
  const worker = await createSchedulerWorker({
    address: stack.server.address,
    namespace: 'default',
    taskQueue: SCHEDULER_QUEUE,
    client: stack.client,
    tenantPolicy: () => tenantPolicy,
  });
  const workerDone = worker.run();
  const app = await buildApi({
    client: stack.client,
    taskQueue: SCHEDULER_QUEUE,
    jobTaskQueue: JOB_QUEUE,
    keys: () => ring,
    tenantPolicy: () => tenantPolicy,
    console: true,
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  const call = async (key: string, method: string, path: string, body?: unknown) => {
    for (let attempt = 0; ; attempt++) {
      const response = await fetch(`${base}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${key}`,
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
      if ((response.status === 429 || response.status === 503) && attempt < 5) {
        const after = Number(response.headers.get('retry-after')) || 1;
        await new Promise((resolve) => setTimeout(resolve, Math.min(after, 30) * 1000));
        continue;
      }
      const text = await response.text();
      return { status: response.status, body: text ? JSON.parse(text) : null };
    }
  };
  return {
    base,
    app,
    stack,
    keys,
    call,
    stop: async () => {
      await app.close();
      worker.shutdown();
      await workerDone.catch(() => {});
      await stopStack(stack);
    },
  };
}
