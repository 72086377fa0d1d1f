// Finds or obtains the two Temporal servers this project runs on, without the SDK's own downloads
// (their download site is unreachable on machines that only reach package registries):
//  - the Temporal CLI (dev server + Web UI), built once with `go install` through the Go module proxy;
//  - the Java time-skipping test server, resolved from Maven Central into a classpath and wrapped in a
//    small executable that @temporalio/testing can start as an `existing-path` server.
// Both are cached in a user-level directory (never the clone: CI starts from a fresh clone every run).
// Plain JavaScript with no dependencies: it runs before `npm install` has happened.
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const TEMPORAL_CLI_VERSION = 'v1.5.1';
export const TEMPORAL_CLI_MODULE = 'github.com/temporalio/cli/cmd/temporal';
/** The server the CLI's dev server embeds, for the production topology (scripts/stack-prod.ts). */
export const TEMPORAL_SERVER_VERSION = 'v1.29.1';
export const TEMPORAL_SERVER_MODULE = 'go.temporal.io/server';
const SDK_DOWNLOAD_HOST = 'https://temporal.download';

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const testServerPom = join(repoRoot, 'tools', 'test-server', 'pom.xml');

/** An error whose message is one actionable line; callers print it without a stack trace. */
export class ToolchainError extends Error {
  constructor(message) {
    super(message);
    this.name = 'ToolchainError';
  }
}

export function cacheDir() {
  if (process.env.DURABLE_SCHEDULER_CACHE) return resolve(process.env.DURABLE_SCHEDULER_CACHE);
  const base = process.env.XDG_CACHE_HOME || join(homedir(), '.cache');
  return join(base, 'durable-scheduler');
}

function onPath(name) {
  for (const dir of (process.env.PATH || '').split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, name);
    if (existsSync(candidate)) return candidate;
  }
  return null;
}

function commandWorks(cmd, args) {
  const r = spawnSync(cmd, args, { stdio: 'ignore' });
  return r.status === 0;
}

function cachedCliPath() {
  return join(cacheDir(), 'temporal-cli', TEMPORAL_CLI_VERSION, 'temporal');
}

/**
 * The Temporal CLI to run the dev server with: TEMPORAL_CLI_PATH, then a `temporal` on PATH, then the
 * cached build. Null when none exists yet.
 */
export function findTemporalCli() {
  const fromEnv = process.env.TEMPORAL_CLI_PATH;
  if (fromEnv) {
    if (!existsSync(fromEnv))
      throw new ToolchainError(`TEMPORAL_CLI_PATH=${fromEnv} does not exist: fix or unset it`);
    return fromEnv;
  }
  return onPath('temporal') ?? (existsSync(cachedCliPath()) ? cachedCliPath() : null);
}

/** Whether the SDK's own binary download site answers from here (it does not on registry-only machines). */
export async function sdkDownloadReachable() {
  // Tests of the "nothing installed" errors set this so the answer does not depend on the network.
  if (process.env.DURABLE_SCHEDULER_NO_SDK_DOWNLOAD) return false;
  try {
    await fetch(SDK_DOWNLOAD_HOST, { method: 'HEAD', signal: AbortSignal.timeout(3000) });
    return true;
  } catch {
    return false;
  }
}

function heartbeat(log, what) {
  const started = Date.now();
  const timer = setInterval(() => {
    log(`  … still ${what} (${Math.round((Date.now() - started) / 1000)} s)`);
  }, 20_000);
  return () => clearInterval(timer);
}

/**
 * `go install`s `packages` (full package paths with @version) through the Go module proxy into `dir`,
 * atomically: a half-finished build never sits at `dir`. `binaries` are the names that must result.
 */
