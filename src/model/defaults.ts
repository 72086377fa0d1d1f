// The product's numeric defaults, one place each: the environment schema (src/config.ts) declares them as
// its defaults and the modules that apply them when an option is left unset import the same constant. A
// leaf with no imports, in model so that config, api and activities can all reach it without a cycle.

/** SCHEDULER_API_RATE_LIMIT: request units per minute per tenant (and requests per public client address). */
export const DEFAULT_RATE_LIMIT_PER_MINUTE = 600;

/** SCHEDULER_API_AUTH_FAILURE_LIMIT: invalid keys a minute from one client address before 429. */
export const DEFAULT_AUTH_FAILURES_PER_MINUTE = 20;

/** SCHEDULER_API_TIMEOUT_MS: how long a request waits for Temporal and the worker before 503. */
export const DEFAULT_TEMPORAL_TIMEOUT_MS = 10_000;

/** SCHEDULER_CALENDAR_THREADS: worker threads of the API's calendar searches. */
export const DEFAULT_CALENDAR_THREADS = 2;

/** SCHEDULER_CALENDAR_BUDGET_MS: wall time of one request's calendar searches in a thread. */
export const DEFAULT_CALENDAR_BUDGET_MS = 1000;

/** SCHEDULER_CALENDAR_TENANT_QUEUE: a tenant's calendar searches waiting for a thread before 429. */
export const DEFAULT_CALENDAR_TENANT_QUEUE = 8;

/** SCHEDULER_WORKER_CALENDAR_BUDGET_MS: wall time of one slot activity's calendar search on a worker. */
export const DEFAULT_SLOT_BUDGET_MS = 1000;

/**
 * SCHEDULER_MISSING_TENANT_GRACE_S (in ms): how long a hand-off of a tenant missing from the policy is retried.
 * 60 s: longer than a file watcher's poll and a kubelet's ConfigMap sync; well inside the hand-off's retry
 * budget (8 attempts, 1 s doubling to 1 min: the 7th attempt starts about 63 s after the first, so a tenant
 * still missing then is refused by an attempt, not by running out of them).
 */
export const DEFAULT_MISSING_TENANT_GRACE_MS = 60_000;

/** Keeps a configured grace inside the hand-off's retry budget (src/activities/handoff.ts). */
export const MAX_MISSING_TENANT_GRACE_MS = 100_000;

/** SCHEDULER_MAX_REVOCATION_SHARE: above this share of the known owners a key configuration is refused. */
export const DEFAULT_MAX_REVOCATION_SHARE = 0.5;

/** SCHEDULER_OVERDUE_AFTER_S: an active schedule whose next run is older than this is overdue. */
export const DEFAULT_OVERDUE_AFTER_S = 300;

/**
 * SCHEDULER_ARM_LEAD_S (in ms): how long before its slot a recurring ALLOW JOB is armed (started with a delay
 * to its instant); also how long before a job begins its target is last checked against the tenant policy.
 */
export const DEFAULT_ARM_LEAD_MS = 120_000;

/**
 * SCHEDULER_ARM_AHEAD_S (in ms): every slot within this of now is armed, when longer than the lead (at most
 * ARMED_AT_MOST of them), so that a schedule every minute arms several slots per workflow task. It widens
 * the lead's bound on how stale the tenant policy may be when a job begins (a policy change takes armed jobs
 * back). On by default since measured over whole arming cycles: 1.2-1.4x the CPU per fire of the same starts
 * issued with no scheduler (BENCHMARKS.md, "Steady state"); 0: the lead alone.
 */
export const DEFAULT_ARM_AHEAD_MS = 600_000;
