// One durable workflow per schedule. It owns the versioned definition, sleeps until the next slot, judges
// what is due with the pure policy step (../policy.ts), hands occurrences off through activities and
// continues as new to keep its history bounded. The order below is history: the patches of the first
// activation are asked before any other `wf.*` call, and the handlers are set before the loop's first await.
// Two workflow types run the same code: each continues as its own type, so a run never changes what it knows.
import type { ScheduleDescription } from '../../model/contracts.js';
import { KNOWN_AT_BIRTH_V2, RunVersion } from '../patches.js';
import { registerHandlers } from './handlers.js';
import { ScheduleRun } from './run.js';
import type { ScheduleWorkflowInput } from './state.js';
import { describe } from './views.js';

export type { ScheduleState, ScheduleWorkflowInput } from './state.js';

/** SCHEDULE_WORKFLOW_TYPE_V1: schedules created before 0.10, and their continued runs. Asks every patch. */
export async function scheduleWorkflow(input: ScheduleWorkflowInput): Promise<ScheduleDescription> {
  return runSchedule(input, new RunVersion(0).takeUpAtFirstActivation());
}

/** SCHEDULE_WORKFLOW_TYPE: born knowing every patch up to KNOWN_AT_BIRTH_V2, so it asks none of them. */
export async function scheduleWorkflowV2(input: ScheduleWorkflowInput): Promise<ScheduleDescription> {
  return runSchedule(input, new RunVersion(KNOWN_AT_BIRTH_V2).takeUpAtFirstActivation());
}

async function runSchedule(input: ScheduleWorkflowInput, version: RunVersion): Promise<ScheduleDescription> {
  const run = new ScheduleRun(input, version);
  registerHandlers(run);
  await run.loop();
  await run.closeOut();
  return describe(run.state);
}
