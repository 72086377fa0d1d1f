// The stale-clock guard's rule, on activations as the worker decodes them from core (seconds is a protobuf
// Long). Its effect on a real worker is in test/integration/stale-clock.test.ts; that it never refuses a
// real task is checked by replaying every recorded history with it (test/unit/replay.test.ts).
import proto from '@temporalio/proto';
import { describe, expect, it } from 'vitest';
import { activationMark, appliesHistoryOnStaleClock } from '../../src/workflows/stale-clock-guard.js';

type Job = proto.coresdk.workflow_activation.IWorkflowActivationJob;
const mark = (seconds: number, nanos: number, historyLength: number, jobs: Job[]) =>
  activationMark(
    proto.coresdk.workflow_activation.WorkflowActivation.fromObject({
      timestamp: { seconds, nanos },
      historyLength,
      jobs,
    }),
  );
const fireTimer: Job = { fireTimer: { seq: 1 } };
const localResult: Job = { resolveActivity: { seq: 2, isLocal: true } };
const query: Job = { queryWorkflow: { queryId: 'q', queryType: 'describe' } };

describe('stale-clock guard', () => {
  const task = mark(1_796_093_754, 408_092_772, 221, [fireTimer])!;

  it('refuses new history events on the previous activation clock (core answering a query)', () => {
    expect(appliesHistoryOnStaleClock(task, mark(1_796_093_754, 408_092_772, 225, [fireTimer])!)).toBe(true);
  });

  it('accepts the next task: its own started event brings a new clock', () => {
    expect(appliesHistoryOnStaleClock(task, mark(1_796_093_756, 345_000_000, 226, [fireTimer])!)).toBe(false);
  });

  it('accepts a second activation of the same task (a local activity result): same clock, no new history', () => {
    expect(appliesHistoryOnStaleClock(task, mark(1_796_093_754, 408_092_772, 221, [localResult])!)).toBe(
      false,
    );
  });

  it('accepts the first activation, and compares nanoseconds: tasks in the same millisecond are different clocks', () => {
    expect(appliesHistoryOnStaleClock(undefined, task)).toBe(false);
    expect(appliesHistoryOnStaleClock(task, mark(1_796_093_754, 408_500_000, 224, [fireTimer])!)).toBe(false);
  });

  it('leaves query-only activations out: they neither advance nor get judged', () => {
    expect(mark(1_796_093_754, 408_092_772, 225, [query])).toBeNull();
  });
});
