// The failure hooks (on_failure, on_recovery): the ledger counts failed occurrences in a row; this decides
// what a count means (the schedule paused, a FAILING notice sent) and says RECOVERED at the success after
// it. The only writer of the hooks' state (state.ts, STATE_OWNERS). A notice leaves from an activity that
// checks its target against the tenant policy in force then; its ID is made of the schedule, the kind and
// the how-manyth time the hook went off, so a notice sent again by a retried activity reads the same.
import * as wf from '@temporalio/workflow';
import type { HandoffActivities } from '../../activities/handoff.js';
import type { NotifyTarget, ScheduleNotice, ScheduleSpec } from '../../model/contracts.js';
import { workflowNowIso } from '../clock.js';
import { activityCause, HANDOFF_ACTIVITY_OPTIONS, type InFlight } from './hand-off.js';
import type { FinishedRun, Ledger } from './ledger.js';
import type { Command, ScheduleState } from './state.js';

const { notify } = wf.proxyActivities<HandoffActivities>(HANDOFF_ACTIVITY_OPTIONS);

/** The part of a run the hooks read and act through. */
export interface HookContext {
  readonly state: ScheduleState;
  readonly ledger: Ledger;
  readonly commands: Command[];
  readonly inFlight: InFlight;
  wakeLoop(): void;
}

/** Why the hook paused the schedule: the pause note describe and the Web UI show. */
export const hookPauseNote = (finished: FinishedRun): string =>
  `paused by on_failure after ${finished.consecutive} failed occurrence${finished.consecutive === 1 ? '' : 's'} in a row (last: ${finished.occ.reason ?? 'failed'}); resume to run it again`;

export class FailureHooks {
  constructor(private readonly run: HookContext) {}

  /** Called by the ledger for every finished occurrence of a schedule with hooks. */
  observe(finished: FinishedRun): void {
    const s = this.run.state;
    s.hooks ??= { trips: 0, trippedAt: null, countedFrom: 0, pausedByHook: false, lastNotice: null };
    const hooks = s.hooks;
    if (!finished.failed) {
      const wasFailing = hooks.trippedAt !== null;
      hooks.trippedAt = null;
      hooks.countedFrom = 0;
      if (wasFailing && s.spec.on_recovery)
        this.send(s.spec.on_recovery.notify, this.notice('RECOVERED', finished));
      return;
    }
    // Without on_failure the schedule is failing from its first failure (for on_recovery alone). Once
    // per streak, unless its count started again since (a resume after the hook's pause, an edit of it).
    const onFailure = s.spec.on_failure;
    const counted = finished.consecutive - hooks.countedFrom;
    const armed = hooks.trippedAt === null || hooks.trippedAt <= hooks.countedFrom;
    if (!armed || counted < (onFailure?.after_consecutive ?? 1)) return;
    hooks.trips += 1;
    hooks.trippedAt = finished.consecutive;
    if (!onFailure) return;
    wf.log.warn('on_failure went off', { consecutive: finished.consecutive, pause: onFailure.pause });
    if (onFailure.pause)
      this.run.commands.push({ kind: 'pause', note: hookPauseNote(finished), byHook: true });
    if (onFailure.notify) this.send(onFailure.notify, this.notice('FAILING', finished));
  }

  /** The hook's pause was applied (the schedule was active): describe says so until a resume. */
  notePaused(): void {
    if (this.run.state.hooks) this.run.state.hooks.pausedByHook = true;
  }

  /** A resume after the hook's pause: the schedule gets its full count of tries again. */
  noteResumed(): void {
    const hooks = this.run.state.hooks;
    if (!hooks?.pausedByHook) return;
    hooks.pausedByHook = false;
    hooks.countedFrom = this.run.ledger.consecutiveFailures;
  }

  /** An edit that changed on_failure: the new hook counts the failures from now. */
  noteEdited(before: ScheduleSpec): void {
    const hooks = this.run.state.hooks;
    if (!hooks || JSON.stringify(before.on_failure) === JSON.stringify(this.run.state.spec.on_failure))
      return;
    hooks.countedFrom = this.run.ledger.consecutiveFailures;
  }

  private notice(kind: ScheduleNotice['kind'], finished: FinishedRun): ScheduleNotice {
    const s = this.run.state;
    const { tenant_id, schedule_id } = s.identity;
    const trips = s.hooks?.trips ?? 0;
    return {
      notice_id: `notice/${tenant_id}/${schedule_id}/${kind.toLowerCase()}/${trips}`,
      kind,
      tenant_id,
      schedule_id,
      schedule_version: s.version,
      at: workflowNowIso(),
      consecutive_failures: finished.consecutive,
      failures: finished.failures,
      paused: kind === 'FAILING' && (s.spec.on_failure?.pause ?? false),
      recovered_by:
        kind === 'RECOVERED'
          ? { occurrence_id: finished.occ.occurrence_id, scheduled_for: finished.occ.scheduled_for }
          : null,
    };
  }

  /** The run waits for it before it continues as new or ends, so its answer lands in this run's state. */
  private send(target: NotifyTarget, notice: ScheduleNotice): void {
    const { inFlight } = this.run;
    inFlight.notices += 1;
    void notify({ target, notice })
      .then(
        (sent) => ({ delivered: true, detail: sent.targetRef }),
        (err) => {
          return { delivered: false, detail: (activityCause(err) as Error).message };
        },
      )
      .then(({ delivered, detail }) => {
        const hooks = this.run.state.hooks;
        if (hooks) {
          hooks.lastNotice = {
            notice_id: notice.notice_id,
            kind: notice.kind,
            at: notice.at,
            delivered,
            detail,
          };
        }
        if (!delivered) wf.log.warn('notice not delivered', { notice_id: notice.notice_id, detail });
        inFlight.notices -= 1;
        this.run.wakeLoop();
      });
  }
}
