// Reading recorded schedule histories in tests: what a marker says and which markers are local activities.
import type { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { schedulerReplayOptions } from '../../src/worker.js';

export type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/** A local activity's marker: since v0.4 only an inert job start records one (PATCH_INERT_LOCAL_START). */
export const isLocalActivityMarker = (e: HistoryEvent): boolean =>
  e.markerRecordedEventAttributes?.markerName === 'core_local_activity';

/** The markers `patched()` recorded (one per patch a run asked; none in a run born knowing them). */
export const patchMarkers = (events: readonly HistoryEvent[]): HistoryEvent[] =>
  events.filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_patch');

/** The `TemporalChangeVersion` upserts sdk-core writes beside each patch marker. */
export const changeVersionUpserts = (events: readonly HistoryEvent[]): HistoryEvent[] =>
  events.filter(
    (e) =>
      e.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields?.TemporalChangeVersion,
  );

/** The text of every marker's payloads (patch IDs, local activity results), as one string to search. */
export const markerText = (events: readonly HistoryEvent[]): string =>
  events
    .flatMap((e) => Object.values(e.markerRecordedEventAttributes?.details ?? {}))
    .flatMap((p) => p.payloads ?? [])
    .map((p) => Buffer.from(p.data ?? []).toString('utf8'))
    .join('\n');

// Task failures the server records when work raced the task (new events or an update arrived while it ran,
// a sticky worker went away): the next task just runs again. WorkflowTaskFailedCause numbers.
const BENIGN_TASK_FAILURES = new Set([
  1 /* UNHANDLED_COMMAND */, 13 /* RESET_STICKY_TASK_QUEUE */, 31 /* UNHANDLED_UPDATE */,
]);

/** Why each workflow task failed in the workflow (nondeterminism, a throw): such a schedule is stuck. */
export const failedWorkflowTasks = (events: readonly HistoryEvent[]): string[] =>
  events.flatMap((e) => {
    const failed = e.workflowTaskFailedEventAttributes;
    if (!failed || BENIGN_TASK_FAILURES.has(failed.cause ?? 0)) return [];
    return [failed.failure?.message ?? `cause ${failed.cause}`];
  });

/**
 * Every history replayed with what the scheduler's worker runs: the ones that fail, with their error; and
 * every schedule whose tasks failed live (stuck, even when its history so far replays).
 */
export async function replayFailures(
  raced: readonly { workflowId: string; history: temporal.api.history.v1.IHistory }[],
): Promise<string[]> {
  const failures = raced.flatMap(({ workflowId, history }) =>
    failedWorkflowTasks(history.events ?? []).map((message) => `${workflowId}: task failed: ${message}`),
  );
  for await (const result of Worker.runReplayHistories(schedulerReplayOptions, raced)) {
    if (result.error) failures.push(`${result.workflowId}: ${result.error.message.slice(0, 300)}`);
  }
  return failures;
}

/**
 * Hand-off activities (`handOff`) each workflow task scheduled, for the tasks that scheduled any, in
 * history order: how a schedule's hand-offs were chunked. `runs`: the runs of one schedule (event IDs start
 * again in every run, so tasks are told apart per run).
 */
export function handOffsPerTask(runs: readonly (readonly HistoryEvent[])[]): number[] {
  const perTask = new Map<string, number>();
  runs.forEach((events, run) => {
    for (const e of events) {
      const scheduled = e.activityTaskScheduledEventAttributes;
      if (scheduled?.activityType?.name !== 'handOff') continue;
      const task = `${run}/${scheduled.workflowTaskCompletedEventId}`;
      perTask.set(task, (perTask.get(task) ?? 0) + 1);
    }
  });
  return [...perTask.values()];
}

/** Every run of a workflow, oldest first, following continue-as-new back from the latest run. */
export async function historiesOfEveryRun(
  handleOf: (runId?: string) => { fetchHistory(): Promise<temporal.api.history.v1.IHistory> },
): Promise<HistoryEvent[][]> {
  const runs: HistoryEvent[][] = [];
  let runId: string | undefined;
  do {
    const events = (await handleOf(runId).fetchHistory()).events ?? [];
    runs.unshift(events);
    runId = events[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId || undefined;
  } while (runId);
  return runs;
}
