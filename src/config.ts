import { resolve } from 'node:path';
import { z } from 'zod';
import { repoRoot } from '../scripts/toolchain.mjs';
import { classifyAddress } from './model/network-address.js';
import { parseTrustProxy } from './model/trust-proxy.js';
import { DEFAULT_ARM_LEAD_MS } from './model/views.js';

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
  /** A key reload may revoke every owner of a tenant, or more than SCHEDULER_MAX_REVOCATION_SHARE of them. */
  SCHEDULER_ALLOW_MASS_REVOCATION: z.enum(['0', '1']).default('0'),
  /** Above this share of the known owners a key configuration is refused as a likely mistake. */
  SCHEDULER_MAX_REVOCATION_SHARE: z.coerce.number().min(0).max(1).default(0.5),
  /** Replaced by `event_sinks` in SCHEDULER_TENANTS_FILE (0.5): set, it stops the start with how to migrate. */
  SCHEDULER_EVENT_SINKS: z.string().optional(),
  SCHEDULER_API_RATE_LIMIT: z.coerce.number().int().min(1).default(600),
  /** Requests with an invalid key a minute from one client address before it is answered 429; 0: no limit. */
  SCHEDULER_API_AUTH_FAILURE_LIMIT: z.coerce.number().int().min(0).default(20),
  /**
   * The reverse proxies in front of the API whose X-Forwarded-For is believed (Fastify's `trustProxy`): a
   * comma-separated list of their addresses and CIDR ranges (`10.0.0.0/8`, or `loopback`, `linklocal`,
   * `uniquelocal`). The per-address limits (public routes, failed authentications) then count the client
   * they forwarded for; unset or `off`, the TCP peer. `true` and hop counts are refused (src/model/trust-proxy.ts).
   */
  SCHEDULER_TRUST_PROXY: z
    .string()
    .optional()
    .transform((value, ctx) => {
      try {
        return parseTrustProxy(value);
      } catch (err) {
        ctx.addIssue({ code: 'custom', message: (err as Error).message });
        return z.NEVER;
      }
    }),
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
  /** Worker threads of the API's calendar searches; 0: on the event loop, unbounded (as up to 0.5). */
  SCHEDULER_CALENDAR_THREADS: z.coerce.number().int().min(0).max(64).default(2),
  /** Wall time one request's calendar searches may take in a thread before 422 SEARCH_LIMIT. */
  SCHEDULER_CALENDAR_BUDGET_MS: z.coerce.number().int().min(10).default(1000),
  /** Calendar searches of one tenant waiting for a thread before 429. */
  SCHEDULER_CALENDAR_TENANT_QUEUE: z.coerce.number().int().min(0).default(8),
  /**
   * Wall time one slot activity's calendar search may take on a worker's main thread, which every tenant's
   * hand-offs share: a schedule's batch that runs out ends shorter (the next one continues it), a
   * backfill's is refused with the reason (src/activities/slots.ts).
   */
  SCHEDULER_WORKER_CALENDAR_BUDGET_MS: z.coerce.number().int().min(10).default(1000),
  /** Where a worker process serves its Prometheus metrics (SCHEDULER_ROLE=worker: set it to scrape). */
  SCHEDULER_METRICS_PORT: port.optional(),
  SCHEDULER_METRICS_HOST: z.string().min(1).default('127.0.0.1'),
  /** When set, the API's GET /metrics needs `Authorization: Bearer <token>`; in production, it is served only then. */
  SCHEDULER_METRICS_TOKEN: z
    .string()
    .regex(/^\S{16,}$/, 'at least 16 characters, no spaces (e.g. `openssl rand -hex 24`)')
    .optional(),
  /** `production` counts as a production deployment (the API's /metrics then needs SCHEDULER_METRICS_TOKEN). */
  NODE_ENV: z.string().optional(),
  /**
   * What a worker does about running schedules whose buffered slots an older tz database computed (after an
   * operator upgraded Node): `recompute` them (default), `notify` them (describe shows it, a metric counts
   * them), or `off`.
   */
  SCHEDULER_TZ_REFRESH: z.enum(['off', 'notify', 'recompute']).default('recompute'),
  /** How often a worker looks for schedules behind its tz database (after one check at start). */
  SCHEDULER_TZ_CHECK_INTERVAL_S: z.coerce.number().int().min(10).default(600),
  /**
   * What a worker does about running business-day schedules whose buffered slots older holiday data decided
   * (after a deploy that brings a newer date-holidays release): as SCHEDULER_TZ_REFRESH, checked at its interval.
   */
  SCHEDULER_HOLIDAY_REFRESH: z.enum(['off', 'notify', 'recompute']).default('recompute'),
  /** An active schedule whose next run is older than this many seconds counts as overdue. */
  /**
   * How long before its slot a recurring ALLOW JOB is started with a delay to its instant (armed), so that
   * at the instant the server alone begins it; also how long before the job begins its target was last
   * checked against the tenant policy. 0: never armed (each job started at its instant).
   */
  SCHEDULER_ARM_LEAD_S: z.coerce
    .number()
    .int()
    .min(0)
    .max(3600)
    .default(DEFAULT_ARM_LEAD_MS / 1000),
  /**
   * `on` (default): a new schedule whose first run is more than a minute past its arm lead (at least 60 s)
   * starts asleep (its workflow started with a delay to its arming point within that lead), so creating it costs the worker
   * nothing until then; `off`: its first workflow task runs at creation.
   */
  SCHEDULER_START_ASLEEP: z.enum(['on', 'off']).default('on'),
  /**
   * The product's search attributes at start: `register` the missing ones (where that is refused, check that
   * they exist), `check` only, or `skip` (managed elsewhere). src/runtime/namespace.ts.
   */
  SCHEDULER_SEARCH_ATTRIBUTES: z.enum(['register', 'check', 'skip']).default('register'),
  /**
   * `on`: development on a Temporal server of your own named by TEMPORAL_ADDRESS (`temporal server
   * start-dev`): tenant `dev` reaches every target and a development API key is made, as with the embedded
   * dev server. Refused beside API keys, NODE_ENV=production or a non-loopback API: never on a server other
   * teams' workers poll.
   */
  SCHEDULER_DEVELOPMENT: z.enum(['on', 'off']).default('off'),
  /**
   * Seconds a hand-off whose tenant has no entry in the policy is retried before it is recorded refused (a
   * policy file that lost an entry mid-edit). At most 100: the hand-off's retry budget (handoff.ts).
   */
  SCHEDULER_MISSING_TENANT_GRACE_S: z.coerce.number().int().min(0).max(100).default(60),
  /** A file holding the API key of the Temporal connection (one line), re-read when it changes. */
  SCHEDULER_TEMPORAL_API_KEY_FILE: z.string().min(1).optional(),
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
  // Set but empty is a slip (an unmounted secret, `SCHEDULER_API_KEYS=` in an env file), never "development".
  if (parsed.data.SCHEDULER_API_KEYS !== undefined && parsed.data.SCHEDULER_API_KEYS.trim() === '') {
    throw new ConfigError(
      'SCHEDULER_API_KEYS is set but empty: list the keys (key=tenant_id:owner_ref, comma-separated), or unset it for development',
    );
  }
  if (parsed.data.SCHEDULER_EVENT_SINKS !== undefined) {
    throw new ConfigError(
      'SCHEDULER_EVENT_SINKS is replaced by the tenant policy (0.5): list the prefixes under "event_sinks" of each tenant in a SCHEDULER_TENANTS_FILE (README, "Tenancy"), then unset SCHEDULER_EVENT_SINKS',
    );
  }
  return parsed.data;
}

