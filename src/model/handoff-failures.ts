// Failure types a hand-off activity ends with (ApplicationFailure.type), shared by the activities that
// throw them and the workflow that reads them. No zod here: the workflow bundle imports this module.

/** Retrying cannot fix it (a bad queue name, a 4xx from the sink); the occurrence is recorded FAILED. */
export const PERMANENT_HANDOFF_ERROR = 'PermanentHandoffError';

/**
 * The tenant policy in force at the hand-off does not allow the target (src/model/tenant-policy.ts):
 * nothing was delivered; the occurrence is recorded FAILED with the reason, and a recurring schedule goes
 * on, for the day the policy allows the target again.
 */
export const FORBIDDEN_TARGET_ERROR = 'ForbiddenTarget';

/**
 * The tenant has no entry in the policy in force at the hand-off: retried (a policy file that lost an entry
 * mid-edit, a ConfigMap still reaching this replica) until the grace has passed, then FORBIDDEN_TARGET_ERROR.
 */
export const TENANT_UNLISTED_ERROR = 'TenantUnlisted';

/** How a refusal reads on the occurrence (`reason`) and in the Web UI. */
export const REFUSED_BY_POLICY = 'refused by the tenant policy';
