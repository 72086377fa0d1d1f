// The package as a dependency, tried the way a new user tries it: `npm pack` this repository, install the
// tarball into an empty TypeScript project in a temporary directory (its dependencies come from the npm
// registry; nothing there points back into this checkout), write the snippets of docs/sdk.md ("Using it
// from TypeScript") into it as they are, type-check and compile them with the project's own `tsc`, and run
// them: the time-skipping test of its own schedule, the `scheduler` bin, and the worker and client snippets
// against a real dev server.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../../scripts/toolchain.mjs';
import type { DevServer } from '../../src/runtime/dev-server.js';
import { spawnProcess } from '../helpers/process.js';
import { startTestDevServer, tempDir, testServerPath } from '../helpers/servers.js';

const run = promisify(execFile);
const INSTALL_TIMEOUT_MS = 600_000;

/** docs/sdk.md's consumer snippets: each ```ts block right after a `<!-- consumer: path -->` line. */
function readmeSnippets(): Map<string, string> {
  const readme = readFileSync(join(repoRoot, 'docs', 'sdk.md'), 'utf8');
  const snippets = new Map<string, string>();
  for (const m of readme.matchAll(/<!-- consumer: (\S+) -->\n```ts\n([\s\S]*?)\n```/g)) {
    snippets.set(m[1]!, `${m[2]!}\n`);
  }
  return snippets;
}

const ownPackage = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8'));
const versionOf = (name: string): string =>
  ownPackage.dependencies[name] ?? ownPackage.devDependencies[name] ?? ownPackage.peerDependencies[name];

let root: string;
let project: string;

/** Runs a command in the consumer project; resolves to its exit code and output, never throws. */
async function inProject(command: string, args: string[], env: NodeJS.ProcessEnv = {}, timeout = 300_000) {
  try {
    const r = await run(command, args, {
      cwd: project,
      env: { ...process.env, ...env },
      timeout,
      maxBuffer: 64 * 1024 * 1024,
    });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string; message: string };
    return {
      code: typeof e.code === 'number' ? e.code : -1,
      stdout: e.stdout ?? '',
      stderr: e.stderr ?? e.message,
    };
  }
}

beforeAll(async () => {
  root = tempDir('package');
  // The tarball, as `npm pack` makes it: `prepack` builds dist/.
  const packed = await run('npm', ['pack', '--json', '--pack-destination', root], {
    cwd: repoRoot,
    maxBuffer: 64 * 1024 * 1024,
  });
  const tarball = join(root, JSON.parse(packed.stdout)[0].filename);

  project = join(root, 'consumer');
  mkdirSync(join(project, 'src'), { recursive: true });
  writeFileSync(
    join(project, 'package.json'),
    `${JSON.stringify({ name: 'consumer', version: '1.0.0', private: true, type: 'module' }, null, 2)}\n`,
  );
  writeFileSync(
    join(project, 'tsconfig.json'),
    `${JSON.stringify(
      {
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          // The Temporal SDK's own declarations need it (its 'ms' import has no types under NodeNext).
          skipLibCheck: true,
          types: ['node'],
          rootDir: 'src',
          outDir: 'out',
        },
        include: ['src'],
      },
      null,
      2,
    )}\n`,
  );
  for (const [path, text] of readmeSnippets()) writeFileSync(join(project, path), text);

  // docs/sdk.md's install lines, plus the compiler and Node's types a TypeScript project has anyway.
  const installed = await inProject(
    'npm',
    [
      'install',
      '--prefer-offline',
      '--no-audit',
      '--no-fund',
      tarball,
      ...['client', 'worker', 'workflow', 'testing'].map(
        (p) => `@temporalio/${p}@${versionOf(`@temporalio/${p}`)}`,
      ),
      `typescript@${versionOf('typescript')}`,
      `@types/node@${versionOf('@types/node')}`,
    ],
    {},
    INSTALL_TIMEOUT_MS,
  );
  if (installed.code !== 0) throw new Error(`npm install failed:\n${installed.stderr}`);
}, INSTALL_TIMEOUT_MS + 120_000);

afterAll(() => {
  if (root) rmSync(root, { recursive: true, force: true });
});

