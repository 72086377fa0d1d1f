// The product's own worker process (`src/main.ts`, SCHEDULER_ROLE=worker) on a test stack, configured by
// environment as an operator configures it, and the Prometheus text it serves on SCHEDULER_METRICS_PORT.
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from '../../src/runtime/ports.js';
import { JOB_QUEUE, type Stack, spawnProduct } from '../integration/support.js';
import type { Spawned } from './process.js';
import { writeTenantsFile } from './tenants.js';

export interface ProductWorker extends Spawned {
  /** Its Prometheus text (only with `metrics: true`). */
  scrape(): Promise<string>;
  /** SIGTERM, as an orchestrator stops it, and its exit. */
  stop(): Promise<void>;
}

/**
 * A worker-only product process polling the stack's scheduler queue (override TEMPORAL_TASK_QUEUE in `env`
 * for one that should poll nothing the test uses). `metrics`: serve /metrics on a free port. Resolves once it
 * says it is ready.
 */
export async function startProductWorker(
  stack: Stack,
  env: Record<string, string> = {},
  options: { metrics?: boolean; timeoutMs?: number } = {},
): Promise<ProductWorker> {
  const metricsPort = options.metrics ? await freePort() : null;
  const dataDir = mkdtempSync(join(stack.dir, 'worker-'));
  const spawned = spawnProduct(stack, {
    SCHEDULER_ROLE: 'worker',
    SCHEDULER_JOB_TASK_QUEUE: JOB_QUEUE,
    SCHEDULER_DATA_DIR: dataDir,
    // A worker on a named server is production and will not start without a policy (issue 38): by
    // default one that lists no tenant, for workers whose test hands nothing off.
    SCHEDULER_TENANTS_FILE: writeTenantsFile(dataDir, {}),
    ...(metricsPort ? { SCHEDULER_METRICS_PORT: String(metricsPort) } : {}),
    ...env,
  });
  await spawned.waitFor(/ready; Ctrl-C/, options.timeoutMs ?? 120_000);
  return Object.assign(spawned, {
    async scrape() {
      if (!metricsPort) throw new Error('started without metrics');
      return await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    },
    async stop() {
      if (spawned.child.exitCode === null && spawned.child.signalCode === null) spawned.child.kill('SIGTERM');
      await spawned.exit;
    },
  });
}

/** The value of one Prometheus sample, summed over the label sets that carry every label given. */
export function promSample(text: string, name: string, labels: Record<string, string> = {}): number {
  let total = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (!Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`))) continue;
    total += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return total;
}
