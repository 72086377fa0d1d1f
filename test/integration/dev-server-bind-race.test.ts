// The Temporal CLI picks some of its ports itself (the frontend's HTTP API); on a busy machine another
// process can take one between its check and its bind, and the dev server exits at start. startDevServer
// tries again. The lost race cannot be provoked on demand, so the first attempt runs a wrapper that fails
// the way the CLI does (its real log line), and every later attempt runs the real CLI.
import { chmodSync, existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Connection } from '@temporalio/client';
import { afterEach, describe, expect, it } from 'vitest';
import { type DevServer, startDevServer } from '../../src/runtime/dev-server.js';
import { freePort } from '../../src/runtime/ports.js';
import { tempDir, temporalCliPath } from '../helpers/servers.js';

let server: DevServer | undefined;
afterEach(async () => {
  await server?.kill();
});

describe('dev server start', () => {
  it('tries again when a port the CLI chose was taken meanwhile', async () => {
    const dir = tempDir('bind-race');
    const marker = join(dir, 'first-attempt-done');
    const wrapper = join(dir, 'temporal');
    writeFileSync(
      wrapper,
      `#!/bin/sh
if [ ! -e '${marker}' ]; then
  touch '${marker}'
  echo 'level=ERROR msg="failed starting server" error="failed listening for HTTP API on 127.0.0.1:41645: listen tcp 127.0.0.1:41645: bind: address already in use"' >&2
  exit 1
fi
exec '${temporalCliPath()}' "$@"
`,
    );
    chmodSync(wrapper, 0o755);
    server = await startDevServer({
      cliPath: wrapper,
      dbFile: join(dir, 'temporal.db'),
      logFile: join(dir, 'temporal.log'),
      port: await freePort(),
      uiPort: null,
      namespace: 'default',
    });
    expect(existsSync(marker)).toBe(true);
    const connection = await Connection.connect({ address: server.address });
    const info = await connection.workflowService.getSystemInfo({});
    expect(info.serverVersion).toBeTruthy();
    await connection.close();
  });
});
