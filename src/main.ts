// `npm start`: the embedded dev server (unless TEMPORAL_ADDRESS names one), the worker and the HTTP API
// in one process tree, stopped cleanly on Ctrl-C. Each part's start is a module of src/runtime.
import { loadEnvironment } from './config.js';
import { deploymentAtStart, rolesOf } from './runtime/deployment.js';
import { assertPortFree } from './runtime/ports.js';
import { Stops, stopOnSignals } from './runtime/shutdown.js';
import { startApi } from './runtime/start-api.js';
import { logStarted } from './runtime/start-up-log.js';
import { installWorkerRuntime, startWorker } from './runtime/start-worker.js';
import { loadConnectionSettings } from './runtime/temporal-connection.js';
import { connectToTemporal, reachTemporalServer } from './runtime/temporal-server.js';
import { loadTenantPolicy } from './runtime/tenant-policy-file.js';

const log = (line: string) => console.log(`[scheduler] ${line}`);

async function main(): Promise<void> {
  const env = loadEnvironment();
  const settings = loadConnectionSettings();
  const roles = rolesOf(env);
  const workerMetricsAddress = await installWorkerRuntime(env, roles);
  const stops = new Stops(log);
  stopOnSignals(() => stops.stopAll(), log);

  try {
    const policyMode = deploymentAtStart(env, settings.address, roles);
    if (roles.api) await assertPortFree(env.SCHEDULER_API_PORT, env.SCHEDULER_API_HOST, 'SCHEDULER_API_PORT');
    const server = await reachTemporalServer(env, settings, stops, log);
    // API and worker enforce the same file: the API where a definition enters, the worker at every hand-off.
    const tenantPolicy = loadTenantPolicy({
      file: env.SCHEDULER_TENANTS_FILE,
      development: policyMode === 'development',
      log,
    });
    stops.add(async () => tenantPolicy.close());
    const temporal = await connectToTemporal(env, settings, server, stops, log);
    if (roles.worker) await startWorker({ env, temporal, tenantPolicy, stops, log });
    const devKey = roles.api
      ? await startApi({ env, client: temporal.client, tenantPolicy, workerMetricsAddress, stops, log })
      : null;
    logStarted({ env, roles, settings, server, policyMode, tenantPolicy, workerMetricsAddress, devKey }, log);
  } catch (err) {
    console.error(`error: ${(err as Error).message}`);
    await stops.stopAll();
    process.exit(1);
  }
}

// A configuration error (loadEnvironment, before anything started) is one line too, with nothing to stop.
await main().catch((err: Error) => {
  console.error(`error: ${err.message}`);
  process.exit(1);
});
