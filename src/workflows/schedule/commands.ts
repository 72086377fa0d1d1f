// What each command does to a schedule, applied by the loop one at a time (never by a handler), with the
// guards the handlers' validators share: why a command is refused now, as the Error its caller receives.
import * as wf from '@temporalio/workflow';
import type {
  BackfillResult,
  CancelRequest,
  EditResult,
  Occurrence,
  RecomputeRequest,
  RecomputeResult,
  ScheduleDescription,
} from '../../model/contracts.js';
import { canonicalInstant } from '../../model/ids.js';
import type { SlotBatch } from '../../model/slots.js';
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
  type BackfillCommand,
  type EditCommand,
  INVALID_STATE,
  type RecordedOverride,
  type TriggerCommand,
  VERSION_MEMO,
} from '../definitions.js';
import { PATCHES } from '../patches.js';
import { splitDue } from '../policy.js';
import { activityCause } from './hand-off.js';
import { takeOverOnResume } from './legacy.js';
import { invalidRequest, reject } from './lifecycle.js';
import type { ScheduleRun } from './run.js';
import type { Command, ScheduleState } from './state.js';
import { describe, nextRuns } from './views.js';

/** Trigger and backfill: live, and (under PATCHES.TARGETS_BOUND) an owner with a key. */
const handOffRefusal = (run: ScheduleRun) =>
  run.lifecycle.handOffRefusal(run.version.has(PATCHES.TARGETS_BOUND));

/** A paused schedule fires nothing new: armed jobs go back to being slots, judged again on resume. */
async function applyPause(run: ScheduleRun, note: string | null, byHook = false) {
  if (!run.lifecycle.pause(note)) return;
  if (byHook) run.hooks.notePaused();
  run.generator.putBack(await run.invoker.disarm('pause', `schedule paused before the occurrence began`));
}

async function applyRevokeOwner(run: ScheduleRun, reason: string) {
  if (!run.lifecycle.revokeOwner(reason)) return;
  await run.invoker.disarm('revoke', `refused: ${reason}`);
}

/** A changed tenant policy refuses these armed jobs' targets: those not begun are taken back, refused. */
async function applyRefuseArmed(run: ScheduleRun, occurrenceIds: readonly string[], reason: string) {
  const refused = new Set(occurrenceIds);
  if (!(run.state.armed ?? []).some((a) => refused.has(a.occurrenceId))) return;
  if (!run.version.ask(PATCHES.POLICY_DISARMS)) return;
  await run.invoker.disarm('policy', `refused: ${reason}`, refused);
}

function applyResume(run: ScheduleRun, ownerRef: string | null) {
  // Before PATCHES.TARGETS_BOUND a resume also took a revoked schedule over; since, only takeOver does.
  if (!run.version.has(PATCHES.TARGETS_BOUND)) takeOverOnResume(run.lifecycle, ownerRef);
  // Slots missed while paused are still in (watermark, now]: the misfire policy judges them.
  if (run.lifecycle.isPaused) run.hooks.noteResumed();
  run.lifecycle.resume();
}

async function applyEdit(run: ScheduleRun, request: EditCommand): Promise<EditResult | Error> {
  const refusal = run.lifecycle.endedRefusal() ?? run.lifecycle.versionRefusal(request.expected_version);
  if (refusal) return refusal;
  // Only v0.5 SDKs send the editor (histories before carry no owner_ref): nothing older changes.
  const before = { version: run.state.version, spec: run.state.spec };
  const version = run.lifecycle.edit(request.spec, request.owner_ref);
  run.hooks.noteEdited(before.spec);
  if (run.version.ask(PATCHES.VERSION_MEMO)) wf.upsertMemo({ [VERSION_MEMO]: version });
  // Armed jobs were started under the old definition: taken back, their slots are the new one's to decide.
  const armedBefore = run.invoker.armedCount;
  if (armedBefore > 0) await run.invoker.disarm('edit', `schedule edited to version ${version}`);
  // Future runs only: what is already decided stays; the new definition starts after now.
  const now = workflowNow();
  if (armedBefore > 0) {
    const stillArmed = run.invoker.lastArmed?.scheduledFor;
    run.generator.startOver(Math.max(now, stillArmed ? Date.parse(stillArmed) : now), false);
  } else run.generator.startOver(now, true);
  run.generator.recordInForce(before);
  await run.generator.fill(now);
  return { version, next_runs: nextRuns(run.state) };
}

/** The digest a payload override's occurrences carry, its payload kept once for all of them. */
function keepOverride(run: ScheduleRun, override: RecordedOverride | undefined): string | undefined {
  if (!override) return undefined;
  const { digest, ...pair } = override;
  run.ledger.keepOverride(digest, pair);
  return digest;
}

