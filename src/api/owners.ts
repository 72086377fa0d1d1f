// A schedule does not keep its owner's permission forever. When the API's key configuration loses every
// key of an owner, that owner's live schedules are told so (a signal) and from then on refuse each slot,
// recording it, until an authorized caller of the tenant resumes them (and so takes them over).
//
// Checked where the configuration changes (API start, key-file reload) and periodically, not per fire: a
// schedule's owner only loses its permission when the key set changes, so the workflow pays nothing per
// slot — it reads a flag in its own state. The cost is one visibility query per reconciliation plus one
// signal per affected schedule, once per API process.
import type { Client } from '@temporalio/client';
import { ownerRevokedSignal, SCHEDULE_WORKFLOW_TYPE } from '../workflows/definitions.js';
import { OwnerKey, ownerKeyValue, quoteQueryValue } from '../workflows/search-attributes.js';
import type { Principal } from './auth.js';

export interface ReconcileResult {
  /** Workflow IDs of the schedules told that their owner is no longer authorized. */
  revoked: string[];
}

/**
 * Signals every running schedule whose owner has no key among `authorized`. `signalled` (kept by the
 * caller across runs) holds the schedules this process already told: a periodic run does not add a signal
 * to a revoked schedule's history every time (the flag in its state stays set until a takeover).
 */
export async function revokeUnauthorizedOwners(
  client: Client,
  authorized: readonly Principal[],
  signalled: Set<string> = new Set(),
): Promise<ReconcileResult> {
  const owners = authorized.map((p) => quoteQueryValue(ownerKeyValue(p.tenant_id, p.owner_ref)));
  const clauses = [`WorkflowType = '${SCHEDULE_WORKFLOW_TYPE}'`, `ExecutionStatus = 'Running'`];
  if (owners.length > 0) clauses.push(`${OwnerKey.name} NOT IN (${owners.join(', ')})`);
  const revoked: string[] = [];
  for await (const execution of client.workflow.list({ query: clauses.join(' AND ') })) {
    const owner = execution.searchAttributes?.[OwnerKey.name]?.[0];
    if (typeof owner !== 'string') continue; // created before owners were indexed: left alone (README)
    // Keyed by run and owner: a takeover (another owner) or a new run is told again if it needs to be.
    const key = `${execution.workflowId}/${execution.runId}/${owner}`;
    if (signalled.has(key)) continue;
    await client.workflow
      .getHandle(execution.workflowId)
      .signal(ownerRevokedSignal, {
        reason: `owner ${owner} has no API key any more (revoked by the key configuration)`,
      })
      .then(
        () => {
          revoked.push(execution.workflowId);
          signalled.add(key);
        },
        // Closed between the listing and the signal: nothing to stop.
        () => {},
      );
  }
  return { revoked };
}
