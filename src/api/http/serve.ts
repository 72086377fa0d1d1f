// Runs the HTTP API for `npm start` / SCHEDULER_ROLE=api: keys from the environment or a key file (re-read
// when it changes), the owners whose keys are gone stopped (src/api/owners.ts), then listen.
import { unwatchFile, watchFile } from 'node:fs';
import type { Client } from '@temporalio/client';
import { productionReasons } from '../../config.js';
import { DEFAULT_MAX_REVOCATION_SHARE, DEFAULT_OVERDUE_AFTER_S } from '../../model/defaults.js';
import type { TenantPolicy } from '../../model/tenant-policy.js';
import type { TrustProxy } from '../../model/trust-proxy.js';
import { developmentApiKey, KeyRing } from '../auth.js';
import { keyConfigurationGeneration, ownersOf, RevocationsTold, reconcileOwners } from '../owners.js';
import { backoff } from '../retry.js';
import { type ScheduleStartOptions, scheduleStartOptions } from '../sdk/options.js';
import type { CalendarPoolOptions } from './calendar-pool.js';
import { consoleEnabled } from './console.js';
import { createApiMetrics } from './metrics.js';
import { type ApiDependencies, buildApi } from './server.js';

export interface ServeApiOptions extends ScheduleStartOptions {
  client: Client;
  taskQueue: string;
  jobTaskQueue: string;
  host: string;
  port: number;
  dataDir: string;
  apiKeys?: string | undefined;
  apiKeyFile?: string | undefined;
  /** The tenant policy in force (SCHEDULER_TENANTS_FILE, followed by the caller). */
  tenantPolicy: () => TenantPolicy;
  /** How often the owner reconcile runs besides key changes (ms; default 5 minutes). */
  ownerReconcileIntervalMs?: number;
  /** SCHEDULER_ALLOW_MASS_REVOCATION. */
  allowMassRevocation?: boolean;
  /** SCHEDULER_MAX_REVOCATION_SHARE (default DEFAULT_MAX_REVOCATION_SHARE). */
  maxRevocationShare?: number;
  rateLimitPerMinute: number;
  /** Failed authentications a minute from one client address before 429 (default DEFAULT_AUTH_FAILURES_PER_MINUTE; 0: no limit). */
  authFailuresPerMinute?: number;
  /** SCHEDULER_TRUST_PROXY: the proxies whose X-Forwarded-For is believed (default off). */
  trustProxy?: TrustProxy;
  /** SCHEDULER_CURSOR_SECRET; unset, list cursors hold only on this process. */
  cursorSecret?: string | undefined;
  temporalTimeoutMs: number;
  logLevel: string;
  /** An active schedule whose next run is older than this is overdue (metrics). */
  overdueAfterSeconds?: number;
  /** The worker runtime's Prometheus endpoint in this process, appended to GET /metrics. */
  workerMetricsUrl?: string | null;
  /** SCHEDULER_METRICS_TOKEN: GET /metrics needs it as a bearer token when set. */
  metricsToken?: string | undefined;
  /** SCHEDULER_CALENDAR_THREADS, _BUDGET_MS, _TENANT_QUEUE (./calendar-pool.ts); default DEFAULT_CALENDAR_POOL. */
  calendar?: CalendarPoolOptions;
  /** NODE_ENV: `production` makes this a production deployment (see isProductionDeployment). */
  nodeEnv?: string | undefined;
  /** SCHEDULER_CONSOLE: the web console under /console/; unset, served in development only (consoleEnabled). */
  console?: 'on' | 'off' | undefined;
  log: (line: string) => void;
}

export interface RunningApi {
  url: string;
  /** The development key made because no keys were configured, else null. */
  devKey: string | null;
  close(): Promise<void>;
}

/** The keys configured, or (none configured) this data dir's development key, then also returned. */
function configuredKeys(options: ServeApiOptions): { keys: string | undefined; devKey: string | null } {
  if (options.apiKeys || options.apiKeyFile) return { keys: options.apiKeys, devKey: null };
  const dev = developmentApiKey(options.dataDir);
  return { keys: dev.spec, devKey: dev.key };
}

/** The keys in force and their generation (keyConfigurationGeneration), loaded together. */
interface LoadedKeys {
  ring: KeyRing;
  generation: number;
}

/**
 * Every key change, and periodically (a schedule created with a key in the moment it was removed, a
 * reconcile that met Temporal down): a failed run is retried with backoff until one succeeds, so a revoked
 * owner's schedules stop within a retry (at most RECONCILE_RETRY_MAX_MS) of Temporal answering again.
 */
function ownerReconcilerOf(options: ServeApiOptions, keys: () => LoadedKeys, told: RevocationsTold) {
  return ownerReconciler({
    reconcile: async () => {
      const { ring, generation } = keys();
      const result = await reconcileOwners(options.client, ring.principals(), {
        taskQueue: options.taskQueue,
        allowMassRevocation: options.allowMassRevocation ?? false,
        maxShare: options.maxRevocationShare ?? DEFAULT_MAX_REVOCATION_SHARE,
        generation,
        told,
      });
      // Loud: a refused report means the keys this process holds are probably not the intended ones.
      if (result.registry.refused) options.log(`REFUSED mass revocation: ${result.registry.refused}`);
      // Expected for a while on a replica the new keys have not reached yet; for long, a file to check.
      if (result.registry.outdated)
        options.log(`key configuration not applied to schedule owners: ${result.registry.outdated}`);
      if (result.registry.newlyRevoked.length > 0)
        options.log(`owners revoked by the key configuration: ${result.registry.newlyRevoked.join(', ')}`);
      return result;
    },
    intervalMs: options.ownerReconcileIntervalMs ?? 5 * 60_000,
    log: options.log,
  });
}

