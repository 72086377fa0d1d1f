// SchedulerClient.update and .patch: a new definition judged as create judges one (what the edit changes
// only), and a partial edit merged over the schedule at the version the caller read.
import {
  EditRequest,
  type EditRequestInput,
  type EditResult,
  type Schedule,
  specOf,
} from '../../model/contracts.js';
import { withExplanation } from '../../model/explanation.js';
import { PatchScheduleRequest } from '../../model/http.js';
import { calendarOptionsOf, type SlotSpec } from '../../model/slots.js';
import { editUpdate } from '../../workflows/definitions.js';
import { checkContract, parseOrThrow, SchedulerError } from '../errors.js';
import { asEdited, mergedSpec, type PatchScheduleInput, VersionConflictError } from '../patch.js';
import { checkMinInterval, checkPayloadSize } from '../quotas.js';
import { canonicalJson } from './canonical-json.js';
import type { ScheduleCalls } from './schedule-calls.js';

export async function updateSchedule(
  calls: ScheduleCalls,
  scheduleId: string,
  request: EditRequestInput,
): Promise<EditResult> {
  const parsed = parseOrThrow(EditRequest, request);
  calls.checkTarget(parsed.spec);
  const current = await calls.sdk.get(scheduleId);
  // A schedule stored before a quota existed keeps working: only what the edit changes is judged.
  if (canonicalJson(current.target.payload ?? null) !== canonicalJson(parsed.spec.target.payload ?? null))
    checkPayloadSize(parsed.spec.target);
  const now = await calls.now();
  const newTiming = canonicalJson(current.timing) !== canonicalJson(parsed.spec.timing);
  const runs = await calls.validated(scheduleId, parsed.spec, current.created_at, now, newTiming);
  const calendarOf = (spec: SlotSpec) => canonicalJson({ timing: spec.timing, ...calendarOptionsOf(spec) });
  if (calendarOf(specOf(current)) !== calendarOf(parsed.spec))
    checkMinInterval(parsed.spec.timing, runs, calls.quotas());
  // The editor becomes the owner: a departing owner cannot leave a rewritten schedule under a colleague's name.
  return await calls.runUpdate(scheduleId, editUpdate, {
    ...parsed,
    owner_ref: calls.options.principal.owner_ref,
  });
}

/**
 * Changes the definition fields given, each replacing the current one whole (`null` clears an optional
 * one), on the schedule as it is at `expected_version`; a stale version is a VersionConflictError naming
 * the current one. Answers the schedule as this change left it, even when another edit landed since.
 */
export async function patchSchedule(
  calls: ScheduleCalls,
  scheduleId: string,
  changes: PatchScheduleInput,
): Promise<Schedule> {
  const { expected_version, contract, ...fields } = parseOrThrow(PatchScheduleRequest, changes);
  const current = await calls.sdk.get(scheduleId);
  checkContract(contract);
  if (expected_version !== current.version) throw new VersionConflictError(expected_version, current.version);
  const spec = mergedSpec(current, withoutStaleWords(current, fields));
  const edited = await calls.sdk.update(scheduleId, { expected_version, spec }).catch(async (err) => {
    if (!(err instanceof SchedulerError && err.code === 'VERSION_CONFLICT')) throw err;
    throw new VersionConflictError(expected_version, (await calls.sdk.get(scheduleId)).version);
  });
  const after = await calls.sdk.get(scheduleId);
  return after.version === edited.version ? after : withExplanation(asEdited(current, spec, edited, after));
}

/** The definition fields a sentence can set (src/model/interpret.ts): the ones `authored_from` speaks for. */
const WORDED_FIELDS = ['timing', 'timezone', 'window', 'starts_at', 'ends_at', 'max_count', 'dst'] as const;

/**
 * A PATCH that changes what the words said (the timing or a calendar option a sentence sets) without
 * giving new words clears `authored_from`: the stored text would no longer describe the rule.
 */
function withoutStaleWords(current: Schedule, fields: Record<string, unknown>): Record<string, unknown> {
  if (fields.authored_from !== undefined || current.authored_from === undefined) return fields;
  const changed = WORDED_FIELDS.some(
    (key) =>
      fields[key] !== undefined &&
      canonicalJson(fields[key] ?? null) !== canonicalJson((current as Record<string, unknown>)[key] ?? null),
  );
  return changed ? { ...fields, authored_from: null } : fields;
}