/** What decides whether a process is a production one (environment names in brackets). */
export interface DeploymentFacts {
  /** SCHEDULER_API_KEYS */
  apiKeys?: string | undefined;
  /** SCHEDULER_API_KEY_FILE */
  apiKeyFile?: string | undefined;
  /** NODE_ENV */
  nodeEnv?: string | undefined;
  /** SCHEDULER_API_HOST */
  host: string;
  /** The Temporal server named by TEMPORAL_ADDRESS or a profile; undefined: the embedded dev server. */
  temporalAddress?: string | undefined;
  /** SCHEDULER_DEVELOPMENT=on: a named server is the developer's own. */
  developmentOptIn?: boolean;
}

/**
 * Why this is a production deployment, or none (development: `npm start` on a laptop): API keys are
 * configured (a development key is made only when none are), NODE_ENV is `production`, the API listens
 * beyond loopback, or Temporal is a server other than the embedded dev server (a shared cluster's task
 * queue is polled by other tenants' work; SCHEDULER_DEVELOPMENT=on says it is the developer's own).
 */
export function productionReasons(facts: DeploymentFacts): string[] {
  const reasons: string[] = [];
  if (facts.apiKeys?.trim() || facts.apiKeyFile) reasons.push('API keys are configured');
  if (facts.nodeEnv === 'production') reasons.push('NODE_ENV=production');
  if (!isLoopbackHost(facts.host)) reasons.push(`the API binds ${facts.host}`);
  if (facts.temporalAddress !== undefined && !facts.developmentOptIn)
    reasons.push(`Temporal at ${facts.temporalAddress} is not the embedded dev server`);
  return reasons;
}

