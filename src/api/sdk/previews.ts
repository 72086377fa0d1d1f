// What the calendar answers about a definition without a server: its next runs (a preview, a validation),
// a reading of words, each refusal a SchedulerError naming the field.
import { CalendarError } from '../../calendar/errors.js';
import { type NextRun, type ScheduleSpec, toNextRun } from '../../model/contracts.js';
import type { InterpretResult } from '../../model/interpret.js';
import { computeSlots as computeSlotsHere, type SlotBatchRequest, type SlotSpec } from '../../model/slots.js';
import { InterpretProblemError, SchedulerError, validationError } from '../errors.js';
import type { InterpretTaskOutcome, SlotRunner } from '../slot-runner.js';

/**
 * The next `count` runs of a definition entering (a preview, a validation) after `after`; invalid rules and
 * zones, and a repeated list value, become VALIDATION errors.
 */
export function previewRuns(
  scheduleId: string,
  spec: SlotSpec,
  createdAt: string,
  after: string,
  count = 10,
): NextRun[] {
  try {
    return computeSlotsHere({ scheduleId, spec, createdAt, after, count, refuseRepeats: true }).slots.map(
      toNextRun,
    );
  } catch (err) {
    throw validationError(err) ?? err;
  }
}

/** previewRuns on a SlotRunner (the HTTP API's pool), for `tenant`. */
export async function previewRunsOn(
  runner: SlotRunner,
  tenant: string,
  scheduleId: string,
  spec: SlotSpec,
  createdAt: string,
  after: string,
  count = 10,
): Promise<NextRun[]> {
  const [batch] = await batchesOn(runner, tenant, [
    { scheduleId, spec, createdAt, after, count, refuseRepeats: true },
  ]);
  return batch!.slots.map(toNextRun);
}

/** The batches of `requests` on `runner`; calendar errors become VALIDATION errors naming the field. */
export async function batchesOn(runner: SlotRunner, tenant: string, requests: SlotBatchRequest[]) {
  try {
    return await runner.slots(tenant, requests);
  } catch (err) {
    throw validationError(err) ?? err;
  }
}

/**
 * A reading's outcome as the SDK answers it: the result, or the reader's question or refusal as an
 * {@link InterpretProblemError} (AMBIGUOUS with `readings`, UNREADABLE with `unread`, ZONE_REQUIRED, REGION_REQUIRED), a
 * calendar or request refusal as VALIDATION naming the field.
 */
export function interpretResultOf(outcome: InterpretTaskOutcome): InterpretResult {
  if (outcome.ok) return outcome.result;
  if ('problem' in outcome) throw new InterpretProblemError(outcome.problem);
  if ('error' in outcome) {
    throw validationError(new CalendarError(outcome.error.field, outcome.error.reason, outcome.error.code))!;
  }
  throw new SchedulerError('VALIDATION', outcome.invalid.reason, outcome.invalid.field);
}

/** The runs validation looks at: enough for the minimum-interval sample and every DEADLINE reminder. */
export const VALIDATION_RUNS = 50;

/** Checks what the zod contract cannot: the rule compiles, and it will fire at least once after `now`. */
export function validateSpec(
  scheduleId: string,
  spec: ScheduleSpec,
  createdAt: string,
  now: string,
): NextRun[] {
  return expectRuns(spec, now, previewRuns(scheduleId, spec, createdAt, now, VALIDATION_RUNS));
}

/** `runs`, the next runs of `spec` after `now`, or VALIDATION when there are none (expired). */
export function expectRuns(spec: ScheduleSpec, now: string, runs: NextRun[]): NextRun[] {
  if (runs.length === 0) {
    const field = { ONE_TIME: 'timing.at', DEADLINE: 'timing.at', DELAY: 'timing.anchor' }[
      spec.timing.kind as string
    ];
    throw new SchedulerError(
      'VALIDATION',
      'the schedule has no occurrence after now (expired): move it into the future',
      spec.ends_at !== undefined && Date.parse(spec.ends_at) <= Date.parse(now)
        ? 'ends_at'
        : (field ?? 'timing'),
    );
  }
  return runs;
}
