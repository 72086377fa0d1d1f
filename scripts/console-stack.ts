// The product as the console's browser test and its screenshots see it: test/helpers/http-api.ts's stack (a
// real dev server, the real scheduler worker, the HTTP API on a free port) with the console on
// (SCHEDULER_CONSOLE=on) and two tenants' keys. Used by test/integration/console.test.ts and
// scripts/console-screenshots.ts.
import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { DEFAULT_AUTH_FAILURES_PER_MINUTE } from '../src/api/http/auth-throttle.js';
import { startApiStack } from '../test/helpers/http-api.js';
import type { Stack } from '../test/integration/support.js';

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
  const keys = { acme: newKey(), globex: newKey() };
  const api = await startApiStack(prefix, {
    keys: `${keys.acme}=acme:ops,${keys.globex}=globex:ops`,
    // A browser meets the product's limit on refused keys, not the suites' none.
    authFailuresPerMinute: DEFAULT_AUTH_FAILURES_PER_MINUTE,
    console: true,
  });
  const call = async (key: string, method: string, path: string, body?: unknown) => {
    for (let attempt = 0; ; attempt++) {
      const response = await api.call<Record<string, unknown> | undefined>(method, path, {
        key,
        ...(body !== undefined ? { body } : {}),
      });
      if ((response.status === 429 || response.status === 503) && attempt < 5) {
        const after = Number(response.headers.get('retry-after')) || 1;
        await new Promise((resolve) => setTimeout(resolve, Math.min(after, 30) * 1000));
        continue;
      }
      return { status: response.status, body: response.body ?? null };
    }
  };
  return { base: api.base, app: api.app, stack: api.stack, keys, call, stop: api.stop };
}