async function goInstallInto(dir, packages, binaries, { log, what }) {
  const staging = `${dir}.partial-${process.pid}`;
  mkdirSync(staging, { recursive: true });
  log(`Building ${what} with Go into ${dir} (first time only; takes a few minutes)…`);
  const stop = heartbeat(log, `building ${what}`);
  try {
    const code = await new Promise((resolveExit, reject) => {
      const child = spawn('go', ['install', ...packages], {
        env: {
          ...process.env,
          GOBIN: staging,
          GOFLAGS: `${process.env.GOFLAGS ?? ''} -buildvcs=false`.trim(),
        },
        stdio: ['ignore', 'inherit', 'pipe'],
      });
      let downloads = 0;
      child.stderr.on('data', (chunk) => {
        for (const line of chunk.toString().split('\n')) {
          if (!line.trim()) continue;
          if (line.startsWith('go: downloading')) {
            downloads += 1;
            if (downloads % 25 === 1) log(`  ${line} (module ${downloads})`);
          } else {
            log(`  ${line}`);
          }
        }
      });
      child.on('error', reject);
      child.on('exit', resolveExit);
    });
    if (code !== 0 || !binaries.every((b) => existsSync(join(staging, b)))) {
      throw new ToolchainError(
        `go install ${packages.join(' ')} failed (exit ${code}): check that the Go module proxy is reachable (GOPROXY=${process.env.GOPROXY ?? 'default'})`,
      );
    }
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dirname(dir), { recursive: true });
    renameSync(staging, dir);
  } finally {
    stop();
    rmSync(staging, { recursive: true, force: true });
  }
}

function requireGo(what) {
  if (!commandWorks('go', ['version']))
    throw new ToolchainError(
      `Go is not installed: install Go >= 1.23 (then rerun; ${what} is built from the Go module proxy)`,
    );
}

/** Builds the CLI with Go unless it is already there. Returns its path. */
export async function ensureTemporalCli({ log = console.error } = {}) {
  const found = findTemporalCli();
  if (found) return found;
  if (!commandWorks('go', ['version'])) {
    if (await sdkDownloadReachable()) {
      log('Go is not installed; the Temporal SDK will download its own dev server.');
      return null;
    }
    throw new ToolchainError(
      `Go is not installed and the Temporal CLI is not on PATH: install Go >= 1.23 (then rerun; the CLI is built from the Go module proxy), or set TEMPORAL_CLI_PATH to a temporal binary, or set TEMPORAL_ADDRESS to a running server`,
    );
  }
  const target = cachedCliPath();
  await goInstallInto(dirname(target), [`${TEMPORAL_CLI_MODULE}@${TEMPORAL_CLI_VERSION}`], ['temporal'], {
    log,
    what: `the Temporal CLI ${TEMPORAL_CLI_VERSION}`,
  });
  log(`Temporal CLI ready: ${target}`);
  return target;
}

/**
 * The Temporal server and its SQL schema tool (the production topology's server, at the version the dev
 * server embeds), built from the Go module proxy: `go install` names the binaries `server` and `sql`.
 */
function temporalServerDir() {
  return join(cacheDir(), `temporal-server-${TEMPORAL_SERVER_VERSION.replace(/^v/, '')}`);
}

export function findTemporalServer() {
  const dir = temporalServerDir();
  const server = join(dir, 'server');
  const sqlTool = join(dir, 'sql');
  return existsSync(server) && existsSync(sqlTool) ? { server, sqlTool } : null;
}

/** Builds the Temporal server and temporal-sql-tool with Go unless they are there. */
export async function ensureTemporalServer({ log = console.error } = {}) {
  const found = findTemporalServer();
  if (found) return found;
  requireGo('the Temporal server');
  await goInstallInto(
    temporalServerDir(),
    [
      `${TEMPORAL_SERVER_MODULE}/cmd/server@${TEMPORAL_SERVER_VERSION}`,
      `${TEMPORAL_SERVER_MODULE}/cmd/tools/sql@${TEMPORAL_SERVER_VERSION}`,
    ],
    ['server', 'sql'],
    { log, what: `the Temporal server ${TEMPORAL_SERVER_VERSION} and temporal-sql-tool` },
  );
  const found2 = findTemporalServer();
  log(`Temporal server ready: ${found2.server}`);
  return found2;
}

