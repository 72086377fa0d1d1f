import { createDisarmActivities } from './disarm.js';
import { createHandoffActivities, type HandoffDependencies } from './handoff.js';
import { computeSlotBatch } from './slots.js';

/** Every activity the scheduler worker registers. */
export function createActivities(deps: HandoffDependencies) {
  return {
    computeSlotBatch,
    ...createHandoffActivities(deps),
    ...createDisarmActivities({ client: deps.client }),
  };
}
