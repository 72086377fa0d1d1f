import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { repoRoot } from '../../scripts/toolchain.mjs';
import { freePort } from '../../src/runtime/ports.js';
import { startEventSink } from '../helpers/http-api.js';
import { type Spawned, spawnProcess } from '../helpers/process.js';
import { tempDir } from '../helpers/servers.js';
import { eventually } from './support.js';

// What `npm start` runs after its bootstrap step, as a real process tree.
function startProduct(env: Record<string, string>): Spawned {
  return spawnProcess(
    process.execPath,
    ['--import', 'tsx', join(repoRoot, 'src/main.ts')],
    { ...process.env, ...env },
    repoRoot,
  );
}

function portAnswers(port: number): Promise<boolean> {
  return fetch(`http://127.0.0.1:${port}/`, { signal: AbortSignal.timeout(2000) }).then(
    () => true,
    () => false,
  );
}

describe('npm start (src/main.ts)', () => {
  let running: Spawned | undefined;
  afterEach(async () => {
    if (running && running.child.exitCode === null) {
      running.child.kill('SIGKILL');
      await running.exit;
    }
    running = undefined;
  });

  it('brings up the dev server with its Web UI, the worker and the API, and stops all on Ctrl-C', async () => {
    const dataDir = tempDir('start');
    // Ports are chosen free, then bound seconds later (after the dev server started): another test running
    // beside this one may take one meanwhile. Such a start says so (EADDRINUSE) and is tried on new ports.
    let temporalPort = 0;
    let uiPort = 0;
    let apiPort = 0;
    for (let attempt = 1; ; attempt++) {
      [temporalPort, uiPort, apiPort] = [await freePort(), await freePort(), await freePort()];
      running = startProduct({
        TEMPORAL_PORT: String(temporalPort),
        TEMPORAL_UI_PORT: String(uiPort),
        SCHEDULER_API_PORT: String(apiPort),
        SCHEDULER_DATA_DIR: dataDir,
      });
      const started = await running.waitFor(/ready; Ctrl-C stops everything/, 90_000).then(
        () => true,
        (err: Error) => {
          if (attempt >= 3 || !/EADDRINUSE|address already in use/.test(running!.output())) throw err;
          return false;
        },
      );
      if (started) break;
      await running.exit;
    }
    expect(running.output()).toContain(`Web UI:     http://127.0.0.1:${uiPort}`);
    // Development: a key is made and kept in the data dir; stdout here is a pipe (a log pipeline), so the
    // key itself is not printed.
    const devKey = readFileSync(join(dataDir, 'dev-api-key'), 'utf8').trim();
    expect(devKey).toMatch(/^dev_/);
    expect(running.output()).toMatch(
      /API key: +development key for tenant 'dev' in .*dev-api-key \(not printed/,
    );
    expect(running.output()).not.toContain(devKey);

    const health = await fetch(`http://127.0.0.1:${apiPort}/v1/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ status: 'ok', temporal: 'reachable' });
    const ui = await fetch(`http://127.0.0.1:${uiPort}/`);
    expect(ui.status).toBe(200);
    expect(await ui.text()).toContain('<html');

    // The development example of docs/getting-started.md: the development tenant reaches a local sink on 127.0.0.1.
    expect(running.output()).toMatch(
      /Targets: +development tenant 'dev' reaches every queue, workflow and sink/,
    );
    const sink = await startEventSink();
    try {
      const key = devKey;
      const created = await fetch(`http://127.0.0.1:${apiPort}/v1/schedules`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          schedule_id: 'heartbeat',
          timing: { kind: 'INTERVAL', every: 'PT2S' },
          target: { type: 'EVENT', event_type: 'heartbeat.tick', sink_url: sink.url },
        }),
      });
      expect(created.status).toBe(201);
      await eventually(
        'an event at the local sink',
        async () => (sink.events.length > 0 ? true : undefined),
        30_000,
      );
    } finally {
      await sink.close();
    }

    running.child.kill('SIGINT');
    expect((await running.exit).code).toBe(0);
    // Nothing is left listening: the dev server and its UI went down with the product.
    expect(await portAnswers(uiPort)).toBe(false);
    expect(await portAnswers(apiPort)).toBe(false);
  });

  it.each([
    [
      'NODE_ENV=production without keys',
      { NODE_ENV: 'production' },
      /no API keys in production \(NODE_ENV=production\): set SCHEDULER_API_KEYS or SCHEDULER_API_KEY_FILE/,
    ],
    [
      'an API on every interface without keys',
      { SCHEDULER_API_HOST: '0.0.0.0' },
      /no API keys in production \(the API binds 0\.0\.0\.0\)/,
    ],
    ['SCHEDULER_API_KEYS set but empty', { SCHEDULER_API_KEYS: ' ' }, /SCHEDULER_API_KEYS is set but empty/],
    // Issue 38: a shared cluster is production, whatever else is set.
    [
      'TEMPORAL_ADDRESS naming a shared cluster without API keys',
      { TEMPORAL_ADDRESS: 'temporal.shared.example:7233' },
      /no API keys in production \(Temporal at temporal\.shared\.example:7233 is not the embedded dev server\)/,
    ],
    [
      'a worker on a shared cluster without the tenant policy',
      { SCHEDULER_ROLE: 'worker', TEMPORAL_ADDRESS: 'temporal.shared.example:7233' },
      /SCHEDULER_TENANTS_FILE is not set: a worker in production \(Temporal at temporal\.shared\.example:7233 is not the embedded dev server\) would refuse every hand-off it takes/,
    ],
    [
      'a worker beside API keys without the tenant policy',
      { SCHEDULER_API_KEYS: 'start-key-0123456789abcdef0123=acme:ops' },
      /SCHEDULER_TENANTS_FILE is not set: a worker in production \(API keys are configured\)/,
    ],
    [
      'SCHEDULER_DEVELOPMENT=on beside NODE_ENV=production',
      {
        SCHEDULER_DEVELOPMENT: 'on',
        NODE_ENV: 'production',
        SCHEDULER_API_KEYS: 'start-key-0123456789abcdef0123=acme:ops',
        TEMPORAL_ADDRESS: '127.0.0.1:1',
      },
      /SCHEDULER_DEVELOPMENT=on in a production deployment \(API keys are configured, NODE_ENV=production\)/,
    ],
    [
      'an API key that would travel in plaintext',
      { TEMPORAL_ADDRESS: 'temporal.shared.example:7233', TEMPORAL_API_KEY: 'k', TEMPORAL_TLS: 'false' },
      /TEMPORAL_TLS: an API key would be sent in plaintext to temporal\.shared\.example:7233/,
    ],
    [
      'a client certificate without its key',
      {
        TEMPORAL_ADDRESS: 'temporal.shared.example:7233',
        TEMPORAL_TLS_CLIENT_CERT_PATH: '/run/secrets/client.pem',
      },
      /TEMPORAL_TLS_CLIENT_KEY_PATH: a client certificate is given without its key/,
    ],
  ])('refuses to start with %s, in one line, making no development key', async (_what, env, message) => {
    const dataDir = tempDir('production');
    running = startProduct({
      ...env,
      SCHEDULER_API_PORT: String(await freePort()),
      SCHEDULER_DATA_DIR: dataDir,
    });
    const { code } = await running.exit;
    expect(code).not.toBe(0);
    const errorLines = running
      .output()
      .split('\n')
      .filter((l) => l.startsWith('error:'));
    expect(errorLines).toHaveLength(1);
    expect(errorLines[0]).toMatch(message);
    expect(existsSync(join(dataDir, 'dev-api-key'))).toBe(false);
  });

  it('says in one line that TEMPORAL_ADDRESS is not reachable', async () => {
    const deadPort = await freePort();
    running = startProduct({
      TEMPORAL_ADDRESS: `127.0.0.1:${deadPort}`,
      // A server of the developer's own: without this a named server is production (issue 38).
      SCHEDULER_DEVELOPMENT: 'on',
      SCHEDULER_API_PORT: String(await freePort()),
      SCHEDULER_DATA_DIR: tempDir('unreachable'),
    });
    const { code } = await running.exit;
    expect(code).toBe(1);
    const errorLines = running
      .output()
      .split('\n')
      .filter((l) => l.startsWith('error:'));
    expect(errorLines).toHaveLength(1);
    expect(errorLines[0]).toMatch(new RegExp(`TEMPORAL_ADDRESS=127.0.0.1:${deadPort} is not reachable`));
    expect(running.output()).not.toMatch(/^\s+at /m);
  });

  it('says which port is taken and which variable moves it', async () => {
    const blocker = createServer();
    const apiPort = await freePort();
    await new Promise<void>((r) => blocker.listen(apiPort, '127.0.0.1', r));
    try {
      running = startProduct({
        TEMPORAL_ADDRESS: '127.0.0.1:1',
        SCHEDULER_DEVELOPMENT: 'on',
        SCHEDULER_API_PORT: String(apiPort),
        SCHEDULER_DATA_DIR: tempDir('taken'),
      });
      expect((await running.exit).code).toBe(1);
      expect(running.output()).toContain(`error: port ${apiPort} on 127.0.0.1 is taken`);
      expect(running.output()).toContain('SCHEDULER_API_PORT');
      expect(running.output()).not.toMatch(/^\s+at /m);
    } finally {
      blocker.close();
    }
  });
});
