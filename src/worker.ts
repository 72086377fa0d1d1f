import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Client } from '@temporalio/client';
import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import { createActivities } from './activities/index.js';

// The package's `durable-scheduler/worker` entry: what a deployment needs to run the scheduler's
// workflows and activities, in a worker of its own (`schedulerWorkerOptions` spread into `Worker.create`)
// or in the one `createSchedulerWorker` makes. The namespace needs the scheduler's search attributes once
// (`registerSearchAttributes`).
export { createActivities } from './activities/index.js';
export { registerSearchAttributes } from './runtime/namespace.js';

// Workflows are bundled from source; under tsx this module is .ts, so the bundle entry is too (built, it
// is dist/workflows/index.js next to this file, in a checkout or an installed package alike).
export const workflowsPath = fileURLToPath(
  new URL(`./workflows/index${extname(import.meta.url)}`, import.meta.url),
);

/**
 * Worker tuning for the schedule workflows. Under a burst (a thousand schedules due in one minute) a
 * workflow task waits on the worker's sticky queue longer than the 5 s default; timing it out makes the
 * server reschedule it on the normal queue and the worker replay the whole history, which adds load
 * exactly when there is least room for it (bench/scheduler/lateness.ts measures this).
 */
export const schedulerWorkerTuning = {
  stickyQueueScheduleToStartTimeout: '30s',
} satisfies Partial<WorkerOptions>;

/** The scheduler's part of a worker's options: its workflows, its activities and its tuning. */
export type SchedulerWorkerParts = Required<
  Pick<WorkerOptions, 'workflowsPath' | 'activities' | keyof typeof schedulerWorkerTuning>
>;

/**
 * For a worker you create yourself: `Worker.create({ connection, namespace, taskQueue, ...schedulerWorkerOptions({ client }) })`.
 * `client` is the Temporal client the hand-off activities start and signal your job workflows with.
 */
export function schedulerWorkerOptions(deps: { client: Client }): SchedulerWorkerParts {
  return { workflowsPath, activities: createActivities({ client: deps.client }), ...schedulerWorkerTuning };
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
  /** Client the handoff activities signal target workflows with. */
  client: Client;
};

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
    ...schedulerWorkerOptions({ client: options.client }),
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
