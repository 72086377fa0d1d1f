import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Client } from '@temporalio/client';
import { NativeConnection, type ReplayWorkerOptions, Worker, type WorkerOptions } from '@temporalio/worker';
import { createActivities } from './activities/index.js';
import type { TenantPolicy } from './model/tenant-policy.js';

// The package's `durable-scheduler/worker` entry: what a deployment needs to run the scheduler's
// workflows and activities, in a worker of its own (`schedulerWorkerOptions` spread into `Worker.create`)
// or in the one `createSchedulerWorker` makes. The namespace needs the scheduler's search attributes once
// (`registerSearchAttributes`).
export { createActivities } from './activities/index.js';
export { TenantPolicy } from './model/tenant-policy.js';
export { registerSearchAttributes } from './runtime/namespace.js';
export { loadTenantPolicy, type TenantPolicySource } from './runtime/tenant-policy-file.js';

// Workflows are bundled from source; under tsx this module is .ts, so the bundle entry is too (built, it
// is dist/workflows/index.js next to this file, in a checkout or an installed package alike).
export const workflowsPath = fileURLToPath(
  new URL(`./workflows/index${extname(import.meta.url)}`, import.meta.url),
);

/**
 * Workflow interceptor modules the scheduler's workflows run with: the stale-clock guard
 * (workflows/stale-clock-guard.ts) refuses activations sdk-core builds on a previous task's clock. A
 * worker that passes interceptors of its own adds these to its `workflowModules`.
 */
export const schedulerWorkflowInterceptorModules = [
  fileURLToPath(new URL(`./workflows/stale-clock-guard${extname(import.meta.url)}`, import.meta.url)),
];

/** Replaying a schedule's history (`Worker.runReplayHistory`) with what its worker runs. */
export const schedulerReplayOptions = {
  workflowsPath,
  interceptors: { workflowModules: schedulerWorkflowInterceptorModules },
} satisfies ReplayWorkerOptions;

/**
 * Worker tuning for the schedule workflows. Under a burst (a thousand schedules due in one minute) a
 * workflow task waits on the worker's sticky queue longer than the 5 s default; timing it out makes the
 * server reschedule it on the normal queue and the worker replay the whole history, which adds load
 * exactly when there is least room for it (bench/scheduler/lateness.ts measures this).
 *
 * Measured with bench/scheduler/versus-schedules.ts (docs/archive/benchmarks-0.4.2.md, 2026-11-30, 2 shared cores, load
 * 10-20): a cached schedule workflow costs about 2 MiB of worker RSS (1,000 cached: 2.0-2.2 GiB; the SDK
 * default, 2,311 on this machine's heap, reached 4.6 GiB with 10,000 schedules), because the reused V8
 * context instantiates the bundle's modules (zod included, via model/contracts) once per workflow. 0.3's
 * bundle loads no zod: 1,000 cached schedules peaked at 679 MiB (quiet machine, same bench). The cache
 * stays bounded at 1,000: a 1,000-schedule burst still runs from the cache, and schedules beyond
 * it are evicted (a fire replays their short history); 10,000 idle ones left the 0.2 worker at 2.6 GiB,
 * 100,000 idle ones the 0.3 worker at 881 MiB (peak 1,038 MiB). Concurrent workflow
 * tasks: default 40 (A) and 10 (B) at 1,000 due in one minute gave 29.0 / 32.7 s worker CPU and 0.28 /
 * 0.19 task timeouts per fire, in runs under different load: no measurable difference. Pollers, on 0.3
 * on a quiet machine (same bench, `--worker-tuning`, one after the other): SDK defaults p99 31.2 s;
 * 100 concurrent workflow tasks with 40 workflow and 20 activity pollers p99 41.8 s (worse); autoscaling
 * pollers p99 31.6 s (same). The server, not the worker, is what a burst waits on (its persistence
 * serialises the writes: it used 0.8 of a core while the worker idled between tasks), so the SDK defaults
 * stay. The dev server's eager activity execution (`system.enableActivityEagerExecution`) changed
 * nothing measurable either (p99 30.4 vs 31.2 s, 54.8 vs 54.3 ms CPU per fire), so it stays off.
 * reuseV8Context stays on (the default): off, every cached workflow gets its own context. On 0.4 (one
 * task per fire) the worker costs 8.8-9.7 ms CPU per fire in a 1,000 burst; profiled, about a fifth of
 * workflow activation is the SDK's promise hook that records a stack trace per workflow promise (not an
 * option in SDK 1.24) and a larger young generation (--max-semi-space-size=32) changed nothing.
 */
