// A job worker: polls the `jobs` task queue (where `npm start` starts JOB targets that name no
// task_queue) and runs the `source.sync` workflow. Ctrl-C stops it.
import { fileURLToPath } from 'node:url';
import { NativeConnection, Worker } from '@temporalio/worker';
import { run, temporalAddress, temporalNamespace } from '../shared.js';
import { createActivities, ledgerFile } from './activities.js';

const TASK_QUEUE = process.env.SCHEDULER_JOB_TASK_QUEUE || 'jobs';

run(async () => {
  const connection = await NativeConnection.connect({ address: temporalAddress });
  try {
    const worker = await Worker.create({
      connection,
      namespace: temporalNamespace,
      taskQueue: TASK_QUEUE,
      // Workflows are bundled from source (this example runs under tsx, so the file is .ts).
      workflowsPath: fileURLToPath(new URL('./workflows.ts', import.meta.url)),
      activities: createActivities(),
    });
    console.log(
      `[source-sync] worker polling task queue '${TASK_QUEUE}' on ${temporalAddress}; ledger: ${ledgerFile}`,
    );
    await worker.run(); // until SIGINT/SIGTERM (the SDK shuts the worker down on them)
  } finally {
    await connection.close();
  }
});
