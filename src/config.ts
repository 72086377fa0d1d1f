import { resolve } from 'node:path';
import { z } from 'zod';
import { repoRoot } from '../scripts/toolchain.mjs';
import * as defaults from './model/defaults.js';
import { classifyAddress } from './model/network-address.js';
import { parseTrustProxy } from './model/trust-proxy.js';

const port = z.coerce.number().int().min(1).max(65535);

/**
 * Environment variables the product reads. Each `.describe()` is its documentation: docs/configuration.md is
 * generated from them (`npm run docs:config`), and test/unit/docs-config.test.ts fails when it differs.
 */
export const EnvironmentSchema = z.object({
  TEMPORAL_ADDRESS: z
    .string()
    .min(1)
    .optional()
    .describe(
      '`host:port` of a Temporal frontend to use instead of the embedded dev server (unset: `npm start` starts one); such a process is a production one unless `SCHEDULER_DEVELOPMENT=on`. Also read from a `TEMPORAL_PROFILE`',
    ),
  TEMPORAL_NAMESPACE: z.string().min(1).default('default').describe('namespace for schedules'),
  TEMPORAL_TASK_QUEUE: z
    .string()
    .min(1)
    .default('durable-scheduler')
    .describe("task queue of the scheduler's worker"),
  /** Where JOB targets without a task_queue are started: the users' job workers poll it. */
  SCHEDULER_JOB_TASK_QUEUE: z
    .string()
    .min(1)
    .default('jobs')
    .describe(
      'task queue on which JOB targets without a `task_queue` are started (your job workers poll it)',
    ),
  TEMPORAL_PORT: port.default(7233).describe('port of the embedded dev server'),
  TEMPORAL_UI_PORT: port.default(8233).describe("port of the embedded dev server's Web UI"),
  SCHEDULER_API_PORT: port.default(8080).describe('port the HTTP API listens on'),
  SCHEDULER_API_HOST: z
    .string()
    .min(1)
    .default('127.0.0.1')
    .describe('address the HTTP API listens on; not a loopback address makes the process a production one'),
  SCHEDULER_API_KEYS: z
    .string()
    .optional()
    .describe(
      'comma-separated `key=tenant_id:owner_ref`; callers send `Authorization: Bearer <key>`. Unset: in development a key is made, kept in the data dir and printed to a terminal; in production the API refuses to start. A key carries at least 128 bits and `tenant_id` is an identifier (tenancy-and-security.md, "Keys"); an entry that is not is refused at start, naming the entry, never the key; set but empty is a configuration error',
    ),
  /** File of `sha256:<hex>=tenant_id:owner_ref` lines (hashed keys), re-read when it changes. */
  SCHEDULER_API_KEY_FILE: z
    .string()
    .min(1)
    .optional()
    .describe(
      "production keys, hashed: one `sha256:<hex>=tenant_id:owner_ref` per line (`#` comments); re-read when the file changes; its modification time orders key configurations across replicas (tenancy-and-security.md, \"Owners\"). Make a line with `node -e \"const k='sk_'+require('crypto').randomBytes(24).toString('base64url');console.log(k);console.log('sha256:'+require('crypto').createHash('sha256').update(k).digest('hex')+'=acme:ops')\"`",
    ),
  /**
   * JSON file of what each tenant's targets may reach (src/model/tenant-policy.ts), re-read when it changes.
   * Unset: the development tenant reaches everything when no API keys are configured, else nothing does.
   */
  SCHEDULER_TENANTS_FILE: z
    .string()
    .min(1)
    .optional()
    .describe(
      "the tenant policy: what each tenant's JOB, WORKFLOW_SIGNAL and EVENT targets may reach (tenancy-and-security.md); re-read when it changes. API and worker processes read it. Unset: in development tenant `dev` reaches everything; in production a worker refuses to start and an API refuses every target",
    ),
  /** A key reload may revoke every owner of a tenant, or more than SCHEDULER_MAX_REVOCATION_SHARE of them. */
  SCHEDULER_ALLOW_MASS_REVOCATION: z
    .enum(['0', '1'])
    .default('0')
    .describe(
      '`1`: apply a key configuration that revokes every owner of a tenant or more than `SCHEDULER_MAX_REVOCATION_SHARE` of them (tenancy-and-security.md, "Owners"); set it only for the one reload that offboards a tenant',
    ),
  /** Above this share of the known owners a key configuration is refused as a likely mistake. */
  SCHEDULER_MAX_REVOCATION_SHARE: z.coerce
    .number()
    .min(0)
    .max(1)
    .default(defaults.DEFAULT_MAX_REVOCATION_SHARE)
    .describe(
      'a key configuration that would revoke more than this share of the known owners is refused as a likely mistake',
    ),
  /** Replaced by `event_sinks` in SCHEDULER_TENANTS_FILE (0.5): set, it stops the start with how to migrate. */
  SCHEDULER_EVENT_SINKS: z
    .string()
    .optional()
    .describe(
      'replaced by `event_sinks` in `SCHEDULER_TENANTS_FILE` (0.5); set, the process refuses to start and says how to migrate',
    ),
  SCHEDULER_API_RATE_LIMIT: z.coerce
    .number()
    .int()
    .min(1)
    .default(defaults.DEFAULT_RATE_LIMIT_PER_MINUTE)
    .describe(
      'request units per minute per tenant, weighted by cost (tenancy-and-security.md, "Rate limits"; a tenant\'s `quotas.api_units_per_minute` replaces it; 429 with `Retry-After` beyond); the same in requests per client address on the public routes other than `/healthz`',
    ),
  /** Requests with an invalid key a minute from one client address before it is answered 429; 0: no limit. */
  SCHEDULER_API_AUTH_FAILURE_LIMIT: z.coerce
    .number()
    .int()
    .min(0)
    .default(defaults.DEFAULT_AUTH_FAILURES_PER_MINUTE)
    .describe(
      'requests with an invalid key per minute from one client address (behind a reverse proxy: `SCHEDULER_TRUST_PROXY`); beyond, every `/v1` request from it is 429 with `Retry-After` until its minute ends. `0`: no limit',
    ),
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
    })
    .describe(
      'the reverse proxies whose `X-Forwarded-For` is believed: comma-separated addresses and CIDR ranges, or `loopback`, `linklocal`, `uniquelocal` (e.g. `10.0.0.0/8`); the per-address limits then count the forwarded client. Unset or `off`: the TCP peer. `true`, hop counts and `/0` are refused',
    ),
  /**
   * Signs the API's list cursors. Every API replica of a deployment needs the same one (a cursor one signed
   * is refused by another); unset, each process makes its own at start, so a cursor holds only on the
   * process that issued it, until it restarts.
   */
  SCHEDULER_CURSOR_SECRET: z
    .string()
    .min(32, 'at least 32 characters (e.g. `openssl rand -base64 32`); unset it to sign per process')
    .optional()
    .describe(
      'at least 32 characters (`openssl rand -base64 32`) that sign list cursors; give every API replica the same one (tenancy-and-security.md, "List cursors"). Unset: a random secret per API process',
    ),
  SCHEDULER_API_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(100)
    .default(defaults.DEFAULT_TEMPORAL_TIMEOUT_MS)
    .describe('how long a request waits for Temporal and the worker before answering 503'),
  /** Worker threads of the API's calendar searches; 0: on the event loop, unbounded (as up to 0.5). */
  SCHEDULER_CALENDAR_THREADS: z.coerce
    .number()
    .int()
    .min(0)
    .max(64)
    .default(defaults.DEFAULT_CALENDAR_THREADS)
    .describe(
      'worker threads on which the API runs the calendar\'s searches (validation, the first slot batch, previews, backfill counts); `0`: on the event loop, unbounded, as up to 0.5 (operations.md, "Calendar searches")',
    ),
  /** Wall time one request's calendar searches may take in a thread before 422 SEARCH_LIMIT. */
  SCHEDULER_CALENDAR_BUDGET_MS: z.coerce
    .number()
    .int()
    .min(10)
    .default(defaults.DEFAULT_CALENDAR_BUDGET_MS)
    .describe(
      "wall time one request's calendar searches may take in a thread; past it the request is answered 422 `VALIDATION` naming `timing` (or `options` with a window or exclusions)",
    ),
  /** Calendar searches of one tenant waiting for a thread before 429. */
  SCHEDULER_CALENDAR_TENANT_QUEUE: z.coerce
    .number()
    .int()
    .min(0)
    .default(defaults.DEFAULT_CALENDAR_TENANT_QUEUE)
    .describe(
      "a tenant's calendar searches waiting for a thread (beyond the `threads − 1` it may run) before 429 with `Retry-After`",
    ),
  /**
   * Wall time one slot activity's calendar search may take on a worker's main thread, which every tenant's
   * hand-offs share: a schedule's batch that runs out ends shorter (the next one continues it), a
   * backfill's is refused with the reason (src/activities/slots.ts).
   */
  SCHEDULER_WORKER_CALENDAR_BUDGET_MS: z.coerce
    .number()
    .int()
    .min(10)
    .default(defaults.DEFAULT_SLOT_BUDGET_MS)
    .describe(
      "wall time one slot activity's calendar search may take on a worker; past it a schedule's batch ends shorter, a backfill is refused 422 with the reason",
    ),
  /** Where a worker process serves its Prometheus metrics (SCHEDULER_ROLE=worker: set it to scrape). */
  SCHEDULER_METRICS_PORT: port
    .optional()
    .describe(
      'where a worker process serves Prometheus metrics (unset: not served; with the API in the same process, `/metrics` has them anyway)',
    ),
  SCHEDULER_METRICS_HOST: z
    .string()
    .min(1)
    .default('127.0.0.1')
    .describe('the address a worker process serves its metrics on'),
  /** When set, the API's GET /metrics needs `Authorization: Bearer <token>`; in production, it is served only then. */
  SCHEDULER_METRICS_TOKEN: z
    .string()
    .regex(/^\S{16,}$/, 'at least 16 characters, no spaces (e.g. `openssl rand -hex 24`)')
    .optional()
    .describe(
      'set: the API\'s `GET /metrics` needs `Authorization: Bearer <token>` (at least 16 characters, no spaces; e.g. `openssl rand -hex 24`). Unset in production: `GET /metrics` answers 404 (operations.md, "Metrics")',
    ),
  /** `production` counts as a production deployment (the API's /metrics then needs SCHEDULER_METRICS_TOKEN). */
  NODE_ENV: z
    .string()
    .optional()
    .describe(
      "`production` (the Dockerfile sets it) makes the process a production one: production is any of keys configured, `NODE_ENV=production`, `SCHEDULER_API_HOST` not a loopback address, or a named Temporal server; a production API without keys, or worker without `SCHEDULER_TENANTS_FILE`, does not start, and the API's `/metrics` is served only with `SCHEDULER_METRICS_TOKEN`",
    ),
  /**
   * What a worker does about running schedules whose buffered slots an older tz database computed (after an
   * operator upgraded Node): `recompute` them (default), `notify` them (describe shows it, a metric counts
   * them), or `off`.
   */
  SCHEDULER_TZ_REFRESH: z
    .enum(['off', 'notify', 'recompute'])
    .default('recompute')
    .describe(
      'what a worker does about running schedules whose buffered slots an older tz database computed: `recompute` them, `notify` them (`describe` shows it), or `off` (operations.md, "Zone rule changes")',
    ),
  /** How often a worker looks for schedules behind its tz database (after one check at start). */
  SCHEDULER_TZ_CHECK_INTERVAL_S: z.coerce
    .number()
    .int()
    .min(10)
    .default(600)
    .describe('how often a worker looks for schedules behind its tz database (and once at start)'),
  /**
   * The same choice for business-day schedules whose buffered slots older holiday data decided (after a deploy
   * that brings a newer date-holidays release). Checked at the same interval as the tz database.
   */
  SCHEDULER_HOLIDAY_REFRESH: z
    .enum(['off', 'notify', 'recompute'])
    .default('recompute')
    .describe(
      'what a worker does about running business-day schedules whose buffered slots older holiday data decided: `recompute` them, `notify` them (`describe` shows it), or `off`; checked every `SCHEDULER_TZ_CHECK_INTERVAL_S` (concepts, "Business days")',
    ),
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
    .default(defaults.DEFAULT_ARM_LEAD_MS / 1000)
    .describe(
      'how long before its slot a recurring `ALLOW` JOB is started with a delay to its instant (armed: the server begins it at the instant; a pause, edit, cancel or revocation before then takes it back). Also how long before a job begins its target was last checked against the tenant policy. `0`: every job started at its instant. Thousands due at one minute need a longer lead (10,000 on two cores: 900; runtime.md, "Armed hand-offs", sizing the lead)',
    ),
  /**
   * How far ahead a recurring ALLOW JOB's slots are armed when that is longer than the lead: every slot
   * within it, at most ten, in one workflow task. Default 600; 0: the lead alone.
   */
  SCHEDULER_ARM_AHEAD_S: z.coerce
    .number()
    .int()
    .min(0)
    .max(3600)
    .default(defaults.DEFAULT_ARM_AHEAD_MS / 1000)
    .describe(
      "how far ahead of now a recurring `ALLOW` JOB arms its slots when that is longer than `SCHEDULER_ARM_LEAD_S`: every slot within it, at most ten, in one workflow task, so that a schedule every minute costs one task per five fires instead of one per fire (performance.md: 1.2–1.4× the CPU per fire of the same starts issued with no scheduler at all). It widens the lead's bound on how stale the tenant policy may be when a job begins (a policy change takes armed jobs back: tenancy-and-security.md); `0`: the lead alone. No effect when `SCHEDULER_ARM_LEAD_S` is `0`",
    ),
  /**
   * `on` (default): a new schedule whose first run is more than a minute past its arm lead (at least 60 s)
   * starts asleep (its workflow started with a delay to its arming point within that lead), so creating it costs the worker
   * nothing until then; `off`: its first workflow task runs at creation.
   */
  SCHEDULER_START_ASLEEP: z
    .enum(['on', 'off'])
    .default('on')
    .describe(
      '`on`: a new schedule whose first run is more than a minute past its arm lead is started with a delay to its arming point within that lead (never later than 60 s before the run): no worker task at creation, and its first task arms its first job (a read, an edit or a pause wakes it earlier; runtime.md, "Creation"). `off`: its first workflow task runs at creation',
    ),
  /**
   * The product's search attributes at start: `register` the missing ones (where that is refused, check that
   * they exist), `check` only, or `skip` (managed elsewhere). src/runtime/namespace.ts.
   */
  SCHEDULER_SEARCH_ATTRIBUTES: z
    .enum(['register', 'check', 'skip'])
    .default('register')
    .describe(
      '`register`, `check` or `skip` the product\'s search attributes at start (operations.md, "Search attributes")',
    ),
  /**
   * `on`: development on a Temporal server of your own named by TEMPORAL_ADDRESS (`temporal server
   * start-dev`): tenant `dev` reaches every target and a development API key is made, as with the embedded
   * dev server. Refused beside API keys, NODE_ENV=production or a non-loopback API: never on a server other
   * teams' workers poll.
   */
  SCHEDULER_DEVELOPMENT: z
    .enum(['on', 'off'])
    .default('off')
    .describe(
      '`on`: development mode on a Temporal server of your own (tenant `dev` reaches every target); refused in production',
    ),
  /**
   * Seconds a hand-off whose tenant has no entry in the policy is retried before it is recorded refused (a
   * policy file that lost an entry mid-edit). At most 100: the hand-off's retry budget (handoff.ts).
   */
  SCHEDULER_MISSING_TENANT_GRACE_S: z.coerce
    .number()
    .int()
    .min(0)
    .max(defaults.MAX_MISSING_TENANT_GRACE_MS / 1000)
    .default(defaults.DEFAULT_MISSING_TENANT_GRACE_MS / 1000)
    .describe(
      'how long a hand-off whose tenant is missing from the policy is retried before it is recorded refused (0 to 100)',
    ),
  /** A file holding the API key of the Temporal connection (one line), re-read when it changes. */
  SCHEDULER_TEMPORAL_API_KEY_FILE: z
    .string()
    .min(1)
    .optional()
    .describe(
      'a file holding the Temporal API key, re-read every 2 s and applied to live connections (operations.md, "Connecting to a secured Temporal")',
    ),
  /** An active schedule whose next run is older than this many seconds counts as overdue. */
  SCHEDULER_OVERDUE_AFTER_S: z.coerce
    .number()
    .int()
    .min(1)
    .default(defaults.DEFAULT_OVERDUE_AFTER_S)
    .describe(
      'an active schedule whose next run is older than this counts as overdue (`scheduler_schedules_overdue`)',
    ),
  /** The web console under /console/ (src/api/http/console.ts): unset, on in development, off in production. */
  SCHEDULER_CONSOLE: z
    .enum(['on', 'off'])
    .optional()
    .describe(
      '`on`: the API serves the web console at `/console/` (console.md; a client of `/v1` with the key entered in the page); `off`: it does not. Unset: on in development, off in production',
    ),
  SCHEDULER_LOG_LEVEL: z
    .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
    .default('warn')
    .describe("log level of the API's and the worker's JSON lines"),
  /** Which parts this process runs: both (default), or one, to scale workers and API separately. */
  SCHEDULER_ROLE: z
    .enum(['all', 'worker', 'api'])
    .default('all')
    .describe('`worker` or `api` to run one part per process (scale them separately); `all`: both'),
  SCHEDULER_DATA_DIR: z
    .string()
    .min(1)
    .default(resolve(repoRoot, '.data'))
    .describe('dev-server database and log, development API key'),
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
      'SCHEDULER_EVENT_SINKS is replaced by the tenant policy (0.5): list the prefixes under "event_sinks" of each tenant in a SCHEDULER_TENANTS_FILE (docs/tenancy-and-security.md, "Tenancy"), then unset SCHEDULER_EVENT_SINKS',
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
