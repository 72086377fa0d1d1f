// Shared by the integration tests that run the scheduler in real processes (worker-crash, worker-outage)
// and by bench/scheduler: a dev server with the product's search attributes, worker processes
// (test/fixtures/worker-process.ts) that can be SIGKILLed and restarted, and the run log they write.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import { repoRoot } from '../../scripts/toolchain.mjs';
import { SchedulerClient } from '../../src/api/client.js';
import type { ScheduleSpecInput } from '../../src/model/contracts.js';
import type { DevServer } from '../../src/runtime/dev-server.js';
import { registerSearchAttributes } from '../../src/runtime/namespace.js';
import { freePort } from '../../src/runtime/ports.js';
import type { RunLine } from '../fixtures/durable-jobs.js';
import { type Spawned, spawnProcess } from '../helpers/process.js';
import { JOB_QUEUE, SCHEDULER_QUEUE, startScheduleDirectly } from '../helpers/schedule-workflow.js';
import { type DevServerExtras, startTestDevServer, tempDir } from '../helpers/servers.js';
import { OPEN_TARGETS, writeTenantsFile } from '../helpers/tenants.js';
import { settleAll } from '../helpers/transient.js';

export { JOB_QUEUE, SCHEDULER_QUEUE };

const workerScript = fileURLToPath(new URL('../fixtures/worker-process.ts', import.meta.url));

export interface Stack {
  dir: string;
  server: DevServer;
  connection: Connection;
  client: Client;
  sdk: SchedulerClient;
  /** Every worker process started so far (for cleanup). */
  processes: Spawned[];
}

/**
 * A dev server that purges a deleted closed workflow within a second: the server deletes a run only once its
 * transfer queue has acknowledged the close, which it records every 30 s by default (a production server
 * takes that long too; a test need not wait).
 */
export const PROMPT_PURGE: DevServerExtras = {
  dynamicConfig: { 'history.transferProcessorUpdateAckInterval': '1s' },
};

/** A fresh dev server (own SQLite file in a temp dir) with the scheduler's search attributes registered. */
export async function startStack(
  prefix: string,
  server: DevServerExtras = {},
  /**
   * The SDK's arm lead and how far it arms ahead (default the product's); lead 0 for tests of jobs started
   * at their instant, ahead 0 for tests of the lead alone.
   */
  sdkOptions: { armLeadMs?: number; armAheadMs?: number } = {},
): Promise<Stack> {
  const dir = tempDir(prefix);
  const devServer = await startTestDevServer(join(dir, 'temporal.db'), undefined, server);
  const connection = await Connection.connect({ address: devServer.address });
  await registerSearchAttributes(connection, 'default');
  const client = new Client({ connection });
  const sdk = new SchedulerClient({
    client,
    taskQueue: SCHEDULER_QUEUE,
    jobTaskQueue: JOB_QUEUE,
    principal: { tenant_id: 'acme', owner_ref: 'ops' },
    ...sdkOptions,
  });
  return { dir, server: devServer, connection, client, sdk, processes: [] };
}

export interface WorkerProcess extends Spawned {
  /** When it started polling (epoch ms, its own clock: the same machine's). */
  pollingAt: number;
}

/** Starts a worker process and resolves once it polls. Workflow bundles are cached in the stack's dir. */
export async function startWorker(
  stack: Stack,
  env: Record<string, string> = {},
  timeoutMs = 120_000,
  /** Node's own flags for the process (a benchmark's `--cpu-prof`). */
  nodeArgs: string[] = [],
): Promise<WorkerProcess> {
  const spawned = spawnProcess(
    process.execPath,
    [...nodeArgs, '--import', 'tsx', workerScript],
    {
      ...process.env,
      TEMPORAL_ADDRESS: stack.server.address,
      SCHEDULER_QUEUE,
      JOB_QUEUE,
      BUNDLE_DIR: join(stack.dir, 'bundles'),
      ...env,
    },
    repoRoot,
  );
  stack.processes.push(spawned);
  await spawned.waitFor(/ready pid=\d+ polling_at=\d+/, timeoutMs);
  const pollingAt = Number(/ready pid=\d+ polling_at=(\d+)/.exec(spawned.output())![1]);
  return Object.assign(spawned, { pollingAt });
}

/**
 * A schedule of tenant acme whose workflow is started directly, past the API and its checks: raced by a
 * test, or standing for one created before a check existed. `createdAtMs` in the past makes slots due soon.
 */
export function startScheduleWorkflow(
  stack: Stack,
  schedule: { scheduleId: string; spec: ScheduleSpecInput; ownerRef?: string; createdAtMs?: number },
) {
  const { createdAtMs, ...rest } = schedule;
  return startScheduleDirectly(stack.client, {
    ...rest,
    ...(createdAtMs !== undefined ? { createdAt: new Date(createdAtMs).toISOString() } : {}),
  });
}

/** SIGKILL, as a crash or an OOM kill would: nothing is flushed, no graceful shutdown. */
export async function killHard(p: Spawned): Promise<number> {
  if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
  await p.exit;
  return Date.now();
}

export async function stopStack(stack: Stack | undefined): Promise<void> {
  if (!stack) return;
  await Promise.all(stack.processes.map(killHard));
  await stack.connection.close().catch(() => {});
  await stack.server.kill();
  rmSync(stack.dir, { recursive: true, force: true });
}

export function readRunLines(file: string): RunLine[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as RunLine);
}