function apiDependencies(options: ServeApiOptions, ring: () => KeyRing): ApiDependencies {
  const production = productionReasons(options).length > 0;
  if (production && !options.metricsToken) {
    options.log(
      'GET /metrics on the API answers 404 (production without SCHEDULER_METRICS_TOKEN): set the token to scrape it; worker metrics are on SCHEDULER_METRICS_PORT',
    );
  }
  return {
    client: options.client,
    taskQueue: options.taskQueue,
    jobTaskQueue: options.jobTaskQueue,
    ...scheduleStartOptions(options),
    keys: ring,
    tenantPolicy: options.tenantPolicy,
    rateLimitPerMinute: options.rateLimitPerMinute,
    publicRateLimitPerMinute: options.rateLimitPerMinute,
    ...(options.authFailuresPerMinute !== undefined
      ? { authFailuresPerMinute: options.authFailuresPerMinute }
      : {}),
    ...(options.trustProxy ? { trustProxy: options.trustProxy } : {}),
    ...(options.cursorSecret ? { cursorSecret: options.cursorSecret } : {}),
    temporalTimeoutMs: options.temporalTimeoutMs,
    ...(options.calendar ? { calendar: options.calendar } : {}),
    metrics: createApiMetrics({
      client: options.client,
      overdueAfterSeconds: options.overdueAfterSeconds ?? DEFAULT_OVERDUE_AFTER_S,
      workerMetricsUrl: options.workerMetricsUrl ?? null,
    }),
    metricsToken: options.metricsToken,
    production,
    console: consoleEnabled(options.console, production),
    logger: {
      level: options.logLevel,
      // Keys never reach the logs.
      redact: ['req.headers.authorization'],
    },
  };
}

/** Runs `reload` whenever the key file changes; a broken edit keeps the keys that last worked. */
function watchKeyFile(keyFile: string, reload: () => void, log: (line: string) => void): () => void {
  watchFile(keyFile, { interval: 2000 }, () => {
    try {
      reload();
    } catch (err) {
      log(`API key file not reloaded, keeping the previous keys: ${(err as Error).message}`);
    }
  });
  return () => unwatchFile(keyFile);
}

export async function serveApi(options: ServeApiOptions): Promise<RunningApi> {
  const { keys, devKey } = configuredKeys(options);
  const startedAt = Date.now();
  const load = (): LoadedKeys => {
    // The generation first: see keyConfigurationGeneration.
    const generation = keyConfigurationGeneration(options.apiKeyFile, startedAt);
    return { ring: KeyRing.fromConfig({ keys, keyFile: options.apiKeyFile }), generation };
  };
  // Checked now, so a malformed key configuration fails at start-up rather than at the first call.
  let loaded = load();
  const told = new RevocationsTold(() => ownersOf(loaded.ring.principals()));
  // Development mode never revokes: its one key says nothing about the owners of other tenants.
  const reconciler = devKey ? null : ownerReconcilerOf(options, () => loaded, told);
  const app = await buildApi(apiDependencies(options, () => loaded.ring));
  await app.listen({ port: options.port, host: options.host });
  reconciler?.request();
  const keyFile = options.apiKeyFile;
  const unwatch = keyFile
    ? watchKeyFile(
        keyFile,
        () => {
          loaded = load();
          // An owner back in the keys may resume its schedules here before the next reconcile: if it is
          // removed again, they must be told again.
          told.forgetAuthorized();
          options.log(`API keys reloaded from ${keyFile}: ${loaded.ring.describe()}`);
          reconciler?.request();
        },
        options.log,
      )
    : () => {};
  return {
    url: `http://${options.host}:${options.port}`,
    devKey,
    close: async () => {
      unwatch();
      reconciler?.stop();
      await app.close();
    },
  };
}

const RECONCILE_RETRY_MAX_MS = 30_000;
const reconcileBackoff = backoff({ firstMs: 1_000, maxMs: RECONCILE_RETRY_MAX_MS });

/**
 * Runs the owner reconcile one at a time: on request (start, key reload), every `intervalMs`, and again
 * with backoff (1 s doubling to 30 s) after a failure until a run succeeds. A request during a run makes
 * one more run after it (the keys may have changed meanwhile).
 */
export function ownerReconciler(options: {
  reconcile: () => Promise<{ revoked: string[] }>;
  intervalMs: number;
  log: (line: string) => void;
}) {
  let running = false;
  let again = false;
  let stopped = false;
  let failures = 0;
  let timer: NodeJS.Timeout | null = null;
  const schedule = (ms: number) => {
    if (stopped) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(request, ms);
    timer.unref();
  };
  async function run() {
    running = true;
    try {
      const { revoked } = await options.reconcile();
      failures = 0;
      if (revoked.length > 0)
        options.log(`owners without a key: ${revoked.length} schedule(s) now refuse their slots`);
      schedule(options.intervalMs);
    } catch (err) {
      failures += 1;
      const retryMs = reconcileBackoff(failures);
      options.log(
        `could not check schedule owners against the keys (retrying in ${retryMs / 1000} s): ${(err as Error).message}`,
      );
      schedule(retryMs);
    } finally {
      running = false;
      if (again && !stopped) {
        again = false;
        void run();
      }
    }
  }
  function request() {
    if (stopped) return;
    if (running) again = true;
    else void run();
  }
  return {
    request,
    stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
    },
  };
}