export const deploymentFacts = (env: Environment, temporalAddress: string | undefined): DeploymentFacts => ({
  apiKeys: env.SCHEDULER_API_KEYS,
  apiKeyFile: env.SCHEDULER_API_KEY_FILE,
  nodeEnv: env.NODE_ENV,
  host: env.SCHEDULER_API_HOST,
  temporalAddress,
  developmentOptIn: env.SCHEDULER_DEVELOPMENT === 'on',
});

/** How this process's tenant policy is had at start: from its file, open to `dev`, or closed to all. */
export type PolicyAtStart = 'file' | 'development' | 'closed';

/**
 * Which tenant policy a process starts with, or a refusal (ConfigError) naming the variable: a worker in
 * production without SCHEDULER_TENANTS_FILE would record every hand-off it takes as refused (a volume not
 * mounted in a rolling deploy), and SCHEDULER_DEVELOPMENT=on beside a production setting is a contradiction.
 * An API alone without the file starts closed: it refuses each create with a reason, which loses nothing.
 */
export function policyAtStart(options: {
  facts: DeploymentFacts;
  tenantsFile: string | undefined;
  runsWorker: boolean;
}): PolicyAtStart {
  const reasons = productionReasons(options.facts);
  if (options.facts.developmentOptIn && reasons.length > 0)
    throw new ConfigError(
      `SCHEDULER_DEVELOPMENT=on in a production deployment (${reasons.join(', ')}): unset SCHEDULER_DEVELOPMENT, or those settings`,
    );
  if (options.tenantsFile) return 'file';
  if (reasons.length === 0) return 'development';
  if (options.runsWorker)
    throw new ConfigError(
      `SCHEDULER_TENANTS_FILE is not set: a worker in production (${reasons.join(', ')}) would refuse every hand-off it takes. Mount the tenant policy and set SCHEDULER_TENANTS_FILE (deploy/tenants.example.json)${options.facts.temporalAddress !== undefined ? ', or set SCHEDULER_DEVELOPMENT=on if the Temporal server is your own development server' : ''}`,
    );
  return 'closed';
}

/** Whether `host` (SCHEDULER_API_HOST) reaches only this machine: `localhost` or a loopback address. */
export function isLoopbackHost(host: string): boolean {
  if (host === 'localhost') return true;
  const literal = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  try {
    return classifyAddress(literal).range === 'loopback';
  } catch {
    // A name other than localhost may resolve anywhere.
    return false;
  }
}
