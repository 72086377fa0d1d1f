import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { findTemporalCli, findTestServer } from '../../scripts/toolchain.mjs';
import { type DevServer, startDevServer } from '../../src/runtime/dev-server.js';
import { freePort } from '../../src/runtime/ports.js';

// Tests use the servers that `npm test` obtained (scripts/bootstrap.mjs); the SDK's own downloads
// cannot reach their site on these machines, so a missing server is a setup error, not a skip.

export function testServerPath(): string {
  const path = findTestServer();
  if (!path)
    throw new Error('the time-skipping test server is missing: run `npm test` or `npm run servers` first');
  return path;
}

export function temporalCliPath(): string {
  const path = findTemporalCli();
  if (!path) throw new Error('the Temporal CLI is missing: run `npm test` or `npm run servers` first');
  return path;
}

/**
 * The SDK gives the Java server 5 s to answer, a fixed bound; a JVM starting on two busy cores can miss it.
 * A server that did not come up is started again (twice at most); any other error is the test's.
 */
export async function createTimeSkippingEnv(): Promise<TestWorkflowEnvironment> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await TestWorkflowEnvironment.createTimeSkipping({
        server: { executable: { type: 'existing-path', path: testServerPath() } },
      });
    } catch (err) {
      if (attempt >= 3 || !/did not start within/.test((err as Error).message)) throw err;
    }
  }
}

export function tempDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), `ds-${prefix}-`));
}

/** A headless dev server on free ports with its own SQLite file (reuse `dbFile` to restart on it). */
export async function startTestDevServer(dbFile: string, port?: number): Promise<DevServer> {
  return await startDevServer({
    cliPath: temporalCliPath(),
    dbFile,
    logFile: `${dbFile}.log`,
    port: port ?? (await freePort()),
    uiPort: null,
    namespace: 'default',
  });
}