function testServerDir() {
  const pomHash = createHash('sha256').update(readFileSync(testServerPom)).digest('hex').slice(0, 12);
  return join(cacheDir(), 'temporal-test-server', pomHash);
}

/** The time-skipping test server executable: TEMPORAL_TEST_SERVER_PATH, else the cached wrapper. */
export function findTestServer() {
  const fromEnv = process.env.TEMPORAL_TEST_SERVER_PATH;
  if (fromEnv) {
    if (!existsSync(fromEnv))
      throw new ToolchainError(`TEMPORAL_TEST_SERVER_PATH=${fromEnv} does not exist: fix or unset it`);
    return fromEnv;
  }
  const dir = testServerDir();
  const wrapper = join(dir, 'temporal-test-server');
  const classpathFile = join(dir, 'classpath.txt');
  if (!existsSync(wrapper) || !existsSync(classpathFile)) return null;
  // A cleaned ~/.m2 leaves a wrapper pointing at nothing; treat that as missing.
  const jars = readFileSync(classpathFile, 'utf8').trim().split(':');
  return jars.every((jar) => existsSync(jar)) ? wrapper : null;
}

/** Resolves the test server from Maven Central and writes the wrapper unless it is already there. */
export async function ensureTestServer({ log = console.error } = {}) {
  const found = findTestServer();
  if (found) return found;
  const haveJava = commandWorks('java', ['-version']);
  const haveMaven = commandWorks('mvn', ['-v']);
  if (!haveJava || !haveMaven) {
    if (await sdkDownloadReachable()) {
      log(
        `${haveJava ? 'Maven' : 'Java'} is not installed; the Temporal SDK will download its own test server.`,
      );
      return null;
    }
    throw new ToolchainError(
      `${haveJava ? 'Maven (mvn)' : 'Java 17+'} is not installed, and the time-skipping test server comes from Maven Central: install ${haveJava ? 'Maven' : 'a JDK and Maven'} (e.g. apt-get install ${haveJava ? 'maven' : 'openjdk-17-jdk-headless maven'}), or set TEMPORAL_TEST_SERVER_PATH`,
    );
  }
  const dir = testServerDir();
  mkdirSync(dir, { recursive: true });
  const classpathFile = join(dir, 'classpath.txt');
  log('Resolving the Temporal time-skipping test server from Maven Central (first time only)…');
  const r = spawnSync(
    'mvn',
    ['-q', '-B', '-f', testServerPom, 'dependency:build-classpath', `-Dmdep.outputFile=${classpathFile}`],
    { stdio: ['ignore', 'inherit', 'inherit'] },
  );
  if (r.status !== 0 || !existsSync(classpathFile)) {
    throw new ToolchainError(
      `mvn could not resolve io.temporal:temporal-test-server (exit ${r.status}): check that Maven Central is reachable`,
    );
  }
  const classpath = readFileSync(classpathFile, 'utf8').trim();
  const wrapper = join(dir, 'temporal-test-server');
  // The SDK starts it as `<path> <port> --enable-time-skipping`, which is exactly TestServer's main().
  writeFileSync(
    wrapper,
    `#!/bin/sh\n# Generated by durable-scheduler scripts/toolchain.mjs\nexec java -cp '${classpath}' io.temporal.testserver.TestServer "$@"\n`,
  );
  chmodSync(wrapper, 0o755);
  log(`Test server ready: ${wrapper}`);
  return wrapper;
}

/** Installs npm dependencies when node_modules is missing or older than package-lock.json. */
export function ensureNodeDependencies({ log = console.error } = {}) {
  const lock = join(repoRoot, 'package-lock.json');
  const installed = join(repoRoot, 'node_modules', '.package-lock.json');
  if (existsSync(installed) && existsSync(lock)) {
    const wanted = JSON.parse(readFileSync(lock, 'utf8')).packages ?? {};
    const have = JSON.parse(readFileSync(installed, 'utf8')).packages ?? {};
    const stale = Object.entries(wanted).some(
      ([path, meta]) => path !== '' && !meta.optional && have[path]?.version !== meta.version,
    );
    if (!stale) return;
  }
  log('Installing npm dependencies…');
  const r = spawnSync('npm', [existsSync(installed) ? 'install' : 'ci', '--no-audit', '--no-fund'], {
    cwd: repoRoot,
    stdio: 'inherit',
  });
  if (r.status !== 0)
    throw new ToolchainError('npm install failed: see the output above (is the npm registry reachable?)');
}

