// Deterministic identifiers. A schedule's workflow ID and every occurrence's ID are functions of what the
// user gave, so a retried create finds the existing schedule and a retried handoff finds the existing
// occurrence instead of making a second one.

/** The workflow that owns a schedule. Tenant is part of it: two tenants may use the same schedule_id. */
export function scheduleWorkflowId(tenantId: string, scheduleId: string): string {
  return `schedule/${tenantId}/${scheduleId}`;
}

/** The schedule ID a schedule's workflow ID names (the inverse of scheduleWorkflowId); null for any other ID. */
export function scheduleIdOf(workflowId: string): { tenantId: string; scheduleId: string } | null {
  const match = /^schedule\/([^/]+)\/(.+)$/.exec(workflowId);
  return match ? { tenantId: match[1]!, scheduleId: match[2]! } : null;
}

/** The tenant and schedule of an occurrence ID (a JOB's workflow ID), or null for any other ID. */
export function occurrenceOf(workflowId: string): { tenantId: string; scheduleId: string } | null {
  const match = /^occurrence\/([^/]+)\/(.+)\/[^/]+$/.exec(workflowId);
  return match ? { tenantId: match[1]!, scheduleId: match[2]! } : null;
}

/** Instants in IDs are always UTC with milliseconds, so one instant has exactly one spelling. */
export function canonicalInstant(iso: string): string {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) throw new Error(`not an instant: ${iso}`);
  return new Date(ms).toISOString();
}

/**
 * The occurrence of a slot, from schedule ID and `scheduled_for`. Also the workflow ID of a started JOB,
 * which is what makes a second start of the same slot fail as a duplicate instead of running twice.
 */
export function occurrenceId(
  tenantId: string,
  scheduleId: string,
  scheduledFor: string,
  override?: string,
): string {
  return `${occurrenceIdPrefix(tenantId, scheduleId)}${canonicalInstant(scheduledFor)}${overrideSuffix(override)}`;
}

/**
 * A run with a payload override (trigger, backfill) is another occurrence of its slot, named by the
 * override's digest: the same override again is the same occurrence (a retried request runs once), another
 * one is another run.
 */
const overrideSuffix = (override: string | undefined): string =>
  override === undefined ? '' : `~override-${override}`;

/** What every occurrence ID (so every JOB workflow ID) of one schedule starts with. */
export const occurrenceIdPrefix = (tenantId: string, scheduleId: string): string =>
  `occurrence/${tenantId}/${scheduleId}/`;

/** The key targets deduplicate on (SPEC: `schedule:<schedule_id>:<scheduled_for>`; instant in UTC). */
export function idempotencyKey(scheduleId: string, scheduledFor: string, override?: string): string {
  return `schedule:${scheduleId}:${canonicalInstant(scheduledFor)}${overrideSuffix(override)}`;
}

/** The deployment's owner registry (workflows/owner-registry.ts): one per namespace, never a target. */
export const OWNER_REGISTRY_WORKFLOW_ID = 'scheduler-owner-registry';

/** Whether a workflow ID names one of the scheduler's own workflows (a schedule, an occurrence, the registry). */
export const isSchedulerWorkflowId = (workflowId: string): boolean =>
  /^(?:schedule|occurrence)\//.test(workflowId) || workflowId === OWNER_REGISTRY_WORKFLOW_ID;
