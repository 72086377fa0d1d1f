// A schedule does not keep its owner's permission forever. When an owner leaves the API's key
// configuration, that owner's live schedules are told so (a signal) and from then on refuse each slot,
// recording it, until an authorized caller of the tenant takes them over (resume).
//
// Revocation is by difference, never by complement: every API process reports the owners its keys name
// to the deployment's owner registry (workflows/owner-registry.ts), which remembers the owners of the
// configurations it accepted and answers which ones left — one report at a time, across replicas, with a
// brake on mass revocation. A process that starts with fewer keys than the deployment had (an unset
// variable, a replica with a partial key file) revokes at most what it would revoke by an edit, and a
// report that would revoke every owner of a tenant or most owners is refused and logged.
//
// Checked where the configuration changes (API start, key-file reload) and periodically, not per fire: the
// workflow pays nothing per slot — it reads a flag in its own state. The cost is one update to the
// registry and one visibility query per reconciliation, plus one signal per affected schedule, once per
// API process.
import { type Client, WithStartWorkflowOperation } from '@temporalio/client';
import {
  OWNER_REGISTRY_WORKFLOW_ID,
  OWNER_REGISTRY_WORKFLOW_TYPE,
  type OwnerReconcileResult,
  ownerRevokedSignal,
  reconcileOwnersUpdate,
  SCHEDULE_WORKFLOWS,
} from '../workflows/definitions.js';
import { OwnerKey, ownerKeyValue, quoteQueryValue } from '../workflows/search-attributes.js';
import type { Principal } from './auth.js';

/** Owners per visibility query (the IN list). */
const OWNERS_PER_QUERY = 100;
/** A reconcile gives up after this (the registry's worker down): the caller retries with backoff. */
const RECONCILE_DEADLINE_MS = 30_000;

export interface ReconcileOptions {
  /** The scheduler's task queue: the registry workflow runs there. */
  taskQueue: string;
  /** SCHEDULER_ALLOW_MASS_REVOCATION: apply a report the brake would refuse. */
  allowMassRevocation: boolean;
  /** SCHEDULER_MAX_REVOCATION_SHARE: above this share of known owners a report is refused. */
  maxShare: number;
  /** Schedules this process already told (kept by the caller across runs): told once, not every run. */
  signalled: Set<string>;
}

export interface ReconcileResult {
  /** Workflow IDs of the schedules told now that their owner is no longer authorized. */
  revoked: string[];
  /** What the registry answered: the revoked owners, and why a report was refused. */
  registry: OwnerReconcileResult;
}

/** Reports the owners `authorized` names to the registry and signals the running schedules of revoked ones. */
export async function reconcileOwners(
  client: Client,
  authorized: readonly Principal[],
  options: ReconcileOptions,
): Promise<ReconcileResult> {
  const present = [...new Set(authorized.map((p) => ownerKeyValue(p.tenant_id, p.owner_ref)))].sort();
  const registry = await client.connection.withDeadline(Date.now() + RECONCILE_DEADLINE_MS, () =>
    client.workflow.executeUpdateWithStart(reconcileOwnersUpdate, {
      args: [{ present, allowMassRevocation: options.allowMassRevocation, maxShare: options.maxShare }],
      startWorkflowOperation: new WithStartWorkflowOperation(OWNER_REGISTRY_WORKFLOW_TYPE, {
        workflowId: OWNER_REGISTRY_WORKFLOW_ID,
        taskQueue: options.taskQueue,
        workflowIdConflictPolicy: 'USE_EXISTING',
        args: [],
      }),
    }),
  );
  const revoked: string[] = [];
  for (let i = 0; i < registry.revoked.length; i += OWNERS_PER_QUERY) {
    const owners = registry.revoked.slice(i, i + OWNERS_PER_QUERY).map(quoteQueryValue);
    const query = [
      SCHEDULE_WORKFLOWS,
      `ExecutionStatus = 'Running'`,
      `${OwnerKey.name} IN (${owners.join(', ')})`,
    ].join(' AND ');
    for await (const execution of client.workflow.list({ query })) {
      const owner = execution.searchAttributes?.[OwnerKey.name]?.[0];
      if (typeof owner !== 'string') continue;
      // Keyed by run and owner: a takeover (another owner) or a new run is told again if it needs to be.
      const key = `${execution.workflowId}/${execution.runId}/${owner}`;
      if (options.signalled.has(key)) continue;
      await client.workflow
        .getHandle(execution.workflowId)
        .signal(ownerRevokedSignal, {
          reason: `owner ${owner} has no API key any more (revoked by the key configuration)`,
        })
        .then(
          () => {
            revoked.push(execution.workflowId);
            options.signalled.add(key);
          },
          // Closed between the listing and the signal: nothing to stop.
          () => {},
        );
    }
  }
  return { revoked, registry };
}
