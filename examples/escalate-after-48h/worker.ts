// Runs the support tickets: the `supportTicket` workflow and its activities, on task queue `support`.
// Ctrl-C stops it.
import { fileURLToPath } from 'node:url';
import { NativeConnection, Worker } from '@temporalio/worker';
import { run, temporalAddress, temporalNamespace } from '../shared.js';
import { createSupportActivities } from './activities.js';
import { TASK_QUEUE } from './definitions.js';
import { connect } from './scheduler.js';

run(async () => {
  const { scheduler, close } = await connect();
  const connection = await NativeConnection.connect({ address: temporalAddress });
  try {
    const worker = await Worker.create({
      connection,
      namespace: temporalNamespace,
      taskQueue: TASK_QUEUE,
      workflowsPath: fileURLToPath(new URL('./workflows.ts', import.meta.url)),
      activities: createSupportActivities({ scheduler }),
    });
    console.log(`[support] worker polling task queue '${TASK_QUEUE}' on ${temporalAddress}`);
    await worker.run(); // until SIGINT/SIGTERM (the SDK shuts the worker down on them)
  } finally {
    await connection.close();
    await close();
  }
});
