// A schedule's decisions read the workflow clock (is a slot due, how late is it, how long to sleep), so
// an activation must carry the time of the workflow task whose commands it produces. sdk-core (TypeScript
// SDK 1.24) breaks that on one path: when it answers a legacy query, and the history the server sent with
// the query already holds events after the last workflow task (a timer fired, an activity completed, the
// next task scheduled but not started), it applies those events and activates the workflow with them on
// the *previous* task's clock. The commands the workflow answers with stay in core and are sent with the
// next real task; replaying that task later, with its own (later) start time, the workflow decides
// otherwise (a slot due where live it was not) and the schedule's history no longer replays: every later
// task fails with a nondeterminism error and the schedule is stuck. Measured in
// test/integration/stale-clock.test.ts (a worker whose cache holds 2 of 8 queried schedules): without this
// guard 3 of 8 histories became unreplayable in a 100 s run.
//
// The guard refuses such an activation: history grew, the clock did not. Failing it makes core drop the
// run from its cache with the commands, and fail the query (the API asks again: STALE_CLOCK_REFUSAL in definitions.ts);
// the next real task rebuilds the run from history at its own time. A real workflow task always ends
// with its WorkflowTaskStarted event, whose time is new, so a task (live or replayed) never trips it;
// several activations of one task (local activity results) share its clock without new history.
import type { coresdk } from '@temporalio/proto';
import type { WorkflowInterceptorsFactory } from '@temporalio/workflow';
import { STALE_CLOCK_REFUSAL } from './definitions.js';

/** What the guard remembers of an activation: its clock (exact, as core sent it) and the history it saw. */
export interface ActivationMark {
  clock: string;
  historyLength: number;
}

/** The mark of a non-query activation; null for a query-only one (it neither advances nor is judged). */
export function activationMark(
  activation: coresdk.workflow_activation.IWorkflowActivation,
): ActivationMark | null {
  const jobs = activation.jobs ?? [];
  if (jobs.length > 0 && jobs.every((job) => job.queryWorkflow != null)) return null;
  const { seconds, nanos } = activation.timestamp ?? {};
  return {
    clock: `${seconds?.toString() ?? ''}.${nanos ?? 0}`,
    historyLength: activation.historyLength ?? 0,
  };
}

/** True when `current` applies new history events on the clock of the activation before it. */
export function appliesHistoryOnStaleClock(
  previous: ActivationMark | undefined,
  current: ActivationMark,
): boolean {
  return (
    previous !== undefined &&
    current.clock === previous.clock &&
    current.historyLength > previous.historyLength
  );
}

export const interceptors: WorkflowInterceptorsFactory = () => {
  let previous: ActivationMark | undefined;
  return {
    internals: [
      {
        activate(input, next) {
          // Jobs may come in batches (signals first); the first batch stands for the activation.
          const mark = input.batchIndex === 0 ? activationMark(input.activation) : null;
          if (mark) {
            if (appliesHistoryOnStaleClock(previous, mark)) {
              throw new Error(
                `${STALE_CLOCK_REFUSAL}: history events ${previous!.historyLength + 1}-${mark.historyLength} ` +
                  'arrived without a workflow task of their own (sdk-core applies them to answer a query, on the ' +
                  'previous task clock); refused, so that no decision is taken on that clock. Retry the query.',
              );
            }
            previous = mark;
          }
          return next(input);
        },
      },
    ],
  };
};
