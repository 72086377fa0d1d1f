import { resolve } from 'node:path';
import { z } from 'zod';
import { repoRoot } from '../scripts/toolchain.mjs';

const port = z.coerce.number().int().min(1).max(65535);

/** Environment variables the product reads; README "Configuration" documents each. */
export const EnvironmentSchema = z.object({
  TEMPORAL_ADDRESS: z.string().min(1).optional(),
  TEMPORAL_NAMESPACE: z.string().min(1).default('default'),
  TEMPORAL_TASK_QUEUE: z.string().min(1).default('durable-scheduler'),
  /** Where JOB targets without a task_queue are started: the users' job workers poll it. */
  SCHEDULER_JOB_TASK_QUEUE: z.string().min(1).default('jobs'),
  TEMPORAL_PORT: port.default(7233),
  TEMPORAL_UI_PORT: port.default(8233),
  SCHEDULER_API_PORT: port.default(8080),
  SCHEDULER_API_HOST: z.string().min(1).default('127.0.0.1'),
  SCHEDULER_API_KEYS: z.string().optional(),
  /** File of `sha256:<hex>=tenant_id:owner_ref` lines (hashed keys), re-read when it changes. */
  SCHEDULER_API_KEY_FILE: z.string().min(1).optional(),
  /**
   * JSON file of what each tenant's targets may reach (src/model/tenant-policy.ts), re-read when it changes.
   * Unset: the development tenant reaches everything when no API keys are configured, else nothing does.
   */
  SCHEDULER_TENANTS_FILE: z.string().min(1).optional(),
  /** Replaced by `event_sinks` in SCHEDULER_TENANTS_FILE (0.5): set, it stops the start with how to migrate. */
  SCHEDULER_EVENT_SINKS: z.string().optional(),
  SCHEDULER_API_RATE_LIMIT: z.coerce.number().int().min(1).default(600),
  /** Requests with an invalid key a minute from one client address before it is answered 429; 0: no limit. */
  SCHEDULER_API_AUTH_FAILURE_LIMIT: z.coerce.number().int().min(0).default(20),
  /**
   * Signs the API's list cursors. Every API replica of a deployment needs the same one (a cursor one signed
   * is refused by another); unset, each process makes its own at start, so a cursor holds only on the
   * process that issued it, until it restarts.
   */
  SCHEDULER_CURSOR_SECRET: z
    .string()
    .min(32, 'at least 32 characters (e.g. `openssl rand -base64 32`); unset it to sign per process')
    .optional(),
  SCHEDULER_API_TIMEOUT_MS: z.coerce.number().int().min(100).default(10_000),
  /** Where a worker process serves its Prometheus metrics (SCHEDULER_ROLE=worker: set it to scrape). */
  SCHEDULER_METRICS_PORT: port.optional(),
  SCHEDULER_METRICS_HOST: z.string().min(1).default('127.0.0.1'),
  /** An active schedule whose next run is older than this many seconds counts as overdue. */
  SCHEDULER_OVERDUE_AFTER_S: z.coerce.number().int().min(1).default(300),
  SCHEDULER_LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('warn'),
  /** Which parts this process runs: both (default), or one, to scale workers and API separately. */
  SCHEDULER_ROLE: z.enum(['all', 'worker', 'api']).default('all'),
  SCHEDULER_DATA_DIR: z.string().min(1).default(resolve(repoRoot, '.data')),
});

export type Environment = z.infer<typeof EnvironmentSchema>;

export class ConfigError extends Error {
  override name = 'ConfigError';
}

export function loadEnvironment(env: NodeJS.ProcessEnv = process.env): Environment {
  const parsed = EnvironmentSchema.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ConfigError(`environment variable ${issue.path.join('.')}: ${issue.message}`);
  }
  if (parsed.data.SCHEDULER_EVENT_SINKS !== undefined) {
    throw new ConfigError(
      'SCHEDULER_EVENT_SINKS is replaced by the tenant policy (0.5): list the prefixes under "event_sinks" of each tenant in a SCHEDULER_TENANTS_FILE (README, "Tenancy"), then unset SCHEDULER_EVENT_SINKS',
    );
  }
  return parsed.data;
}