/** Polls `probe` until it returns a value (not undefined), or fails with `what` after `timeoutMs`. */
export async function eventually<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  timeoutMs: number,
  everyMs = 250,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) {
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${what}${last ? ` (last error: ${(last as Error).message})` : ''}`,
      );
    }
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/**
 * `call` between two reads of this machine's clock. The dev server runs on the same machine, so a stamp it
 * makes while serving the call lies in [before, after]: a test compares server times with that window, so
 * the error it allows is the round trip it measured, never a guessed constant.
 */
export async function bracketed<T>(
  call: () => Promise<T>,
): Promise<{ value: T; before: number; after: number }> {
  const before = Date.now();
  const value = await call();
  return { value, before, after: Date.now() };
}

/** Map.groupBy (Node 21+), for Node 20. */
export function groupBy<T, K>(items: Iterable<T>, key: (item: T) => K): Map<K, T[]> {
  const groups = new Map<K, T[]>();
  for (const item of items) {
    const k = key(item);
    const list = groups.get(k);
    if (list) list.push(item);
    else groups.set(k, [item]);
  }
  return groups;
}

/**
 * Runs `fn` over `items` with at most `limit` in flight; results in input order. After a failure no new
 * item starts, and the first error is thrown once every item in flight has ended (a test's teardown must
 * not close the clients those items still use).
 */
export async function pool<T, R>(
  items: T[],
  limit: number,
  fn: (item: T, i: number) => Promise<R>,
): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  let failed = false;
  await settleAll(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length && !failed) {
        const i = next++;
        try {
          out[i] = await fn(items[i]!, i);
        } catch (err) {
          failed = true;
          throw err;
        }
      }
    }),
  );
  return out;
}

/** What a process used so far, from Linux /proc (NaN elsewhere or once it exited): user + system CPU
 * seconds, resident set size now and its peak (bytes). */
export function procStats(pid: number | undefined): { cpuS: number; rssBytes: number; peakRssBytes: number } {
  let cpuS = Number.NaN;
  let rssBytes = Number.NaN;
  let peakRssBytes = Number.NaN;
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    cpuS = (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (USER_HZ 100)
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1]) * 1024;
    rssBytes = kb('VmRSS');
    peakRssBytes = kb('VmHWM');
  } catch {}
  return { cpuS, rssBytes, peakRssBytes };
}

/** The q-quantile of ascending `sorted` (nearest rank); NaN when empty. */
export function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

export interface ApiProcess extends Spawned {
  base: string;
  /** A request to the API with tenant key `key` (null: none); the body parsed when it is JSON. */
  call<T = any>(
    method: string,
    path: string,
    options?: { key?: string | null; body?: unknown },
  ): Promise<{ status: number; headers: Headers; body: T }>;
}

/**
 * The product (`src/main.ts`) as its own process on the stack's dev server and scheduler queue; `env` adds
 * or overrides variables (the role, ports, keys). Killed with the stack.
 */
export function spawnProduct(stack: Stack, env: Record<string, string>): Spawned {
  const spawned = spawnProcess(
    process.execPath,
    ['--import', 'tsx', join(repoRoot, 'src/main.ts')],
    { ...process.env, TEMPORAL_ADDRESS: stack.server.address, TEMPORAL_TASK_QUEUE: SCHEDULER_QUEUE, ...env },
    repoRoot,
  );
  stack.processes.push(spawned);
  return spawned;
}

/**
 * The product's HTTP API as its own process (`src/main.ts` with SCHEDULER_ROLE=api), against the stack's
 * dev server and the scheduler queue its worker processes poll: what a deployment runs. `keys` is
 * SCHEDULER_API_KEYS; every tenant in them may reach every target (a tenants file with open quotas);
 * `env` adds or overrides variables. Resolves once the API answers /healthz.
 */
export async function startApiProcess(
  stack: Stack,
  keys: string,
  env: Record<string, string> = {},
  timeoutMs = 90_000,
): Promise<ApiProcess> {
  const tenants = Object.fromEntries(
    keys.split(',').map((entry) => [entry.split('=')[1]!.split(':')[0]!, OPEN_TARGETS]),
  );
  const dataDir = mkdtempSync(join(stack.dir, 'api-'));
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const spawned = spawnProduct(stack, {
      SCHEDULER_ROLE: 'api',
      SCHEDULER_JOB_TASK_QUEUE: JOB_QUEUE,
      SCHEDULER_API_PORT: String(port),
      SCHEDULER_API_KEYS: keys,
      SCHEDULER_TENANTS_FILE: writeTenantsFile(dataDir, tenants),
      SCHEDULER_DATA_DIR: dataDir,
      SCHEDULER_API_RATE_LIMIT: '1000000',
      ...env,
    });
    const started = await spawned.waitFor(/ready; Ctrl-C stops everything/, timeoutMs).then(
      () => true,
      (err: Error) => {
        // The port was chosen free, then bound seconds later: another process may have taken it.
        if (attempt >= 3 || !/SCHEDULER_API_PORT|EADDRINUSE/.test(spawned.output())) throw err;
        return false;
      },
    );
    if (!started) continue;
    const base = `http://127.0.0.1:${port}`;
    const call: ApiProcess['call'] = async (method, path, options = {}) => {
      const headers: Record<string, string> = {};
      if (options.key) headers.authorization = `Bearer ${options.key}`;
      if (options.body !== undefined) headers['content-type'] = 'application/json';
      const response = await fetch(`${base}${path}`, {
        method,
        headers,
        ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
      });
      const text = await response.text();
      const json = /json/.test(response.headers.get('content-type') ?? '') && text ? JSON.parse(text) : text;
      return { status: response.status, headers: response.headers, body: json };
    };
    return Object.assign(spawned, { base, call });
  }
}
