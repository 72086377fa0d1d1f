import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { findTemporalCli, findTestServer } from '../../scripts/toolchain.mjs';
import { type DevServer, type DevServerOptions, startDevServer } from '../../src/runtime/dev-server.js';
import { createTimeSkippingEnv as createTestServerEnv } from '../../src/testing/index.js';

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

export async function createTimeSkippingEnv(): Promise<TestWorkflowEnvironment> {
  return await createTestServerEnv({ testServerPath: testServerPath() });
}

export function tempDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), `ds-${prefix}-`));
}

/** What a benchmark sets on a test dev server beyond the defaults. */
export type DevServerExtras = Pick<DevServerOptions, 'metricsPort' | 'dynamicConfig'>;

/** A headless dev server on free ports with its own SQLite file (reuse `dbFile` to restart on it). */
export async function startTestDevServer(
  dbFile: string,
  port?: number,
  extra: DevServerExtras = {},
): Promise<DevServer> {
  return await startDevServer({
    cliPath: temporalCliPath(),
    dbFile,
    logFile: `${dbFile}.log`,
    ...(port === undefined ? {} : { port }),
    ...extra,
    uiPort: null,
    namespace: 'default',
  });
}
