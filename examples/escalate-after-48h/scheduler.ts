// A Temporal client and the scheduler's SDK client, as the worker and the scripts make them.
import { Client, Connection } from '@temporalio/client';
import { SchedulerClient } from '../../src/api/client.js';
import { temporalAddress, temporalNamespace } from '../shared.js';

export async function connect(): Promise<{
  client: Client;
  scheduler: SchedulerClient;
  close(): Promise<void>;
}> {
  const connection = await Connection.connect({ address: temporalAddress, connectTimeout: 5000 }).catch(
    (err: Error) => {
      throw new Error(
        `Temporal at ${temporalAddress} is not reachable (${err.message}): is \`npm start\` running? (set TEMPORAL_ADDRESS otherwise)`,
      );
    },
  );
  const client = new Client({ connection, namespace: temporalNamespace });
  const scheduler = new SchedulerClient({
    client,
    taskQueue: process.env.TEMPORAL_TASK_QUEUE || 'durable-scheduler', // the scheduler's worker
    jobTaskQueue: process.env.SCHEDULER_JOB_TASK_QUEUE || 'jobs',
    // The principal `npm start`'s development key stands for, so the escalations show up in the HTTP API
    // (and in `npm run -s cli -- list`) under that key. An owner without any API key would have its
    // schedules stopped the next time the API starts (README "Tenancy").
    principal: {
      tenant_id: process.env.SCHEDULER_TENANT || 'dev',
      owner_ref: process.env.SCHEDULER_OWNER || 'developer',
    },
  });
  return { client, scheduler, close: () => connection.close() };
}
