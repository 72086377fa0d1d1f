// The HTTP API in `npm start` (unless SCHEDULER_ROLE=worker): its options from the environment.
import type { Client } from '@temporalio/client';
import { type ServeApiOptions, serveApi } from '../api/http/serve.js';
import type { Environment } from '../config.js';
import type { Stops } from './shutdown.js';
import type { TenantPolicySource } from './tenant-policy-file.js';

export interface ApiStart {
  env: Environment;
  client: Client;
  tenantPolicy: TenantPolicySource;
  /** Where this process's worker serves its metrics, appended to GET /metrics; null: none here. */
  workerMetricsAddress: string | null;
  stops: Stops;
  log: (line: string) => void;
}

const serveOptions = ({
  env,
  client,
  tenantPolicy,
  workerMetricsAddress,
  log,
}: ApiStart): ServeApiOptions => ({
  client,
  taskQueue: env.TEMPORAL_TASK_QUEUE,
  jobTaskQueue: env.SCHEDULER_JOB_TASK_QUEUE,
  armLeadMs: env.SCHEDULER_ARM_LEAD_S * 1000,
  armAheadMs: env.SCHEDULER_ARM_AHEAD_S * 1000,
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

/** Serves the API until stopped; returns the development key it made (no keys configured), else null. */
export async function startApi(start: ApiStart): Promise<string | null> {
  const api = await serveApi(serveOptions(start));
  start.stops.add(() => api.close());
  return api.devKey;
}
