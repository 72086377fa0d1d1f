import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { afterEach, describe, expect, it } from 'vitest';
import type { DevServer } from '../../src/runtime/dev-server.js';
import { startTestDevServer, tempDir } from '../helpers/servers.js';

const fixtures = fileURLToPath(new URL('../fixtures/workflows.ts', import.meta.url));
const taskQueue = 'restart-test';

async function withWorker<T>(address: string, body: () => Promise<T>): Promise<T> {
  const connection = await NativeConnection.connect({ address });
  try {
    const worker = await Worker.create({ connection, taskQueue, workflowsPath: fixtures });
    return await worker.runUntil(body());
  } finally {
    await connection.close();
  }
}

describe('dev server (Temporal CLI built from the Go module proxy)', () => {
  let server: DevServer | undefined;
  afterEach(async () => {
    await server?.kill();
  });

  it('keeps a sleeping workflow across a hard kill and restart on the same data file', async () => {
    const dbFile = join(tempDir('restart'), 'temporal.db');
    server = await startTestDevServer(dbFile);
    const port = Number(server.address.split(':')[1]);

    let connection = await Connection.connect({ address: server.address });
    let client = new Client({ connection });
    const handle = await client.workflow.start('durableSleep', {
      taskQueue,
      workflowId: 'survives-restart',
      args: [4000],
    });
    // Let a worker run the first workflow task, so the timer is durably recorded before the crash.
    await withWorker(server.address, async () => {
      for (;;) {
        const { events } = await handle.fetchHistory();
        if (events?.some((e) => e.timerStartedEventAttributes)) return;
        await new Promise((r) => setTimeout(r, 100));
      }
    });
    await connection.close();

    await server.kill(); // SIGKILL: nothing flushed beyond what SQLite already committed
    server = await startTestDevServer(dbFile, port);

    connection = await Connection.connect({ address: server.address });
    client = new Client({ connection });
    const result = await withWorker(server.address, () =>
      client.workflow.getHandle('survives-restart').result(),
    );
    expect(result.elapsedMs).toBeGreaterThanOrEqual(4000);
    const { events } = await client.workflow.getHandle('survives-restart').fetchHistory();
    // One run, one timer: the workflow continued where it was, it did not start over.
    expect(events?.filter((e) => e.workflowExecutionStartedEventAttributes)).toHaveLength(1);
    expect(events?.filter((e) => e.timerStartedEventAttributes)).toHaveLength(1);
    expect(events?.filter((e) => e.timerFiredEventAttributes)).toHaveLength(1);
    await connection.close();
  });
});
