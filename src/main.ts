// `npm start`: the embedded dev server (unless TEMPORAL_ADDRESS names one), the worker and the HTTP API
// in one process tree, stopped cleanly on Ctrl-C.
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Runtime } from '@temporalio/worker';
import { findTemporalCli } from '../scripts/toolchain.mjs';
import { devApiKeyFile } from './api/auth.js';
import { serveApi } from './api/http/serve.js';
import { HOLIDAY_DATA_VERSION } from './calendar/holiday-data.js';
import { zoneRules } from './calendar/index.js';
import { deploymentFacts, loadEnvironment, policyAtStart, productionReasons } from './config.js';
import { type DevServer, startDevServer } from './runtime/dev-server.js';
import { registerSearchAttributes } from './runtime/namespace.js';
import { assertPortFree, freePort } from './runtime/ports.js';
import { watchHolidayData, watchTzVersions } from './runtime/release-watch.js';
import { installRuntime, runtimeLogLevel } from './runtime/telemetry.js';
import {
  connectionOptions,
  describeConnection,
  loadConnectionSettings,
  type TemporalConnectionSettings,
  watchApiKeyFile,
} from './runtime/temporal-connection.js';
import { loadTenantPolicy } from './runtime/tenant-policy-file.js';
import { createSchedulerWorker } from './worker.js';

const log = (line: string) => console.log(`[scheduler] ${line}`);

/** The settings of a connection to `address`: the embedded dev server takes none (it is plaintext, open). */
const optionsFor = (settings: TemporalConnectionSettings, address: string, embedded: boolean) =>
  embedded ? { address } : connectionOptions(settings, address);

async function connectTo(
  settings: TemporalConnectionSettings,
  address: string,
  embedded: boolean,
): Promise<Connection> {
  try {
    return await Connection.connect({ ...optionsFor(settings, address, embedded), connectTimeout: 5000 });
  } catch (err) {
    throw new Error(
      embedded
        ? `could not connect to the embedded dev server at ${address}: ${(err as Error).message}`
        : `Temporal server at TEMPORAL_ADDRESS=${address} is not reachable (${(err as Error).message}): start it, fix the address, or unset TEMPORAL_ADDRESS to use the embedded dev server`,
    );
  }
}

