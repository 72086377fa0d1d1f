// What each command does to a schedule, applied by the loop one at a time (never by a handler), with the
// guards the handlers' validators share: why a command is refused now, as the Error its caller receives.
import * as wf from '@temporalio/workflow';
import type {
  BackfillRequest,
  BackfillResult,
  CancelRequest,
  EditResult,
  Occurrence,
  RecomputeRequest,
  RecomputeResult,
  ScheduleDescription,
  TriggerRequest,
} from '../../model/contracts.js';
import { canonicalInstant } from '../../model/ids.js';
import type { SlotBatch } from '../../model/slots.js';
import { isTerminal } from '../../model/views.js';
import {
  holidayDataOlderThan,
  holidayVersionsOf,
  tzOlderThan,
  tzVersionsOf,
  zonesOf,
} from '../../model/zones.js';
import { workflowNow, workflowNowIso } from '../clock.js';
import {
  BACKFILL_LIMIT,
  type EditCommand,
  INVALID_REQUEST,
  INVALID_STATE,
  VERSION_CONFLICT,
  VERSION_MEMO,
} from '../definitions.js';
import { askVersionMemo } from '../patches.js';
import { splitDue } from '../policy.js';
import { OwnerKey, ownerKeyValue } from '../search-attributes.js';
import { activityCause } from './hand-off.js';
import type { ScheduleRun } from './run.js';
import type { Command, ScheduleState } from './state.js';
import { describe, nextRuns } from './views.js';

const reject = (type: string, message: string) => wf.ApplicationFailure.nonRetryable(message, type);

export const revokedRefusal = (s: ScheduleState) =>
  reject(
    INVALID_STATE,
    `the schedule's owner ${s.identity.owner_ref} was revoked (${s.ownerRevoked?.reason}): nothing is handed off until an authorized owner of the tenant takes it over (resume)`,
  );
export const endedRefusal = (s: ScheduleState) =>
  isTerminal(s.status) ? reject(INVALID_STATE, `schedule is ${s.status}`) : null;
export const versionRefusal = (s: ScheduleState, expected: number) =>
  expected !== s.version
    ? reject(VERSION_CONFLICT, `expected_version ${expected} but the schedule is at version ${s.version}`)
    : null;
export const invalidRequest = (message: string) => reject(INVALID_REQUEST, message);
/** Trigger and backfill: live, and (under PATCHES.TARGETS_BOUND) an owner with a key. */
const handOffRefusal = (run: ScheduleRun) =>
  endedRefusal(run.state) ??
  (run.asked.targetsBound && run.state.ownerRevoked ? revokedRefusal(run.state) : null);

function changeOwner(s: ScheduleState, ownerRef: string) {
  if (ownerRef === s.identity.owner_ref) return;
  s.identity = { ...s.identity, owner_ref: ownerRef };
  wf.upsertSearchAttributes([{ key: OwnerKey, value: ownerKeyValue(s.identity.tenant_id, ownerRef) }]);
}

/** A paused schedule fires nothing new: armed jobs go back to being slots, judged again on resume. */
async function applyPause(run: ScheduleRun, note: string | null) {
  const s = run.state;
  if (s.status !== 'ACTIVE') return;
  s.status = 'PAUSED';
  s.pauseNote = note;
  s.updatedAt = workflowNowIso();
  const taken = await run.disarm('pause', `schedule paused before the occurrence began`);
  if (taken.length === 0) return;
  s.buffer = [...taken, ...s.buffer];
  const before = new Date(Date.parse(taken[0]!.scheduledFor) - 1).toISOString();
  if (Date.parse(before) < Date.parse(s.watermark)) s.watermark = before;
}

async function applyRevokeOwner(run: ScheduleRun, reason: string) {
  const s = run.state;
  if (s.ownerRevoked || isTerminal(s.status)) return;
  s.ownerRevoked = { at: workflowNowIso(), reason };
  wf.log.warn('owner revoked: slots are refused until the schedule is resumed', {
    owner_ref: s.identity.owner_ref,
  });
  s.updatedAt = s.ownerRevoked.at;
  await run.disarm('revoke', `refused: ${reason}`);
}

function applyTakeOver(s: ScheduleState, ownerRef: string) {
  const taken = Boolean(s.ownerRevoked);
  if (s.ownerRevoked) {
    s.ownerRevoked = null;
    s.updatedAt = workflowNowIso();
    changeOwner(s, ownerRef);
  }
  return { owner_ref: s.identity.owner_ref, taken_over: taken };
}

