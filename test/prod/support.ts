// The native production stack (scripts/stack-prod.ts) for the tests in test/prod/, which run only with
// `npm run stack:prod:test` (vitest.prod.config.ts; not part of `npm test`: they take minutes to ~20
// minutes of real time). Each test starts its own stack in a temp dir on free ports: PostgreSQL, the
// Temporal server, two scheduler worker processes and the API process, plus a job worker process
// (test/fixtures/worker-process.ts, ROLES=jobs) whose fileRecordedJob appends one line per run to a
// file, so what really ran is counted outside Temporal. Schedules are created, read and cancelled
// through the API process, as a user would.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import { expect } from 'vitest';
import { freePorts, Service, type Stack, startStack } from '../../scripts/stack-prod.js';
import { repoRoot } from '../../scripts/toolchain.mjs';
import type { Occurrence, ScheduleDescription } from '../../src/model/contracts.js';
import { eventually, groupBy, quantile, readRunLines } from '../integration/support.js';

export const TENANT = 'prod';
const API_KEY = 'prod-stack-test-key-0123456789';
const workerScript = fileURLToPath(new URL('../fixtures/worker-process.ts', import.meta.url));

export interface ProdStack extends Stack {
  runLog: string;
  jobWorker: Service;
  client: Client;
  connection: Connection;
  /** Calls the API process; throws on a non-2xx answer. */
  call<T = unknown>(method: string, path: string, body?: unknown): Promise<T>;
  /** Stops everything and removes the temp dir (unless KEEP_STACK=1). */
  teardown(): Promise<void>;
}

export function startJobWorker(address: string, dir: string, runLog: string): Service {
  return new Service(
    'job-worker',
    process.execPath,
    ['--import', 'tsx', workerScript],
    {
      ...process.env,
      TEMPORAL_ADDRESS: address,
      ROLES: 'jobs',
      JOB_QUEUE: 'jobs',
      RUN_LOG: runLog,
      BUNDLE_DIR: join(dir, 'bundles'),
    },
    join(dir, 'logs', 'job-worker.log'),
  );
}

