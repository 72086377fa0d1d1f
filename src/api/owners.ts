// A schedule does not keep its owner's permission forever. When the API's key configuration loses every
// key of an owner, that owner's live schedules are told so (a signal) and from then on refuse each slot,
// recording it, until an authorized caller of the tenant resumes them (and so takes them over).
//
// Checked where the configuration changes (API start, key-file reload), not per fire: a schedule's owner
// only loses its permission when the key set changes, so the workflow pays nothing per slot — it reads a
// flag in its own state. The cost is one visibility query per reconciliation plus one signal per affected
// schedule (re-signalling an already revoked schedule is a no-op).
import type { Client } from '@temporalio/client';
import { ownerRevokedSignal, SCHEDULE_WORKFLOW_TYPE } from '../workflows/definitions.js';
import { OwnerKey, ownerKeyValue } from '../workflows/search-attributes.js';
import type { Principal } from './auth.js';

const quote = (value: string) => `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

export interface ReconcileResult {
  /** Workflow IDs of the schedules told that their owner is no longer authorized. */
  revoked: string[];
}

/** Signals every running schedule whose owner has no key among `authorized`. */
export async function revokeUnauthorizedOwners(
  client: Client,
  authorized: readonly Principal[],
): Promise<ReconcileResult> {
  const owners = authorized.map((p) => quote(ownerKeyValue(p.tenant_id, p.owner_ref)));
  const clauses = [`WorkflowType = '${SCHEDULE_WORKFLOW_TYPE}'`, `ExecutionStatus = 'Running'`];
  if (owners.length > 0) clauses.push(`${OwnerKey.name} NOT IN (${owners.join(', ')})`);
  const revoked: string[] = [];
  for await (const execution of client.workflow.list({ query: clauses.join(' AND ') })) {
    const owner = execution.searchAttributes?.[OwnerKey.name]?.[0];
    if (typeof owner !== 'string') continue; // created before owners were indexed: left alone (README)
    await client.workflow
      .getHandle(execution.workflowId)
      .signal(ownerRevokedSignal, {
        reason: `owner ${owner} has no API key any more (revoked by the key configuration)`,
      })
      .then(
        () => revoked.push(execution.workflowId),
        // Closed between the listing and the signal: nothing to stop.
        () => {},
      );
  }
  return { revoked };
}
