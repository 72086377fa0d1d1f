// A schedule does not keep its owner's permission forever. When an owner leaves the API's key
// configuration, that owner's live schedules are told so (a signal) and from then on refuse each slot,
// recording it, until an authorized caller of the tenant takes them over (resume).
//
// Revocation is by difference, never by complement: every API process reports the owners its keys name
// to the deployment's owner registry (workflows/owner-registry.ts), which remembers the owners of the
// configurations it accepted and answers which ones left — one report at a time, across replicas, with a
// brake on mass revocation. A process that starts with fewer keys than the deployment had (an unset
// variable, a replica with a partial key file) revokes at most what it would revoke by an edit, and a
// report that would revoke every owner of a tenant or most owners is refused and logged. A report says when
// its keys were written (keyConfigurationGeneration), and one older than the newest applied revokes nothing:
// a replica the new keys have not reached yet cannot revoke an owner they added.
//
// Checked where the configuration changes (API start, key-file reload) and periodically, not per fire: the
// workflow pays nothing per slot — it reads a flag in its own state. The cost is one update to the
// registry and one visibility query per reconciliation, plus one signal per affected schedule, once per
// revocation and API process (RevocationsTold).
import { statSync } from 'node:fs';
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
  /** When the keys reported were written (keyConfigurationGeneration): an older report revokes nothing. */
  generation: number;
  /** Schedules this process already told (kept by the caller across runs): told once per revocation. */
  told: RevocationsTold;
}

export interface ReconcileResult {
  /** Workflow IDs of the schedules told now that their owner is no longer authorized. */
  revoked: string[];
  /** What the registry answered: the revoked owners, and why a report was refused. */
  registry: OwnerReconcileResult;
}

/** `tenant/owner` of each principal, as the registry and the schedules' SchedulerOwner name them. */
export const ownersOf = (principals: readonly Principal[]): Set<string> =>
  new Set(principals.map((p) => ownerKeyValue(p.tenant_id, p.owner_ref)));

/**
 * The generation of a key configuration, as reports to the owner registry carry it: when it was written,
 * in ms since the epoch. With a key file, the file's modification time — the one order every replica can
 * read of a file they do not read at the same moment: a Kubernetes ConfigMap is written into each pod's
 * volume by its node when the change reaches it, so a replica still on the old keys holds a copy written
 * before any copy of the new ones (an edit by hand, or a copy with `rsync -t`, keeps the same order). Read
 * before the keys, so a file replaced in between is reported as the older one (revoking nothing) until
 * the watcher's next poll reloads it, never as a newer one. A time in this host's future counts as now (a
 * clock set wrong must not make every later configuration look older). Without a file (SCHEDULER_API_KEYS
 * only), `loadedAt`: when this process loaded them — a rolling deploy starts the new keys' processes last.
 * A file that cannot be read gives 0, the oldest, until it can.
 */
export function keyConfigurationGeneration(keyFile: string | undefined, loadedAt: number): number {
  if (!keyFile) return loadedAt;
  try {
    return Math.min(statSync(keyFile).mtimeMs, Date.now());
  } catch {
    return 0;
  }
}

/**
 * The running schedules this process told that their owner was revoked, so that each is told once per
 * revocation rather than at every reconcile. An entry lasts only while it could not have been taken back:
 * an owner whose key this process loads again is forgotten at once (forgetAuthorized, on each key reload),
 * never remembered while it holds a key here (the schedule may be resumed under it before the next
 * reconcile), and a reconcile keeps only the entries it listed again (a run that ended, an owner no longer
 * revoked). So an owner removed, added back, resuming the schedule and removed again has it told again.
 */
export class RevocationsTold {
  /** `workflowId/runId/tenant/owner` → `tenant/owner`. */
  readonly #told = new Map<string, string>();

  /** `authorized`: `tenant/owner` of every owner this process holds a key of now (ownersOf the ring). */
  constructor(private readonly authorized: () => ReadonlySet<string>) {}

  static key(workflowId: string, runId: string, owner: string): string {
    return `${workflowId}/${runId}/${owner}`;
  }

  has(key: string): boolean {
    return this.#told.has(key);
  }

  /** Remembers that `key` was told, unless its owner holds a key here now. */
  add(key: string, owner: string): void {
    if (!this.authorized().has(owner)) this.#told.set(key, owner);
  }

  /** Forgets what was told to the schedules of the owners that hold a key here now (after a key reload). */
  forgetAuthorized(): void {
    const authorized = this.authorized();
    for (const [key, owner] of this.#told) if (authorized.has(owner)) this.#told.delete(key);
  }

  /** Keeps only the entries in `listed` (what a whole reconcile found running under a revoked owner). */
  retain(listed: ReadonlySet<string>): void {
    for (const key of this.#told.keys()) if (!listed.has(key)) this.#told.delete(key);
  }

  get size(): number {
    return this.#told.size;
  }
}

/** Reports the owners `authorized` names to the registry and signals the running schedules of revoked ones. */
export async function reconcileOwners(
  client: Client,
  authorized: readonly Principal[],
  options: ReconcileOptions,
): Promise<ReconcileResult> {
  const present = [...ownersOf(authorized)].sort();
  const registry = await client.connection.withDeadline(Date.now() + RECONCILE_DEADLINE_MS, () =>
    client.workflow.executeUpdateWithStart(reconcileOwnersUpdate, {
      args: [
        {
          present,
          allowMassRevocation: options.allowMassRevocation,
          maxShare: options.maxShare,
          generation: options.generation,
        },
      ],
      startWorkflowOperation: new WithStartWorkflowOperation(OWNER_REGISTRY_WORKFLOW_TYPE, {
        workflowId: OWNER_REGISTRY_WORKFLOW_ID,
        taskQueue: options.taskQueue,
        workflowIdConflictPolicy: 'USE_EXISTING',
        args: [],
      }),
    }),
  );
  const revoked: string[] = [];
  const listed = new Set<string>();
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
      const key = RevocationsTold.key(execution.workflowId, execution.runId, owner);
      listed.add(key);
      if (options.told.has(key)) continue;
      await client.workflow
        .getHandle(execution.workflowId)
        .signal(ownerRevokedSignal, {
          reason: `owner ${owner} has no API key any more (revoked by the key configuration)`,
        })
        .then(
          () => {
            revoked.push(execution.workflowId);
            options.told.add(key, owner);
          },
          // Closed between the listing and the signal: nothing to stop.
          () => {},
        );
    }
  }
  // Only after a whole listing: one that failed half-way must not forget what it did not reach.
  options.told.retain(listed);
  return { revoked, registry };
}