function applyResume(run: ScheduleRun, ownerRef: string | null) {
  const s = run.state;
  // Before PATCHES.TARGETS_BOUND a resume also took a revoked schedule over; since, only takeOver does.
  if (s.ownerRevoked && !run.asked.targetsBound) {
    s.ownerRevoked = null;
    s.updatedAt = workflowNowIso();
    if (ownerRef) changeOwner(s, ownerRef);
  }
  if (s.status === 'PAUSED') {
    // Slots missed while paused are still in (watermark, now]: the misfire policy judges them.
    s.status = 'ACTIVE';
    s.pauseNote = null;
    s.updatedAt = workflowNowIso();
  }
}

async function applyEdit(run: ScheduleRun, request: EditCommand): Promise<EditResult | Error> {
  const s = run.state;
  const refusal = endedRefusal(s) ?? versionRefusal(s, request.expected_version);
  if (refusal) return refusal;
  s.spec = request.spec;
  s.version += 1;
  // Only v0.5 SDKs send the editor (histories before carry no owner_ref): nothing older changes.
  if (request.owner_ref) changeOwner(s, request.owner_ref);
  s.updatedAt = workflowNowIso();
  if (askVersionMemo(run.behaviour)) wf.upsertMemo({ [VERSION_MEMO]: s.version });
  // Armed jobs were started under the old definition: taken back, their slots are the new one's to decide.
  const armedBefore = s.armed?.length ?? 0;
  if (armedBefore > 0) await run.disarm('edit', `schedule edited to version ${s.version}`);
  // Future runs only: what is already decided stays; the new definition starts after now.
  const now = workflowNow();
  if (armedBefore > 0) {
    const stillArmed = s.armed?.at(-1)?.slot.scheduledFor;
    s.watermark = new Date(Math.max(now, stillArmed ? Date.parse(stillArmed) : now)).toISOString();
  } else if (Date.parse(s.watermark) < now) s.watermark = new Date(now).toISOString();
  s.buffer = [];
  s.cursor = null;
  s.exhausted = false;
  await run.fillBuffer(now);
  return { version: s.version, next_runs: nextRuns(s) };
}

function applyTrigger(run: ScheduleRun, request: TriggerRequest): Occurrence | Error {
  const refusal = handOffRefusal(run);
  if (refusal) return refusal;
  const at = request.scheduled_for ? canonicalInstant(request.scheduled_for) : workflowNowIso();
  return run.emit({
    slot: { scheduledFor: at, fireAt: workflowNowIso(), local: at, adjustments: [] },
    trigger: 'MANUAL',
    late: false,
    reason: request.reason ?? 'triggered manually',
  }).occurrence;
}

async function applyBackfill(run: ScheduleRun, request: BackfillRequest): Promise<BackfillResult | Error> {
  const refusal = handOffRefusal(run);
  if (refusal) return refusal;
  const { from, to } = request;
  let batch: SlotBatch;
  try {
    batch = await run.computeSlotBatch({
      ...run.slotRequest(new Date(Date.parse(from) - 1).toISOString(), {
        count: BACKFILL_LIMIT + 1,
        until: to,
      }),
      cursor: undefined,
    });
  } catch (err) {
    // A range the calendar cannot compute refuses this backfill; it must never fail the schedule.
    return invalidRequest(`backfill ${from} – ${to}: ${(activityCause(err) as Error).message}`);
  }
  if (batch.slots.length > BACKFILL_LIMIT)
    return invalidRequest(`backfill covers more than ${BACKFILL_LIMIT} slots: split it`);
  const result: BackfillResult = { emitted: [], already_emitted: [], skipped: [] };
  const reason = request.reason ?? `backfill ${from} – ${to}`;
  for (const slot of batch.slots) {
    const { occurrence, duplicate } = run.emit({ slot, trigger: 'BACKFILL', late: false, reason });
    if (duplicate) result.already_emitted.push(occurrence.occurrence_id);
    else if (occurrence.status === 'SKIPPED') result.skipped.push(occurrence.occurrence_id);
    else result.emitted.push(occurrence.occurrence_id);
  }
  return result;
}

async function applyCancel(
  run: ScheduleRun,
  request: CancelRequest & { delete?: boolean },
): Promise<ScheduleDescription> {
  const s = run.state;
  if (request.delete && !s.deletedAt) s.deletedAt = workflowNowIso();
  if (!isTerminal(s.status)) {
    if (s.armed?.length) {
      await run.disarm('cancel', 'schedule cancelled before the occurrence began');
      // What the guard left armed begins within seconds: handed off already.
      run.settleArmed(Number.POSITIVE_INFINITY);
    }
    s.status = 'CANCELLED';
    s.pauseNote = request.note ?? null;
    s.updatedAt = workflowNowIso();
    s.buffer = [];
    s.pendingFires = [];
    run.ledger.markCancelled([
      ...s.queue.splice(0),
      ...(s.awaitingHandoff?.splice(0) ?? []).map((a) => a.occurrenceId),
    ]);
    if (request.running === 'CANCEL') run.cancelRunning();
  }
  return describe(s);
}

