import { createDisarmActivities } from './disarm.js';
import { createHandoffActivities, type HandoffDependencies } from './handoff.js';
import { createSlotActivities, type SlotActivityOptions } from './slots.js';

/** Every activity the scheduler worker registers. `slots`: the slot batches' time budget (./slots.ts). */
export function createActivities(deps: HandoffDependencies & { slots?: SlotActivityOptions }) {
  return {
    ...createSlotActivities(deps.slots),
    ...createHandoffActivities(deps),
    ...createDisarmActivities({ client: deps.client }),
  };
}
