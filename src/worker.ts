import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Client } from '@temporalio/client';
import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import { createActivities } from './activities/index.js';

// Workflows are bundled from source; under tsx this module is .ts, so the bundle entry is too.
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

export interface SchedulerWorkerOptions {
  address: string;
  namespace: string;
  taskQueue: string;
  /** Client the handoff activities signal target workflows with. */
  client: Client;
}

export interface SchedulerWorker {
  worker: Worker;
  /** Runs until shutdown() is called; resolves after in-flight tasks drained and the connection closed. */
  run(): Promise<void>;
  shutdown(): void;
}

export async function createSchedulerWorker(options: SchedulerWorkerOptions): Promise<SchedulerWorker> {
  const connection = await NativeConnection.connect({ address: options.address });
  const worker = await Worker.create({
    connection,
    namespace: options.namespace,
    taskQueue: options.taskQueue,
    workflowsPath,
    activities: createActivities({ client: options.client }),
    ...schedulerWorkerTuning,
  });
  return {
    worker,
    run: async () => {
      try {
        await worker.run();
      } finally {
        await connection.close();
      }
    },
    shutdown: () => worker.shutdown(),
  };
}
