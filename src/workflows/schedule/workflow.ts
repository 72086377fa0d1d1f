// One durable workflow per schedule. It owns the versioned definition, sleeps until the next slot, judges
// what is due with the pure policy step (../policy.ts), hands occurrences off through activities and
// continues as new to keep its history bounded. The order below is history: the patches of the first
// activation are asked before any other `wf.*` call, and the handlers are set before the loop's first await.
import type { ScheduleDescription } from '../../model/contracts.js';
import { resolveBehaviour } from '../patches.js';
import { registerHandlers } from './handlers.js';
import { ScheduleRun } from './run.js';
import type { ScheduleWorkflowInput } from './state.js';
import { describe } from './views.js';

export type { ScheduleState, ScheduleWorkflowInput } from './state.js';

export async function scheduleWorkflow(input: ScheduleWorkflowInput): Promise<ScheduleDescription> {
  const behaviour = resolveBehaviour();
  const run = new ScheduleRun(input, behaviour);
  registerHandlers(run);
  await run.loop();
  await run.closeOut();
  return describe(run.state);
}