describe('durable-scheduler as an installed dependency', () => {
  it('docs/sdk.md has the four consumer snippets, and the installed package is built JavaScript', () => {
    expect([...readmeSnippets().keys()].sort()).toEqual([
      'src/client.ts',
      'src/report.test.ts',
      'src/scheduler-worker.ts',
      'src/workflows.ts',
    ]);
    const installed = join(project, 'node_modules', 'durable-scheduler');
    expect(existsSync(join(installed, 'dist', 'index.js'))).toBe(true);
    expect(existsSync(join(installed, 'dist', 'index.d.ts'))).toBe(true);
    expect(existsSync(join(installed, 'src'))).toBe(false);
    expect(existsSync(join(installed, 'test'))).toBe(false);
  });

  it("type-checks and compiles the snippets with the project's own tsc", async () => {
    const tsc = await inProject(join(project, 'node_modules', '.bin', 'tsc'), ['-p', '.']);
    expect(tsc.stdout + tsc.stderr).toBe('');
    expect(tsc.code).toBe(0);
  });

  it('the client entry loads the client side alone', async () => {
    // Every module `import 'durable-scheduler'` resolves, logged by a module resolve hook: no worker, no
    // HTTP server, no test kit.
    const log = join(root, 'loaded.txt');
    const hooks = `import { appendFileSync } from 'node:fs';
      export async function resolve(specifier, context, next) {
        const resolved = await next(specifier, context);
        appendFileSync(${JSON.stringify(log)}, resolved.url + '\\n');
        return resolved;
      }`;
    const probe = await inProject(process.execPath, [
      '--input-type=module',
      '-e',
      `import { register } from 'node:module';
       register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(hooks)}`)});
       const sdk = await import('durable-scheduler');
       console.log(JSON.stringify(Object.keys(sdk)));`,
    ]);
    expect(probe.stderr).toBe('');
    expect(JSON.parse(probe.stdout)).toEqual(
      expect.arrayContaining(['SchedulerClient', 'SchedulerError', 'ScheduleSpec', 'OccurrenceEnvelope']),
    );
    const loaded = readFileSync(log, 'utf8').trim().split('\n');
    expect(loaded.some((url) => url.endsWith('/durable-scheduler/dist/api/client.js'))).toBe(true);
    const serverSide =
      /@temporalio\/(worker|testing)\/|\/fastify\/|\/dist\/(worker|main)\.js$|\/dist\/(api\/http|testing|runtime)\//;
    expect(loaded.filter((url) => serverSide.test(url))).toEqual([]);
  });

  it('the documented test of its own schedule passes on the time-skipping server (a day skipped, the job ran)', async () => {
    // The test server this repository's bootstrap cached, handed over the way docs/sdk.md says.
    // TAP on every Node release (the default reporter off a terminal is TAP on 20, spec from 23).
    const r = await inProject(process.execPath, ['--test', '--test-reporter=tap', 'out/report.test.js'], {
      TEMPORAL_TEST_SERVER_PATH: testServerPath(),
    });
    expect(r.stdout).toMatch(/^# pass 1$/m);
    expect(r.stdout).toMatch(/^# fail 0$/m);
    expect(r.code).toBe(0);
  });

  it('the scheduler bin runs from the installed package', async () => {
    const r = await inProject(join(project, 'node_modules', '.bin', 'scheduler'), [
      'preview',
      '--rule',
      'FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR;BYHOUR=9;BYMINUTE=0',
      '--timezone',
      'Europe/Riga',
      '--from',
      '2026-11-27T00:00:00Z',
      '--count',
      '2',
      '--json',
    ]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).map((o: { local: string }) => o.local)).toEqual([
      '2026-11-27T09:00:00+02:00',
      '2026-11-30T09:00:00+02:00',
    ]);
  });

  describe('the worker and client snippets against a dev server', () => {
    let server: DevServer;
    beforeAll(async () => {
      server = await startTestDevServer(join(root, 'temporal.db'));
    });
    afterAll(async () => {
      await server?.stop();
    });

    it('the worker runs the schedule the client creates, edits, pauses, triggers and backfills', async () => {
      const env = { ...process.env, TEMPORAL_ADDRESS: server.address };
      const worker = spawnProcess(process.execPath, ['out/scheduler-worker.js'], env, project);
      try {
        await worker.waitFor(/scheduler worker running/, 120_000);
        const client = await inProject(process.execPath, ['out/client.js'], env);
        expect(client.stderr).toBe('');
        expect(client.code).toBe(0);
        // Version 2 after the edit; the trigger and the backfill's two weekday slots (2 and 3 November).
        expect(client.stdout.trim()).toMatch(/^ACTIVE 2 \S+ 3$/);
      } finally {
        worker.child.kill('SIGTERM');
        expect((await worker.exit).code).toBe(0);
      }
    });
  });
});