const notRecomputed = (reason: string): RecomputeResult => ({ recomputed: false, reason, record: null });

/** A recompute asked for (PATCHES.TZ_HORIZON): the buffered future slots again, unless nothing would change. */
async function applyRecompute(run: ScheduleRun, request: RecomputeRequest): Promise<RecomputeResult> {
  const s = run.state;
  if (!run.asked.tzHorizon)
    return notRecomputed('this run predates recompute (0.6): it takes it up at its next pass');
  if (isTerminal(s.status)) return notRecomputed(`schedule is ${s.status}`);
  if (request.zone !== undefined && !zonesOf(s.spec).includes(request.zone))
    return notRecomputed(`its instants do not depend on ${request.zone}`);
  const now = workflowNow();
  const versions = tzVersionsOf(splitDue(s.buffer, now).later);
  const release = request.if_older_than;
  if (release !== undefined && !versions.some((v) => tzOlderThan(v, release)))
    return notRecomputed(
      versions.length === 0
        ? 'no future slot is buffered'
        : `its slots are computed with ${versions.join(', ')}, not older than ${release}`,
    );
  const dataRelease = request.if_holiday_data_older_than;
  if (dataRelease !== undefined) {
    const data = holidayVersionsOf(splitDue(s.buffer, now).later);
    if (!data.some((v) => holidayDataOlderThan(v, dataRelease)))
      return notRecomputed(
        data.length === 0
          ? 'no future slot was decided by holiday data'
          : `its business days are decided with ${data.join(', ')}, not older than ${dataRelease}`,
      );
  }
  const record = await run.recomputeBuffer(now, request.reason ?? 'recompute requested');
  if (record instanceof Error) return notRecomputed(record.message);
  return { recomputed: true, reason: '', record };
}

/** Requested recomputes of one schedule at most once a minute: each costs a slot-batch activity. */
export const RECOMPUTE_MIN_INTERVAL_MS = 60_000;

/** Why a requested recompute is refused before it enters history (its validator), or null. */
export function recomputeRefusal(s: ScheduleState): Error | null {
  const last = s.tz?.lastRequestedAt;
  if (last && workflowNow() - Date.parse(last) < RECOMPUTE_MIN_INTERVAL_MS)
    return reject(
      INVALID_STATE,
      `recomputed at ${last}: a schedule recomputes at most once a minute (its slots are computed with the worker's rules already)`,
    );
  return null;
}

/** A newer worker's tz release, kept for describe until a recompute with it (or newer) happened. */
function applyNoteNewerTz(run: ScheduleRun, version: string) {
  const s = run.state;
  if (!run.asked.tzHorizon || isTerminal(s.status)) return;
  if (!tzVersionsOf(s.buffer).some((v) => tzOlderThan(v, version))) return;
  const tz = run.tzState();
  if (tz.newer && tz.newer.version >= version) return;
  tz.newer = { version, seen_at: workflowNowIso() };
}

/** A worker with newer holiday data said so: kept for describe until a recompute with it (or newer). */
function applyNoteNewerHolidays(run: ScheduleRun, version: string) {
  const s = run.state;
  if (isTerminal(s.status) || !s.spec.business_days) return;
  if (!holidayVersionsOf(s.buffer).some((v) => holidayDataOlderThan(v, version))) return;
  if (s.holidaysNewer && !holidayDataOlderThan(s.holidaysNewer.version, version)) return;
  s.holidaysNewer = { version, seen_at: workflowNowIso() };
}

/** The loop applies every command here, one at a time; handlers only enqueue them. */
export async function applyCommand(run: ScheduleRun, command: Command): Promise<void> {
  const s = run.state;
  switch (command.kind) {
    case 'pause':
      return applyPause(run, command.note);
    case 'revokeOwner':
      return applyRevokeOwner(run, command.reason);
    case 'takeOver':
      return command.done(applyTakeOver(s, command.ownerRef));
    case 'resume':
      return applyResume(run, command.ownerRef);
    case 'edit':
      return command.done(await applyEdit(run, command.request));
    case 'trigger':
      return command.done(applyTrigger(run, command.request));
    case 'backfill':
      return command.done(await applyBackfill(run, command.request));
    case 'cancel':
      return command.done(await applyCancel(run, command.request));
    case 'recompute':
      return command.done(await applyRecompute(run, command.request));
    case 'noteNewerTz':
      return applyNoteNewerTz(run, command.version);
    case 'noteNewerHolidays':
      return applyNoteNewerHolidays(run, command.version);
  }
}
