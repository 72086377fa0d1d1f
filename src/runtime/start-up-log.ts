// The lines `npm start` prints once everything runs: where each part is and how to reach it.
import { devApiKeyFile } from '../api/auth.js';
import { HOLIDAY_DATA_VERSION } from '../calendar/holiday-data.js';
import { zoneRules } from '../calendar/index.js';
import type { Environment, PolicyAtStart } from '../config.js';
import type { Roles } from './deployment.js';
import { describeConnection, type TemporalConnectionSettings } from './temporal-connection.js';
import type { TemporalServer } from './temporal-server.js';
import type { TenantPolicySource } from './tenant-policy-file.js';

export interface Started {
  env: Environment;
  roles: Roles;
  settings: TemporalConnectionSettings;
  server: TemporalServer;
  policyMode: PolicyAtStart;
  tenantPolicy: TenantPolicySource;
  workerMetricsAddress: string | null;
  /** The development key the API made, or null. */
  devKey: string | null;
}

export function logStarted(started: Started, log: (line: string) => void): void {
  const { env, roles, server, devKey } = started;
  const embedded = server.devServer !== null;
  log(
    `Temporal:   ${server.address} (namespace ${started.settings.namespace}, task queue ${env.TEMPORAL_TASK_QUEUE}; ${embedded ? 'embedded dev server' : describeConnection(started.settings)})`,
  );
  if (server.devServer?.uiUrl) log(`Web UI:     ${server.devServer.uiUrl}`);
  if (!embedded && started.policyMode === 'development')
    log(
      `Mode:       development on a Temporal server of your own (SCHEDULER_DEVELOPMENT=on): tenant 'dev' reaches every target and its workers take any schedule on ${env.TEMPORAL_TASK_QUEUE}; never on a server other teams use`,
    );
  if (roles.worker)
    log(
      `Worker:     running (tz database ${zoneRules().version}, refresh: ${env.SCHEDULER_TZ_REFRESH}; holiday data ${HOLIDAY_DATA_VERSION}, refresh: ${env.SCHEDULER_HOLIDAY_REFRESH})`,
    );
  log(`Targets:    ${started.tenantPolicy.describe()}`);
  if (roles.worker && env.SCHEDULER_METRICS_PORT)
    log(`Metrics:    http://${started.workerMetricsAddress}/metrics`);
  if (roles.api)
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
}