function applyTrigger(run: ScheduleRun, request: TriggerCommand): Occurrence | Error {
  const refusal = handOffRefusal(run);
  if (refusal) return refusal;
  const at = request.scheduled_for ? canonicalInstant(request.scheduled_for) : workflowNowIso();
  const override = keepOverride(run, request.override);
  const { occurrence } = run.invoker.emit({
    slot: { scheduledFor: at, fireAt: workflowNowIso(), local: at, adjustments: [] },
    trigger: 'MANUAL',
    late: false,
    reason:
      request.reason ?? (override ? 'triggered manually with a payload override' : 'triggered manually'),
    ...(override ? { override } : {}),
  });
  if (override) run.ledger.releaseOverrides();
  return occurrence;
}

async function applyBackfill(run: ScheduleRun, request: BackfillCommand): Promise<BackfillResult | Error> {
  const refusal = handOffRefusal(run);
  if (refusal) return refusal;
  const { from, to } = request;
  let batch: SlotBatch;
  try {
    batch = await run.generator.computeSlotBatch({
      ...run.generator.request(new Date(Date.parse(from) - 1).toISOString(), {
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
  const override = keepOverride(run, request.override);
  const reason = request.reason ?? `backfill ${from} – ${to}${override ? ' with a payload override' : ''}`;
  for (const slot of batch.slots) {
    const fire = {
      slot,
      trigger: 'BACKFILL' as const,
      late: false,
      reason,
      ...(override ? { override } : {}),
    };
    const { occurrence, duplicate } = run.invoker.emit(fire);
    if (duplicate) result.already_emitted.push(occurrence.occurrence_id);
    else if (occurrence.status === 'SKIPPED') result.skipped.push(occurrence.occurrence_id);
    else result.emitted.push(occurrence.occurrence_id);
  }
  if (override) run.ledger.releaseOverrides();
  return result;
}

async function applyCancel(
  run: ScheduleRun,
  request: CancelRequest & { delete?: boolean },
): Promise<ScheduleDescription> {
  if (request.delete) run.lifecycle.markDeleted();
  if (!run.lifecycle.hasEnded) {
    if (run.invoker.armedCount > 0) {
      await run.invoker.disarm('cancel', 'schedule cancelled before the occurrence began');
      // What the guard left armed begins within seconds: handed off already.
      run.invoker.settleArmed(Number.POSITIVE_INFINITY);
    }
    run.lifecycle.cancel(request.note ?? null);
    run.generator.clear();
    run.ledger.markCancelled(run.invoker.dropUndecided());
    if (request.running === 'CANCEL') run.invoker.cancelRunning();
  }
  return describe(run.state);
}

const notRecomputed = (reason: string): RecomputeResult => ({ recomputed: false, reason, record: null });

/** A recompute asked for (PATCHES.TZ_HORIZON): the buffered future slots again, unless nothing would change. */
async function applyRecompute(run: ScheduleRun, request: RecomputeRequest): Promise<RecomputeResult> {
  const s = run.state;
  if (!run.version.has(PATCHES.TZ_HORIZON))
    return notRecomputed('this run predates recompute (0.6): it takes it up at its next pass');
  if (run.lifecycle.hasEnded) return notRecomputed(`schedule is ${s.status}`);
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
  // Armed jobs were started on instants of the old rules: taken back, their slots computed again with the
  // rest and armed anew (a job within DISARM_GUARD_MS of its instant begins as it was).
  if (run.invoker.armedCount > 0 && run.version.ask(PATCHES.RECOMPUTE_DISARMS))
    run.generator.putBack(
      await run.invoker.disarm('recompute', 'slots recomputed before the occurrence began'),
    );
  const record = await run.generator.recompute(workflowNow(), request.reason ?? 'recompute requested');
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
  if (!run.version.has(PATCHES.TZ_HORIZON) || run.lifecycle.hasEnded) return;
  if (!tzVersionsOf(run.generator.buffered).some((v) => tzOlderThan(v, version))) return;
  run.generator.noteNewerTz(version);
}

/** A worker with newer holiday data said so: kept for describe until a recompute with it (or newer). */
function applyNoteNewerHolidays(run: ScheduleRun, version: string) {
  if (run.lifecycle.hasEnded || !run.state.spec.business_days) return;
  if (!holidayVersionsOf(run.generator.buffered).some((v) => holidayDataOlderThan(v, version))) return;
  run.generator.noteNewerHolidays(version);
}

/** The loop applies every command here, one at a time; handlers only enqueue them. */
export async function applyCommand(run: ScheduleRun, command: Command): Promise<void> {
  switch (command.kind) {
    case 'pause':
      return applyPause(run, command.note, command.byHook);
    case 'revokeOwner':
      return applyRevokeOwner(run, command.reason);
    case 'refuseArmed':
      return applyRefuseArmed(run, command.occurrenceIds, command.reason);
    case 'takeOver':
      return command.done(run.lifecycle.takeOver(command.ownerRef));
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
