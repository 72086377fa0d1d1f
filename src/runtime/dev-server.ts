import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { Connection } from '@temporalio/client';
import { assertPortFree, freePort } from './ports.js';

export interface DevServerOptions {
  /** The `temporal` CLI binary (see scripts/toolchain.mjs). */
  cliPath: string;
  /** SQLite file that keeps workflows across restarts; omitted = in memory. */
  dbFile?: string;
  /**
   * The frontend's port. Omitted: a free one, and another one if a process takes it before the server
   * binds it (tests start servers in parallel); given: taken means PortTakenError, naming TEMPORAL_PORT.
   */
  port?: number;
  /** null runs it headless (tests); a number serves the Web UI there. */
  uiPort: number | null;
  namespace: string;
  ip?: string;
  /** The server's own output goes here, so a failed start can say why. */
  logFile: string;
  /** Serve the server's Prometheus metrics here (benchmarks read its persistence counters); omitted: the CLI's own choice. */
  metricsPort?: number;
  /** Dynamic config values over the CLI's (`--dynamic-config-value KEY=JSON`), e.g. the search-attribute cache. */
  dynamicConfig?: Record<string, unknown>;
}

export interface DevServer {
  address: string;
  uiUrl: string | null;
  process: ChildProcess;
  /** Graceful stop (SIGTERM, then SIGKILL after a grace period). */
  stop(): Promise<void>;
  /** Hard kill, as a crash would: nothing is flushed. */
  kill(): Promise<void>;
}

export class DevServerError extends Error {
  override name = 'DevServerError';
  constructor(
    message: string,
    /** The server could not bind one of its ports: another process took it. */
    readonly addressInUse = false,
  ) {
    super(message);
  }
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/** What the server wrote to its (appended) log since `offset`: this start's own lines only. */
function logSince(file: string, offset: number): string[] {
  try {
    return readFileSync(file).subarray(offset).toString('utf8').trim().split('\n');
  } catch {
    return [];
  }
}

function logSize(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}

/** Bind races the CLI can lose on a busy machine: it picks its own ports (HTTP API, metrics) at random. */
const START_ATTEMPTS = 3;

/** Starts `temporal server start-dev` and resolves once its frontend answers and the namespace exists. */
export async function startDevServer(options: DevServerOptions): Promise<DevServer> {
  const ip = options.ip ?? '127.0.0.1';
  for (let attempt = 1; ; attempt++) {
    const port = options.port ?? (await freePort(ip));
    if (options.port !== undefined) await assertPortFree(options.port, ip, 'TEMPORAL_PORT');
    if (options.uiPort !== null) await assertPortFree(options.uiPort, ip, 'TEMPORAL_UI_PORT');
    try {
      return await launchDevServer({ ...options, port }, ip);
    } catch (err) {
      // Our ports were free just now: an "address already in use" is a port taken by another process
      // between its check and the server's bind. Another try picks others: the CLI its own, this loop a
      // new frontend port if none was given (a given one that was taken, assertPortFree now reports).
      const lost = err instanceof DevServerError && err.addressInUse;
      if (!lost || attempt >= START_ATTEMPTS) throw err;
    }
  }
}

async function launchDevServer(options: DevServerOptions & { port: number }, ip: string): Promise<DevServer> {
  if (options.dbFile) mkdirSync(dirname(options.dbFile), { recursive: true });
  mkdirSync(dirname(options.logFile), { recursive: true });

  const args = ['server', 'start-dev', '--ip', ip, '--port', String(options.port), '--log-level', 'warn'];
  if (options.namespace !== 'default') args.push('--namespace', options.namespace);
  if (options.dbFile) args.push('--db-filename', options.dbFile);
  if (options.uiPort === null) args.push('--headless');
  else args.push('--ui-port', String(options.uiPort), '--ui-ip', ip);
  if (options.metricsPort !== undefined) args.push('--metrics-port', String(options.metricsPort));
  for (const [key, value] of Object.entries(options.dynamicConfig ?? {}))
    args.push('--dynamic-config-value', `${key}=${JSON.stringify(value)}`);

  const logStart = logSize(options.logFile);
  const log = openSync(options.logFile, 'a');
  const child = spawn(options.cliPath, args, { stdio: ['ignore', log, log] });
  closeSync(log);
  let exitInfo: string | null = null;
  child.once('exit', (code, signal) => {
    exitInfo = `exit ${code ?? signal}`;
  });

  const address = `${ip}:${options.port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (exitInfo) {
      // The cause is the first error line: a failed bind is followed by a long Go panic trace.
      const lines = logSince(options.logFile, logStart);
      const bindFailure = lines.find((line) => /address already in use/.test(line));
      const shown = [...(bindFailure ? [bindFailure, '…'] : []), ...lines.slice(-5)].join('\n');
      throw new DevServerError(
        `the Temporal dev server stopped while starting (${exitInfo}); its log ${options.logFile} says:\n${shown}`,
        bindFailure !== undefined,
      );
    }
    try {
      const connection = await Connection.connect({ address, connectTimeout: 1000 });
      try {
        await connection.workflowService.describeNamespace({ namespace: options.namespace });
        break;
      } finally {
        await connection.close();
      }
    } catch (err) {
      if (Date.now() > deadline) {
        child.kill('SIGKILL');
        throw new DevServerError(
          `the Temporal dev server did not become ready at ${address} within 60 s (${(err as Error).message}); see ${options.logFile}`,
        );
      }
      await new Promise((r) => setTimeout(r, 250));
    }
  }

  const stopWith = async (signal: NodeJS.Signals, graceMs: number) => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill(signal);
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    await exited(child);
    clearTimeout(timer);
  };
  return {
    address,
    uiUrl: options.uiPort === null ? null : `http://${ip}:${options.uiPort}`,
    process: child,
    stop: () => stopWith('SIGTERM', 10_000),
    kill: () => stopWith('SIGKILL', 0),
  };
}
