// The owners a deployment's key configuration has held, kept durably in one small workflow, so that an
// owner is revoked only when it disappeared from a configuration the deployment had before — never
// because a process started with fewer keys (an unset variable, a replica with a partial key set, a
// developer's laptop pointed at production). Every API replica reports the owners its keys name; the
// workflow answers which owners are revoked, one report at a time, with a brake on mass revocation.
// Replicas do not read a new key file at the same moment (a ConfigMap reaches each node in its own time):
// each report carries its configuration's generation, and one older than the newest applied revokes
// nothing, so a replica still on the old keys cannot revoke an owner the new ones added.
import * as wf from '@temporalio/workflow';
import {
  type OwnerReconcileRequest,
  type OwnerReconcileResult,
  ownerRegistryDescribeQuery,
  reconcileOwnersUpdate,
} from './definitions.js';
import { OWNER_REGISTRY_PATCHES } from './patches.js';

export interface OwnerRegistryState {
  /** `tenant/owner` of every owner the latest accepted configuration had. */
  known: string[];
  /** Owners that left the configuration and are not back: their schedules refuse their slots. */
  revoked: string[];
  /** Reconciles answered (for the Web UI and tests). */
  reconciles: number;
  /** The generation of the newest report applied (OwnerReconcileRequest.generation); absent until one carried it. */
  generation?: number;
}

/** Which rules a report is judged by: what the registry's `patched()` IDs answered for it. */
export interface OwnerRegistryRules {
  /** OWNER_REGISTRY_PATCHES.GENERATIONS: a report older than the newest applied revokes nothing. */
  generations: boolean;
}

/** Revoked owners kept; beyond it the oldest are forgotten (their schedules stay revoked). */
const REVOKED_KEPT = 1000;
const CONTINUE_AS_NEW_AFTER = 2000;

const tenantOf = (owner: string) => owner.slice(0, owner.indexOf('/'));

const when = (generation: number) => new Date(generation).toISOString();

/**
 * One report of the owners a configuration names. The first report of a deployment only learns them. A
 * report whose configuration is older than the newest applied (`generation`, under `rules.generations`) is
 * counted and revokes nothing: the newest configuration's verdict stands. An owner that was known and is
 * absent is revoked, unless the report would revoke every owner of a tenant or more than `maxShare` of the
 * known owners (a mistake looks like that: a missing variable, the wrong key file), which is refused — and
 * nothing learned from it — unless mass revocation is allowed.
 */
export function reconcileOwners(
  state: OwnerRegistryState,
  request: OwnerReconcileRequest,
  rules: OwnerRegistryRules = { generations: true },
): { state: OwnerRegistryState; result: OwnerReconcileResult } {
  const reconciles = state.reconciles + 1;
  const generation =
    rules.generations && typeof request.generation === 'number' && Number.isFinite(request.generation)
      ? request.generation
      : undefined;
  const present = new Set(request.present);
  // Older than the newest applied, and naming other owners (a copy of the same owners written a moment
  // earlier on another node has nothing to revoke and nothing outdated to say): the newest verdict stands.
  const newestBefore = state.generation;
  if (
    generation !== undefined &&
    newestBefore !== undefined &&
    generation < newestBefore &&
    (present.size !== state.known.length || state.known.some((o) => !present.has(o)))
  ) {
    return {
      state: { ...state, reconciles },
      result: {
        revoked: state.revoked,
        newlyRevoked: [],
        refused: null,
        outdated: `this key configuration (written ${when(generation)}) is older than one already applied (written ${when(newestBefore)}): recorded, revokes nothing — a replica the new keys have not reached yet; if its key file is the newest, touch it`,
      },
    };
  }
  const gone = state.known.filter((o) => !present.has(o));
  const tenantsEmptied = [...new Set(gone.map(tenantOf))].filter(
    (t) => !request.present.some((o) => tenantOf(o) === t),
  );
  const share = state.known.length === 0 ? 0 : gone.length / state.known.length;
  if (!request.allowMassRevocation && (tenantsEmptied.length > 0 || share > request.maxShare)) {
    const why =
      tenantsEmptied.length > 0
        ? `it would revoke every owner of tenant${tenantsEmptied.length > 1 ? 's' : ''} ${tenantsEmptied.join(', ')}`
        : `it would revoke ${gone.length} of ${state.known.length} owners (more than ${Math.round(request.maxShare * 100)} %)`;
    return {
      state: { ...state, reconciles },
      result: {
        revoked: state.revoked.filter((o) => !present.has(o)),
        newlyRevoked: [],
        refused: `key configuration not applied to schedule owners: ${why}; fix the keys, or set SCHEDULER_ALLOW_MASS_REVOCATION=1 if this is meant`,
      },
    };
  }
  const revoked = [...state.revoked.filter((o) => !present.has(o) && !gone.includes(o)), ...gone].slice(
    -REVOKED_KEPT,
  );
  const newest =
    generation === undefined || newestBefore === undefined
      ? (generation ?? newestBefore)
      : Math.max(generation, newestBefore);
  return {
    state: {
      known: [...present].sort(),
      revoked,
      reconciles,
      ...(newest !== undefined ? { generation: newest } : {}),
    },
    result: { revoked, newlyRevoked: gone, refused: null },
  };
}

export async function ownerRegistryWorkflow(carried?: OwnerRegistryState): Promise<void> {
  let state: OwnerRegistryState = carried ?? { known: [], revoked: [], reconciles: 0 };
  wf.setHandler(ownerRegistryDescribeQuery, () => state);
  // Synchronous: reports are applied one at a time, in the order the server accepted them.
  wf.setHandler(reconcileOwnersUpdate, (request) => {
    // Asked only for a report that carries a generation: a registry that never met one records no marker,
    // and the reports a worker before the patch answered replay by the rule it answered them with.
    const generations = request.generation !== undefined && wf.patched(OWNER_REGISTRY_PATCHES.GENERATIONS.id);
    const next = reconcileOwners(state, request, { generations });
    state = next.state;
    return next.result;
  });
  await wf.condition(
    () => wf.workflowInfo().continueAsNewSuggested || wf.workflowInfo().historyLength > CONTINUE_AS_NEW_AFTER,
  );
  await wf.condition(wf.allHandlersFinished);
  await wf.continueAsNew<typeof ownerRegistryWorkflow>(state);
}
