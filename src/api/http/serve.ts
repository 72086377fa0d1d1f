// Runs the HTTP API for `npm start` / SCHEDULER_ROLE=api: keys from the environment or a key file (re-read
// when it changes), the owners whose keys are gone stopped (src/api/owners.ts), then listen.
import { unwatchFile, watchFile } from 'node:fs';
import type { Client } from '@temporalio/client';
import { developmentApiKey, KeyRing, parseEventSinkAllowlist } from '../auth.js';
import { revokeUnauthorizedOwners } from '../owners.js';
import { createApiMetrics } from './metrics.js';
import { buildApi } from './server.js';

export interface ServeApiOptions {
  client: Client;
  taskQueue: string;
  jobTaskQueue: string;
  host: string;
  port: number;
  dataDir: string;
  apiKeys?: string | undefined;
  apiKeyFile?: string | undefined;
  eventSinks?: string | undefined;
  rateLimitPerMinute: number;
  temporalTimeoutMs: number;
  logLevel: string;
  /** An active schedule whose next run is older than this is overdue (metrics). */
  overdueAfterSeconds?: number;
  /** The worker runtime's Prometheus endpoint in this process, appended to GET /metrics. */
  workerMetricsUrl?: string | null;
  log: (line: string) => void;
}

export interface RunningApi {
  url: string;
  /** The development key made because no keys were configured, else null. */
  devKey: string | null;
  close(): Promise<void>;
}

export async function serveApi(options: ServeApiOptions): Promise<RunningApi> {
  let keys = options.apiKeys;
  let devKey: string | null = null;
  if (!keys && !options.apiKeyFile) {
    const dev = developmentApiKey(options.dataDir);
    keys = dev.spec;
    devKey = dev.key;
  }
  const load = () => KeyRing.fromConfig({ keys, keyFile: options.apiKeyFile });
  // Checked now, so a malformed key configuration fails at start-up rather than at the first call.
  let ring = load();
  const eventSinks = parseEventSinkAllowlist(options.eventSinks);

  const reconcile = () =>
    revokeUnauthorizedOwners(options.client, ring.principals()).then(
      ({ revoked }) => {
        if (revoked.length > 0)
          options.log(`owners without a key: ${revoked.length} schedule(s) now refuse their slots`);
      },
      (err) => options.log(`could not check schedule owners against the keys: ${(err as Error).message}`),
    );

  const app = await buildApi({
    client: options.client,
    taskQueue: options.taskQueue,
    jobTaskQueue: options.jobTaskQueue,
    keys: () => ring,
    eventSinks,
    rateLimitPerMinute: options.rateLimitPerMinute,
    temporalTimeoutMs: options.temporalTimeoutMs,
    metrics: createApiMetrics({
      client: options.client,
      overdueAfterSeconds: options.overdueAfterSeconds ?? 300,
      workerMetricsUrl: options.workerMetricsUrl ?? null,
    }),
    logger: {
      level: options.logLevel,
      // Keys never reach the logs.
      redact: ['req.headers.authorization'],
    },
  });
  await app.listen({ port: options.port, host: options.host });
  void reconcile();

  const keyFile = options.apiKeyFile;
  if (keyFile) {
    watchFile(keyFile, { interval: 2000 }, () => {
      try {
        ring = load();
        options.log(`API keys reloaded from ${keyFile}: ${ring.describe()}`);
        void reconcile();
      } catch (err) {
        // A broken edit keeps the previous keys: the API stays up with what last worked.
        options.log(`API key file not reloaded, keeping the previous keys: ${(err as Error).message}`);
      }
    });
  }
  return {
    url: `http://${options.host}:${options.port}`,
    devKey,
    close: async () => {
      if (keyFile) unwatchFile(keyFile);
      await app.close();
    },
  };
}
