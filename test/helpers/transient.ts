// The server's transient answers, as a caller of the Temporal client meets them under load: the dev
// server's SQLite interrupted ("14 UNAVAILABLE: … interrupted"), a query no worker took in time
// (DEADLINE_EXCEEDED, "query timed out before a worker could process it"), a schedule's query buffer full
// (RESOURCE_EXHAUSTED). A real caller retries them; a race test retries or counts them and fails on
// anything else: what the SDK itself maps to UNAVAILABLE (src/api/sdk/temporal-errors.ts
// `isTemporalUnavailable`), asked of it rather than numbered again here.
import { randomUUID } from 'node:crypto';
import type { WorkflowHandle } from '@temporalio/client';
import type { UpdateDefinition } from '@temporalio/common';
import { isTemporalUnavailable } from '../../src/api/sdk/temporal-errors.js';

/** A server answer a caller retries: nothing is wrong with the request or the workflow. */
export function isTransientServerError(err: unknown): boolean {
  // Or the SDK's own translation of the same answers.
  return isTemporalUnavailable(err) || (err as { code?: unknown } | undefined)?.code === 'UNAVAILABLE';
}

/** Counts of transient answers met, per kind of call, for a test's log line. */
export class TransientCounter {
  readonly counts = new Map<string, number>();
  add(kind: string): void {
    this.counts.set(kind, (this.counts.get(kind) ?? 0) + 1);
  }
  total(): number {
    return [...this.counts.values()].reduce((a, b) => a + b, 0);
  }
  toString(): string {
    return this.counts.size === 0
      ? 'no transient server answers'
      : `transient server answers: ${[...this.counts].map(([k, n]) => `${n} ${k}`).join(', ')}`;
  }
}

/**
 * `call` again while the server answers transiently (backoff 100 ms doubling to 2 s, up to `attempts`);
 * any other error, or the last transient one, is thrown. `call` gets a stable request ID (an update ID) so
 * that a retry of a call the server did apply is deduplicated, never applied twice.
 */
export async function retryTransient<T>(
  kind: string,
  counter: TransientCounter,
  call: (requestId: string) => Promise<T>,
  attempts = 10,
): Promise<T> {
  const requestId = randomUUID();
  for (let attempt = 1; ; attempt++) {
    try {
      return await call(requestId);
    } catch (err) {
      if (!isTransientServerError(err) || attempt >= attempts) throw err;
      counter.add(kind);
      await new Promise((r) => setTimeout(r, Math.min(100 * 2 ** (attempt - 1), 2_000)));
    }
  }
}

/** `call`, with a transient answer counted instead of thrown (a read racing the schedule, say). */
export async function countTransient<T>(
  kind: string,
  counter: TransientCounter,
  call: () => Promise<T>,
): Promise<T | undefined> {
  try {
    return await call();
  } catch (err) {
    if (!isTransientServerError(err)) throw err;
    counter.add(kind);
    return undefined;
  }
}

/** A workflow update, asked again under the same update ID while the server answers transiently. */
export const updateRetrying = <Ret, Arg>(
  handle: WorkflowHandle,
  update: UpdateDefinition<Ret, [Arg]>,
  arg: Arg,
  counter: TransientCounter,
): Promise<Ret> =>
  retryTransient('updates', counter, (updateId) => handle.executeUpdate(update, { args: [arg], updateId }));

/** Awaits every promise, then throws the first rejection: nothing keeps running past a test's failure. */
export async function settleAll(promises: readonly Promise<unknown>[]): Promise<void> {
  const settled = await Promise.allSettled(promises);
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failed) throw failed.reason;
}