/**
 * Installs the Python packages the differential tests compare against (python-dateutil, the reference
 * RFC 5545 implementation), once per content of test/python/requirements.txt.
 */
export function ensurePythonTestDependencies({ log = console.error } = {}) {
  const requirements = join(repoRoot, 'test', 'python', 'requirements.txt');
  if (!existsSync(requirements)) return;
  const digest = createHash('sha256').update(readFileSync(requirements)).digest('hex').slice(0, 12);
  const marker = join(cacheDir(), 'python', `requirements-${digest}.installed`);
  if (existsSync(marker)) return;
  if (!commandWorks('python3', ['--version'])) {
    throw new ToolchainError(
      'python3 is not installed: the differential calendar tests need it (apt-get install python3 python3-pip)',
    );
  }
  log('Installing the Python packages the differential tests use…');
  const r = spawnSync('python3', ['-m', 'pip', 'install', '-q', '-r', requirements], { stdio: 'inherit' });
  if (r.status !== 0) {
    throw new ToolchainError(`pip install -r ${requirements} failed: check that PyPI is reachable`);
  }
  mkdirSync(dirname(marker), { recursive: true });
  writeFileSync(marker, `${new Date().toISOString()}\n`);
}

/**
 * The headless Chromium the console's browser test and the screenshot scripts drive: CHROMIUM_PATH, else
 * Debian's /usr/lib/chromium/chromium. Null when neither exists.
 */
export function findChromium() {
  const fromEnv = process.env.CHROMIUM_PATH;
  if (fromEnv) {
    if (!existsSync(fromEnv))
      throw new ToolchainError(`CHROMIUM_PATH=${fromEnv} does not exist: fix or unset it`);
    return fromEnv;
  }
  const debian = '/usr/lib/chromium/chromium';
  return existsSync(debian) ? debian : null;
}

/**
 * Launches the Chromium at `executablePath` headless, as the console's browser test and the screenshot
 * scripts drive it: no sandbox (it runs as root in containers), no /dev/shm (small there), no GPU.
 * puppeteer-core is imported here, not above: this file runs before `npm install`.
 */
export async function launchChromium(executablePath) {
  const { default: puppeteer } = await import('puppeteer-core');
  return puppeteer.launch({
    executablePath,
    headless: true,
    args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu'],
  });
}

/**
 * Installs Debian's `chromium` with apt-get when it is missing and this runs as root (as scripts/stack-prod.ts
 * installs PostgreSQL); otherwise says how. Returns the executable's path.
 */
export function ensureChromium({ log = console.error } = {}) {
  const found = findChromium();
  if (found) return found;
  if (process.getuid?.() !== 0)
    throw new ToolchainError(
      'Chromium is not installed: run `sudo apt-get install -y chromium` (or set CHROMIUM_PATH to a Chromium executable), then rerun',
    );
  log('Installing Chromium (apt-get install -y chromium; first time only)…');
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const install = () =>
    spawnSync('apt-get', ['install', '-y', '--no-install-recommends', 'chromium'], { env, encoding: 'utf8' });
  let r = install();
  if (r.status !== 0) {
    // A fresh machine's package lists are empty or stale: refresh them once and try again.
    spawnSync('apt-get', ['update'], { env, stdio: 'ignore' });
    r = install();
  }
  const path = findChromium();
  if (r.status !== 0 || !path)
    throw new ToolchainError(
      `apt-get install -y chromium failed (exit ${r.status}):\n${`${r.stdout ?? ''}${r.stderr ?? ''}`.slice(-2000)}`,
    );
  log(`Chromium ready: ${path}`);
  return path;
}