async function main(): Promise<void> {
  const env = loadEnvironment();
  const temporal = loadConnectionSettings();
  const namespace = temporal.namespace;
  const runsApi = env.SCHEDULER_ROLE !== 'worker';
  const runsWorker = env.SCHEDULER_ROLE !== 'api';
  // The worker's metrics: on SCHEDULER_METRICS_PORT when set (a worker-only process is scraped there);
  // otherwise, when this process also serves the API, on an internal port that GET /metrics appends.
  let workerMetricsAddress: string | null = null;
  if (runsWorker && env.SCHEDULER_METRICS_PORT) {
    await assertPortFree(env.SCHEDULER_METRICS_PORT, env.SCHEDULER_METRICS_HOST, 'SCHEDULER_METRICS_PORT');
    workerMetricsAddress = `${env.SCHEDULER_METRICS_HOST}:${env.SCHEDULER_METRICS_PORT}`;
  } else if (runsWorker && runsApi) {
    workerMetricsAddress = `127.0.0.1:${await freePort()}`;
  }
  installRuntime({
    ...(workerMetricsAddress ? { metricsAddress: workerMetricsAddress } : {}),
    logLevel: runtimeLogLevel(env.SCHEDULER_LOG_LEVEL),
  });
  const stops: Array<() => Promise<void>> = [];
  const shutdown = async () => {
    for (const stop of stops.reverse()) await stop().catch((err) => log(`while stopping: ${err.message}`));
  };
  let stopping = false;
  const onSignal = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log(`${signal}: stopping…`);
    void shutdown().then(() => {
      log('stopped');
      process.exit(0);
    });
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  try {
    const facts = deploymentFacts(env, temporal.address);
    const production = productionReasons(facts);
    const keysConfigured = env.SCHEDULER_API_KEYS !== undefined || env.SCHEDULER_API_KEY_FILE !== undefined;
    // A development key exists only in development: in production a missing key variable is an outage of
    // this process, never an API that answers every tenant's name with a key printed to the log pipeline.
    if (runsApi && production.length > 0 && !keysConfigured) {
      throw new Error(
        `no API keys in production (${production.join(', ')}): set SCHEDULER_API_KEYS or SCHEDULER_API_KEY_FILE`,
      );
    }
    const policyMode = policyAtStart({ facts, tenantsFile: env.SCHEDULER_TENANTS_FILE, runsWorker });
    if (runsApi) await assertPortFree(env.SCHEDULER_API_PORT, env.SCHEDULER_API_HOST, 'SCHEDULER_API_PORT');

    let devServer: DevServer | null = null;
    let address = temporal.address;
    if (!address) {
      const cliPath = findTemporalCli();
      if (!cliPath)
        throw new Error(
          'the Temporal CLI is missing: run `npm start` (it builds it) or set TEMPORAL_CLI_PATH',
        );
      log(`starting the Temporal dev server (data: ${env.SCHEDULER_DATA_DIR})…`);
      devServer = await startDevServer({
        cliPath,
        dbFile: join(env.SCHEDULER_DATA_DIR, 'temporal.db'),
        logFile: join(env.SCHEDULER_DATA_DIR, 'temporal-server.log'),
        port: env.TEMPORAL_PORT,
        uiPort: env.TEMPORAL_UI_PORT,
        namespace,
      });
      stops.push(() => devServer!.stop());
      address = devServer.address;
    }

    // API and worker enforce the same file: the API where a definition enters, the worker at every hand-off.
    const tenantPolicy = loadTenantPolicy({
      file: env.SCHEDULER_TENANTS_FILE,
      development: policyMode === 'development',
      log,
    });
    stops.push(async () => tenantPolicy.close());

    const embedded = devServer !== null;
    const connection = await connectTo(temporal, address, embedded);
    stops.push(() => connection.close());
    await registerSearchAttributes(connection, namespace, env.SCHEDULER_SEARCH_ATTRIBUTES);
    const client = new Client({ connection, namespace });
    let workerConnection: NativeConnection | null = null;
    const stopKeyWatch = watchApiKeyFile(
      temporal,
      () => [connection, ...(workerConnection ? [workerConnection] : [])],
      log,
    );
    stops.push(async () => stopKeyWatch());

    if (runsWorker) {
      workerConnection = await NativeConnection.connect(optionsFor(temporal, address, embedded));
      const nativeConnection = workerConnection;
      stops.push(() => nativeConnection.close());
      const worker = await createSchedulerWorker({
        connection: nativeConnection,
        namespace,
        taskQueue: env.TEMPORAL_TASK_QUEUE,
        client,
        tenantPolicy: tenantPolicy.current,
        missingTenantGraceMs: env.SCHEDULER_MISSING_TENANT_GRACE_S * 1000,
        slotBudgetMs: env.SCHEDULER_WORKER_CALENDAR_BUDGET_MS,
      });
      const workerDone = worker.run();
      stops.push(async () => {
        worker.shutdown();
        await workerDone;
      });
      const tzWatch = watchTzVersions(client, {
        version: zoneRules().version,
        mode: env.SCHEDULER_TZ_REFRESH,
        intervalMs: env.SCHEDULER_TZ_CHECK_INTERVAL_S * 1000,
        log,
        meter: Runtime.instance().metricMeter,
      });
      stops.push(async () => tzWatch.stop());
      const holidayWatch = watchHolidayData(client, {
        version: HOLIDAY_DATA_VERSION,
        mode: env.SCHEDULER_HOLIDAY_REFRESH,
        intervalMs: env.SCHEDULER_TZ_CHECK_INTERVAL_S * 1000,
        log,
        meter: Runtime.instance().metricMeter,
      });
      stops.push(async () => holidayWatch.stop());
    }

    let devKey: string | null = null;
    if (runsApi) {
      const api = await serveApi({
        client,
        taskQueue: env.TEMPORAL_TASK_QUEUE,
        jobTaskQueue: env.SCHEDULER_JOB_TASK_QUEUE,
        armLeadMs: env.SCHEDULER_ARM_LEAD_S * 1000,
        startAsleep: env.SCHEDULER_START_ASLEEP === 'on',
        host: env.SCHEDULER_API_HOST,
        port: env.SCHEDULER_API_PORT,
        dataDir: env.SCHEDULER_DATA_DIR,
        apiKeys: env.SCHEDULER_API_KEYS,
        apiKeyFile: env.SCHEDULER_API_KEY_FILE,
        tenantPolicy: tenantPolicy.current,
        allowMassRevocation: env.SCHEDULER_ALLOW_MASS_REVOCATION === '1',
        maxRevocationShare: env.SCHEDULER_MAX_REVOCATION_SHARE,
        rateLimitPerMinute: env.SCHEDULER_API_RATE_LIMIT,
        authFailuresPerMinute: env.SCHEDULER_API_AUTH_FAILURE_LIMIT,
        cursorSecret: env.SCHEDULER_CURSOR_SECRET,
        console: env.SCHEDULER_CONSOLE,
        temporalTimeoutMs: env.SCHEDULER_API_TIMEOUT_MS,
        calendar: {
          threads: env.SCHEDULER_CALENDAR_THREADS,
          budgetMs: env.SCHEDULER_CALENDAR_BUDGET_MS,
          tenantQueue: env.SCHEDULER_CALENDAR_TENANT_QUEUE,
        },
        logLevel: env.SCHEDULER_LOG_LEVEL,
        overdueAfterSeconds: env.SCHEDULER_OVERDUE_AFTER_S,
        workerMetricsUrl: workerMetricsAddress ? `http://${workerMetricsAddress}/metrics` : null,
        metricsToken: env.SCHEDULER_METRICS_TOKEN,
        trustProxy: env.SCHEDULER_TRUST_PROXY,
        nodeEnv: env.NODE_ENV,
        log,
      });
      devKey = api.devKey;
      stops.push(() => api.close());
    }

    log(
      `Temporal:   ${address} (namespace ${namespace}, task queue ${env.TEMPORAL_TASK_QUEUE}; ${embedded ? 'embedded dev server' : describeConnection(temporal)})`,
    );
    if (devServer?.uiUrl) log(`Web UI:     ${devServer.uiUrl}`);
    if (!embedded && policyMode === 'development')
      log(
        `Mode:       development on a Temporal server of your own (SCHEDULER_DEVELOPMENT=on): tenant 'dev' reaches every target and its workers take any schedule on ${env.TEMPORAL_TASK_QUEUE}; never on a server other teams use`,
      );
    if (runsWorker)
      log(
        `Worker:     running (tz database ${zoneRules().version}, refresh: ${env.SCHEDULER_TZ_REFRESH}; holiday data ${HOLIDAY_DATA_VERSION}, refresh: ${env.SCHEDULER_HOLIDAY_REFRESH})`,
      );
    log(`Targets:    ${tenantPolicy.describe()}`);
    if (runsWorker && env.SCHEDULER_METRICS_PORT) log(`Metrics:    http://${workerMetricsAddress}/metrics`);
    if (runsApi)
      log(
        `HTTP API:   http://${env.SCHEDULER_API_HOST}:${env.SCHEDULER_API_PORT}/v1 (docs: /docs, OpenAPI: /openapi.json, ready: /readyz)`,
      );
    // Printed only to a terminal: a pipe is a log pipeline, and a key in it is a key for whoever reads logs.
    if (devKey && process.stdout.isTTY)
      log(`API key:    ${devKey} (development key for tenant 'dev'; set SCHEDULER_API_KEYS in production)`);
    else if (devKey)
      log(
        `API key:    development key for tenant 'dev' in ${devApiKeyFile(env.SCHEDULER_DATA_DIR)} (not printed: stdout is not a terminal)`,
      );
    log('ready; Ctrl-C stops everything');
  } catch (err) {
    console.error(`error: ${(err as Error).message}`);
    await shutdown();
    process.exit(1);
  }
}

// A configuration error (loadEnvironment, before anything started) is one line too, with nothing to stop.
await main().catch((err: Error) => {
  console.error(`error: ${err.message}`);
  process.exit(1);
});