export const schedulerWorkerTuning = {
  stickyQueueScheduleToStartTimeout: '30s',
  maxCachedWorkflows: 1000,
} satisfies Partial<WorkerOptions>;

/** The scheduler's part of a worker's options: its workflows and their interceptors, its activities, its tuning. */
export type SchedulerWorkerParts = Required<
  Pick<WorkerOptions, 'workflowsPath' | 'interceptors' | 'activities' | keyof typeof schedulerWorkerTuning>
>;

/** What the hand-off activities act with, and what they may reach. */
export interface SchedulerWorkerDependencies {
  /** The Temporal client the hand-off activities start and signal your job workflows with. */
  client: Client;
  /**
   * The tenant policy in force, asked at every hand-off (`loadTenantPolicy(...).current`, which follows
   * SCHEDULER_TENANTS_FILE). Required: there is no default reach. `() => TenantPolicy.openToAll()` in
   * development and tests.
   */
  tenantPolicy: () => TenantPolicy;
  /**
   * How long a hand-off whose tenant is missing from the policy is retried before it is recorded refused
   * (SCHEDULER_MISSING_TENANT_GRACE_S; default and bound in src/activities/handoff.ts).
   */
  missingTenantGraceMs?: number;
  /**
   * Wall time one slot activity's calendar search may take on this worker's main thread, which every
   * tenant's hand-offs share (SCHEDULER_WORKER_CALENDAR_BUDGET_MS; default and what happens past it in
   * src/activities/slots.ts).
   */
  slotBudgetMs?: number;
}

/**
 * For a worker you create yourself:
 * `Worker.create({ connection, namespace, taskQueue, ...schedulerWorkerOptions({ client, tenantPolicy }) })`.
 */
export function schedulerWorkerOptions(deps: SchedulerWorkerDependencies): SchedulerWorkerParts {
  return {
    ...schedulerReplayOptions,
    activities: createActivities({
      client: deps.client,
      tenantPolicy: deps.tenantPolicy,
      ...(deps.missingTenantGraceMs !== undefined ? { missingTenantGraceMs: deps.missingTenantGraceMs } : {}),
      ...(deps.slotBudgetMs !== undefined ? { slots: { budgetMs: deps.slotBudgetMs } } : {}),
    }),
    ...schedulerWorkerTuning,
  };
}

export type SchedulerWorkerOptions = (
  | { address: string }
  | {
      /** A connection you made (TLS, API key…); the worker leaves it open when it stops. */
      connection: NativeConnection;
    }
) & {
  namespace: string;
  taskQueue: string;
} & SchedulerWorkerDependencies;

export interface SchedulerWorker {
  worker: Worker;
  /** Runs until shutdown() is called; resolves after in-flight tasks drained and the connection closed. */
  run(): Promise<void>;
  shutdown(): void;
}

export async function createSchedulerWorker(options: SchedulerWorkerOptions): Promise<SchedulerWorker> {
  const owned = 'address' in options;
  const connection = owned
    ? await NativeConnection.connect({ address: options.address })
    : options.connection;
  const worker = await Worker.create({
    connection,
    namespace: options.namespace,
    taskQueue: options.taskQueue,
    ...schedulerWorkerOptions(options),
  });
  return {
    worker,
    run: async () => {
      try {
        await worker.run();
      } finally {
        if (owned) await connection.close();
      }
    },
    shutdown: () => worker.shutdown(),
  };
}
