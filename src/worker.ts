import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Client } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { createActivities } from './activities/index.js';

// Workflows are bundled from source; under tsx this module is .ts, so the bundle entry is too.
export const workflowsPath = fileURLToPath(
  new URL(`./workflows/index${extname(import.meta.url)}`, import.meta.url),
);

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
