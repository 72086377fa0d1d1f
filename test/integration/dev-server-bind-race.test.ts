// The Temporal CLI picks some of its ports itself (the frontend's HTTP API); on a busy machine another
// process can take one between its check and its bind, and the dev server exits at start. startDevServer
// tries again. The lost race cannot be provoked on demand, so the first attempt runs a wrapper that fails
// the way the CLI does (its real log lines), and every later attempt runs the real CLI.
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
  // The first attempt's output, as the CLI (v1.5.1) printed it in the CI run that found this.
  const lostHttpApiBind =
    'echo \'level=ERROR msg="failed starting server" error="failed listening for HTTP API on 127.0.0.1:41645: listen tcp 127.0.0.1:41645: bind: address already in use"\' >&2; exit 1';
  // A lost frontend bind is followed by a nil-pointer panic whose trace fills the end of the log.
  const lostFrontendBind = `echo 'time=2026-11-30T23:14:34.341 level=ERROR msg="Failed to start gRPC listener" error="listen tcp 127.0.0.1:34373: bind: address already in use" service=frontend address=127.0.0.1:34373' >&2
  echo 'panic: runtime error: invalid memory address or nil pointer dereference' >&2
  for i in $(seq 1 40); do echo "\tgo.uber.org/dig.paramList.BuildList frame $i" >&2; done
  exit 2`;

  it.each([
    ['its HTTP API port', lostHttpApiBind],
    ['its frontend port (then the CLI panics)', lostFrontendBind],
  ])('tries again when %s was taken meanwhile', async (_what, firstAttempt) => {
    const dir = tempDir('bind-race');
    const marker = join(dir, 'first-attempt-done');
    const wrapper = join(dir, 'temporal');
    writeFileSync(
      wrapper,
      `#!/bin/sh
if [ ! -e '${marker}' ]; then
  touch '${marker}'
  ${firstAttempt}
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
