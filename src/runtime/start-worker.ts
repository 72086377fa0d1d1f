// The scheduler's worker in `npm start` (unless SCHEDULER_ROLE=api): its runtime and metrics, the worker
// itself, and the watch of the data releases its schedules were computed with.
import { Runtime } from '@temporalio/worker';
import { HOLIDAY_DATA_VERSION } from '../calendar/holiday-data.js';
import { zoneRules } from '../calendar/index.js';
import type { Environment } from '../config.js';
import { createSchedulerWorker } from '../worker.js';
import { watchArmedPolicy } from './armed-policy-watch.js';
import type { Roles } from './deployment.js';
import { assertPortFree, freePort } from './ports.js';
import { watchReleases } from './release-watch.js';
import type { Stops } from './shutdown.js';
import { installRuntime, runtimeLogLevel } from './telemetry.js';
import type { TemporalConnections } from './temporal-server.js';
import type { TenantPolicySource } from './tenant-policy-file.js';

/**
 * Installs the process's Temporal runtime and returns where it serves the worker's metrics: on
 * SCHEDULER_METRICS_PORT when set (a worker-only process is scraped there); otherwise, when this process
 * also serves the API, on an internal port that GET /metrics appends; else nowhere (null).
 */
export async function installWorkerRuntime(env: Environment, roles: Roles): Promise<string | null> {
  let metricsAddress: string | null = null;
  if (roles.worker && env.SCHEDULER_METRICS_PORT) {
    await assertPortFree(env.SCHEDULER_METRICS_PORT, env.SCHEDULER_METRICS_HOST, 'SCHEDULER_METRICS_PORT');
    metricsAddress = `${env.SCHEDULER_METRICS_HOST}:${env.SCHEDULER_METRICS_PORT}`;
  } else if (roles.worker && roles.api) {
    metricsAddress = `127.0.0.1:${await freePort()}`;
  }
  installRuntime({
    ...(metricsAddress ? { metricsAddress } : {}),
    logLevel: runtimeLogLevel(env.SCHEDULER_LOG_LEVEL),
  });
  return metricsAddress;
}

/**
 * Runs the worker on its own connection until stopped, watches the tz database and holiday data, and checks
 * armed jobs against the tenant policy whenever it changes.
 */
export async function startWorker(options: {
  env: Environment;
  temporal: TemporalConnections;
  tenantPolicy: TenantPolicySource;
  stops: Stops;
  log: (line: string) => void;
}): Promise<void> {
  const { env, temporal, stops } = options;
  const connection = await temporal.connectWorker();
  const worker = await createSchedulerWorker({
    connection,
    namespace: temporal.namespace,
    taskQueue: env.TEMPORAL_TASK_QUEUE,
    client: temporal.client,
    tenantPolicy: options.tenantPolicy.current,
    missingTenantGraceMs: env.SCHEDULER_MISSING_TENANT_GRACE_S * 1000,
    slotBudgetMs: env.SCHEDULER_WORKER_CALENDAR_BUDGET_MS,
  });
  const workerDone = worker.run();
  stops.add(async () => {
    worker.shutdown();
    await workerDone;
  });
  const releaseWatch = watchReleases(temporal.client, {
    tz: { version: zoneRules().version, mode: env.SCHEDULER_TZ_REFRESH },
    holidayData: { version: HOLIDAY_DATA_VERSION, mode: env.SCHEDULER_HOLIDAY_REFRESH },
    intervalMs: env.SCHEDULER_TZ_CHECK_INTERVAL_S * 1000,
    log: options.log,
    meter: Runtime.instance().metricMeter,
  });
  stops.add(async () => releaseWatch.stop());
  const armedPolicyWatch = watchArmedPolicy(temporal.client, {
    policy: options.tenantPolicy.current,
    onPolicyChange: options.tenantPolicy.onChange,
    schedulerTaskQueue: env.TEMPORAL_TASK_QUEUE,
    missingTenantGraceMs: env.SCHEDULER_MISSING_TENANT_GRACE_S * 1000,
    log: options.log,
  });
  stops.add(async () => armedPolicyWatch.stop());
}
