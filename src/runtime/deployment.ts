// What a process is, decided before anything starts: which parts it runs, and whether it is a production
// deployment (src/config.ts, productionReasons), which decides its tenant policy and needs its API keys.
import type { Environment, PolicyAtStart } from '../config.js';
import { deploymentFacts, policyAtStart, productionReasons } from '../config.js';

/** Which parts a process runs (SCHEDULER_ROLE). */
export interface Roles {
  api: boolean;
  worker: boolean;
}

export const rolesOf = (env: Environment): Roles => ({
  api: env.SCHEDULER_ROLE !== 'worker',
  worker: env.SCHEDULER_ROLE !== 'api',
});

/** How the tenant policy is had at start; throws when this deployment may not start as configured. */
export function deploymentAtStart(
  env: Environment,
  temporalAddress: string | undefined,
  roles: Roles,
): PolicyAtStart {
  const facts = deploymentFacts(env, temporalAddress);
  const production = productionReasons(facts);
  const keysConfigured = env.SCHEDULER_API_KEYS !== undefined || env.SCHEDULER_API_KEY_FILE !== undefined;
  // A development key exists only in development: in production a missing key variable is an outage of
  // this process, never an API that answers every tenant's name with a key printed to the log pipeline.
  if (roles.api && production.length > 0 && !keysConfigured) {
    throw new Error(
      `no API keys in production (${production.join(', ')}): set SCHEDULER_API_KEYS or SCHEDULER_API_KEY_FILE`,
    );
  }
  return policyAtStart({ facts, tenantsFile: env.SCHEDULER_TENANTS_FILE, runsWorker: roles.worker });
}