export async function startProdStack(prefix: string): Promise<ProdStack> {
  const dir = mkdtempSync(join(tmpdir(), `ds-prod-${prefix}-`));
  const stack = await startStack({
    dir,
    ports: await freePorts(),
    apiKeys: `${API_KEY}=${TENANT}:ops`,
    log: (line) => console.info(`[${prefix}] ${line}`),
  });
  const runLog = join(dir, 'runs.jsonl');
  const jobWorker = startJobWorker(stack.temporal.address, dir, runLog);
  await jobWorker.waitFor(/ready pid=\d+/, 180_000);
  const connection = await Connection.connect({ address: stack.temporal.address });
  const client = new Client({ connection });
  const call = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const res = await fetch(`${stack.apiUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${API_KEY}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(30_000),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
    return JSON.parse(text) as T;
  };
  return {
    ...stack,
    runLog,
    jobWorker,
    client,
    connection,
    call,
    async teardown() {
      await connection.close().catch(() => {});
      await jobWorker.stop();
      await stack.stop();
      if (process.env.KEEP_STACK !== '1') {
        rmSync(dir, { recursive: true, force: true });
        rmSync(stack.postgres.dataDir, { recursive: true, force: true });
        rmSync(`${stack.postgres.dataDir}.pw`, { force: true });
      }
    },
  };
}

/**
 * GET …/describe, retried while the API answers 503 "retry" (describe is a workflow query: right after
 * a worker was killed, a query can wait for the dead worker's sticky queue to time out first).
 */
export const describeSchedule = (stack: ProdStack, id: string) =>
  eventually(
    `${id}: describe`,
    async () => {
      try {
        return await stack.call<ScheduleDescription>('GET', `/schedules/${id}/describe`);
      } catch (err) {
        if (/: 503 /.test((err as Error).message)) return undefined;
        throw err;
      }
    },
    120_000,
    1000,
  );

export const firedOf = (occurrences: Occurrence[]) => occurrences.filter((o) => o.emitted_at !== null);

/**
 * Cancels the schedules through the API (retrying while the stack recovers) and waits until every job
 * they started has completed, so the run log is complete. Returns each schedule's final record.
 */
export async function cancelAndSettle(
  stack: ProdStack,
  ids: string[],
): Promise<Map<string, ScheduleDescription>> {
  for (const id of ids) {
    await eventually(
      'the cancel to be accepted',
      async () => {
        await stack.call('POST', `/schedules/${id}/cancel`, {});
        return true;
      },
      120_000,
      1000,
    );
  }
  const finals = new Map<string, ScheduleDescription>();
  for (const id of ids) {
    const d = await eventually(
      `${id}: nothing in flight`,
      async () => {
        const d = await describeSchedule(stack, id);
        return d.recent_occurrences.every((o) => o.status !== 'DISPATCHING') ? d : undefined;
      },
      120_000,
      1000,
    );
    finals.set(id, d);
  }
  await eventually(
    'every started job to complete',
    async () => {
      for (const d of finals.values()) {
        for (const o of firedOf(d.recent_occurrences)) {
          const { status } = await stack.client.workflow.getHandle(o.occurrence_id).describe();
          if (status.name !== 'COMPLETED') return undefined;
        }
      }
      return true;
    },
    180_000,
    1000,
  );
  return finals;
}

/** One record per slot of the grid, with no gap and none twice: nothing lost in the schedule's record. */
export function expectContiguousGrid(occurrences: Occurrence[], everyMs: number): void {
  const slots = occurrences.map((o) => Date.parse(o.scheduled_for)).sort((a, b) => a - b);
  expect(new Set(slots).size).toBe(slots.length);
  for (let i = 1; i < slots.length; i++) expect(slots[i]! - slots[i - 1]!).toBe(everyMs);
}

/**
 * What ran, counted outside Temporal: every fired occurrence of these schedules ran as exactly one
 * workflow execution (the one Temporal has under the occurrence ID), and nothing else ran for them.
 * Returns the number of run lines (an activity retried after a kill writes a second line for the same run).
 */
export async function expectEachFiredRanOnce(stack: ProdStack, finals: Map<string, ScheduleDescription>) {
  const lines = readRunLines(stack.runLog);
  const byOccurrence = groupBy(lines, (l) => l.occurrence_id);
  const fired = [...finals.values()].flatMap((d) => firedOf(d.recent_occurrences));
  const ids = new Set(finals.keys());
  // occurrence/<tenant>/<schedule>/<instant>
  const ranForThese = [...byOccurrence.keys()].filter((id) => ids.has(id.split('/')[2] ?? ''));
  expect(ranForThese.sort()).toEqual(fired.map((o) => o.occurrence_id).sort());
  for (const o of fired) {
    const runs = byOccurrence.get(o.occurrence_id)!;
    const { runId } = await stack.client.workflow.getHandle(o.occurrence_id).describe();
    expect(new Set(runs.map((r) => r.run_id)), o.occurrence_id).toEqual(new Set([runId]));
    expect(runs[0]!.scheduled_for).toBe(o.scheduled_for);
  }
  return lines.filter((l) => byOccurrence.has(l.occurrence_id)).length;
}

/** Lateness of the fired occurrences (emitted_at - fire_at), for the report. */
export function latenessSummary(occurrences: Occurrence[]): string {
  const ms = firedOf(occurrences)
    .map((o) => Date.parse(o.emitted_at!) - Date.parse(o.fire_at))
    .sort((a, b) => a - b);
  if (ms.length === 0) return 'none fired';
  return `p50 ${quantile(ms, 0.5)} ms, p99 ${quantile(ms, 0.99)} ms, max ${ms.at(-1)} ms over ${ms.length}`;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, Math.max(ms, 0)));
export { eventually, repoRoot };
