// Handing one occurrence to its target, in the mode policy.startMode chose. The synchronous part (the
// emission counted, the first command scheduled) runs inside the task that decided the slot, before its
// first `await`: every activation therefore issues its commands in the order of the releases before this
// module existed. What comes back is recorded in the ledger; the loop is woken unless the start was inert.
import * as wf from '@temporalio/workflow';
import type { HandoffActivities } from '../../activities/handoff.js';
import type { Occurrence, Target } from '../../model/contracts.js';
import {
  FORBIDDEN_TARGET_ERROR,
  PERMANENT_HANDOFF_ERROR,
  REFUSED_BY_POLICY,
} from '../../model/handoff-failures.js';
import { PATCHES, type RunVersion, usesLocalActivities } from '../patches.js';
import { type StartMode, startMode } from '../policy.js';
import {
  type ArmedJobStart,
  type ArmedStart,
  authorizeJobStart,
  jobOutcome,
  startJob,
  startJobInActivity,
  startJobsInActivity,
} from './job-start.js';
import type { Ledger } from './ledger.js';
import { type ScheduleState, watchesCompletion } from './state.js';

/** A signal or an event, an occurrence's or a failure hook's notice (./hooks.ts). */
export const HANDOFF_ACTIVITY_OPTIONS: wf.ActivityOptions = {
  // Short, so a hand-off whose worker died is retried soon; an EVENT's POST gives up after 15 s itself.
  startToCloseTimeout: '20s',
  // Transient failures are retried with bounded exponential backoff under the same occurrence key.
  retry: {
    initialInterval: '1s',
    backoffCoefficient: 2,
    maximumInterval: '1m',
    maximumAttempts: 8,
    nonRetryableErrorTypes: [PERMANENT_HANDOFF_ERROR],
  },
};
const { handOff } = wf.proxyActivities<HandoffActivities>(HANDOFF_ACTIVITY_OPTIONS);

/** What failed inside an activity (its cause), or the error itself. */
export const activityCause = (err: unknown): unknown =>
  err instanceof wf.ActivityFailure && err.cause ? err.cause : err;
const isForbiddenTarget = (err: unknown): boolean => {
  const cause = activityCause(err);
  return cause instanceof wf.ApplicationFailure && cause.type === FORBIDDEN_TARGET_ERROR;
};

/** Hand-offs under way, by kind: the loop waits on each differently. */
export interface InFlight {
  handoffs: number;
  /** Jobs being started from an activity (a local one before v0.3: resolved within the task that started it). */
  jobStarts: number;
  /** Inert local starts (PATCHES.INERT_LOCAL_START): not in jobStarts, they wake nothing. */
  inert: number;
  /** Failure hooks' notices being sent (./hooks.ts): the run drains them like hand-offs. */
  notices: number;
}

/** The part of a run a hand-off reads and records into. */
export interface HandOffContext {
  readonly state: ScheduleState;
  readonly ledger: Ledger;
  readonly inFlight: InFlight;
  readonly version: RunVersion;
  readonly defaultJobTaskQueue: string;
  /** A hand-off's result tells the tenant's quota in force (since v0.5.1 activities). */
  learnQuota(told: { inFlightLimit?: number | null }): void;
  wakeLoop(): void;
  /** Counts an arming (PATCHES.ARMED_HANDOFFS) and returns its number. */
  nextArming(): number;
  /** An awaited child started, or finished: the overlap policy counts it meanwhile. */
  childAwaited(occurrenceId: string, workflowId: string): void;
  childFinished(occurrenceId: string): void;
}

type JobTarget = Extract<Target, { type: 'JOB' }>;

/**
 * Emits the occurrence and starts its hand-off; `inert`: this pass's starts may be inert (inertEligible);
 * `armed`: a JOB started ahead of its slot, begun by the server at its instant (PATCHES.ARMED_HANDOFFS).
 */
export function handOffNow(
  run: HandOffContext,
  occ: Occurrence,
  late: boolean,
  inert: boolean,
  armed: ArmedStart | null = null,
): void {
  run.ledger.recordEmitted(occ, late, armed !== null);
  run.inFlight.handoffs += 1;
  const target = run.state.spec.target;
  const mode = startMode({
    targetType: target.type,
    trigger: occ.trigger,
    watchesCompletion: watchesCompletion(run.state.spec),
    jobsFromActivity: run.version.has(PATCHES.PER_FIRE_COST),
    startsMayBeInert: inert,
  });
  // Names this emission: a start retried after a crash gets back the run it already started. A disarm
  // takes its count back, so an arming is also named by its number: a re-arm is another emission. (Both
  // are state, the same in a workflow task retried after a crash; the task's time is not.)
  const arming = armed ? `/armed${run.nextArming()}` : '';
  const emission = `${wf.workflowInfo().runId}/${run.state.counters.fired}${arming}`;
  void runHandOff(run, occ, target, mode, emission, armed);
}

/**
 * Emits several armed occurrences of the schedule's JOB and starts them from one activity
 * (PATCHES.BATCHED_ARMING): each counted, named and recorded as handOffNow does it, in the same order; one
 * marker (or one activity's events) holds every result.
 */
export function armTogether(
  run: HandOffContext,
  slots: ReadonlyArray<{ occ: Occurrence; armed: ArmedStart }>,
  inert: boolean,
): void {
  const starts = slots.map(({ occ, armed }) => {
    run.ledger.recordEmitted(occ, false, true);
    run.inFlight.handoffs += 1;
    const emission = `${wf.workflowInfo().runId}/${run.state.counters.fired}/armed${run.nextArming()}`;
    return { occ, start: { occurrence: run.ledger.envelope(occ), emission, armed } };
  });
  void startArmedTogether(run, run.state.spec.target as JobTarget, starts, inert);
}

async function startArmedTogether(
  run: HandOffContext,
  target: JobTarget,
  starts: ReadonlyArray<{ occ: Occurrence; start: ArmedJobStart }>,
  inert: boolean,
): Promise<void> {
  const requests = starts.map((s) => s.start);
  const queue = run.defaultJobTaskQueue;
  const counter: keyof InFlight = inert ? 'inert' : 'jobStarts';
  run.inFlight[counter] += 1;
  try {
    // As one inert start: a batch that fails locally is retried once from a regular activity.
    const outcomes = await startJobsInActivity(target, requests, queue, inert)
      .catch((err) =>
        inert && !isForbiddenTarget(err)
          ? startJobsInActivity(target, requests, queue, false)
          : Promise.reject(err),
      )
      .finally(() => {
        run.inFlight[counter] -= 1;
      });
    outcomes.forEach((outcome, i) => {
      const { occ } = starts[i]!;
      if ('failed' in outcome) recordFailure(run, occ, `handoff failed: ${outcome.failed}`);
      else {
        run.learnQuota(outcome);
        run.ledger.recordJobStarted(occ, outcome, true);
      }
    });
  } catch (err) {
    for (const { occ } of starts) recordHandOffFailure(run, occ, err);
  } finally {
    run.inFlight.handoffs -= starts.length;
    if (!inert) run.wakeLoop();
  }
}

async function runHandOff(
  run: HandOffContext,
  occ: Occurrence,
  target: Target,
  mode: StartMode,
  emission: string,
  armed: ArmedStart | null,
): Promise<void> {
  try {
    if (target.type !== 'JOB') await handOffToTarget(run, occ, target);
    else if (mode === 'INERT_LOCAL_JOB_START') await startInertly(run, occ, target, emission, armed);
    else if (mode === 'JOB_START_ACTIVITY') await startFromActivity(run, occ, target, emission, armed);
    else await startAsChild(run, occ, target);
  } catch (err) {
    recordHandOffFailure(run, occ, err);
  } finally {
    run.inFlight.handoffs -= 1;
    if (mode !== 'INERT_LOCAL_JOB_START') run.wakeLoop();
  }
}

/**
 * Nothing follows this result: it updates the occurrence and the counters only. A start that fails for
 * good locally is retried once from a regular activity with the same request ID.
 */
async function startInertly(
  run: HandOffContext,
  occ: Occurrence,
  target: JobTarget,
  emission: string,
  armed: ArmedStart | null,
) {
  run.inFlight.inert += 1;
  const queue = run.defaultJobTaskQueue;
  const envelope = run.ledger.envelope(occ);
  const started = await startJobInActivity(target, envelope, queue, emission, 'inert', armed)
    .catch((err) =>
      isForbiddenTarget(err)
        ? Promise.reject(err)
        : startJobInActivity(target, envelope, queue, emission, false, armed),
    )
    .finally(() => {
      run.inFlight.inert -= 1;
    });
  run.learnQuota(started);
  run.ledger.recordJobStarted(occ, started, armed !== null);
}

/** Nothing here waits for the job: no child events, no child to outlive the schedule. */
async function startFromActivity(
  run: HandOffContext,
  occ: Occurrence,
  target: JobTarget,
  emission: string,
  armed: ArmedStart | null,
) {
  run.inFlight.jobStarts += 1;
  const local = usesLocalActivities(run.version);
  const envelope = run.ledger.envelope(occ);
  const started = await startJobInActivity(
    target,
    envelope,
    run.defaultJobTaskQueue,
    emission,
    local,
    armed,
  ).finally(() => {
    run.inFlight.jobStarts -= 1;
  });
  run.learnQuota(started);
  run.ledger.recordJobStarted(occ, started, armed !== null);
}

async function startAsChild(run: HandOffContext, occ: Occurrence, target: JobTarget) {
  if (run.version.has(PATCHES.TARGETS_BOUND)) {
    // A child start is a command, not an activity: the policy in force is asked right before it.
    const verdict = await authorizeJobStart({
      tenant_id: run.state.identity.tenant_id,
      target,
      defaultJobTaskQueue: run.defaultJobTaskQueue,
    });
    if (!verdict.allowed) {
      run.ledger.recordFailed(occ, `${REFUSED_BY_POLICY}: ${verdict.field}: ${verdict.reason}`);
      return;
    }
  }
  const started = await startJob(target, run.ledger.envelope(occ), run.defaultJobTaskQueue);
  // Asked now, not at the emission: an edit applied meanwhile decides whether the run awaits the job.
  const awaited = run.ledger.recordChildStarted(occ, started, watchesCompletion(run.state.spec));
  if (awaited) run.childAwaited(occ.occurrence_id, started.workflowId);
  if (!awaited || started.duplicate) return;
  void started.result
    .then(
      () => jobOutcome(undefined),
      (err) => jobOutcome(err),
    )
    .then((outcome) => {
      run.ledger.recordChildFinished(occ, outcome);
      run.childFinished(occ.occurrence_id);
      run.wakeLoop();
    });
}

/** A WORKFLOW_SIGNAL or EVENT; since v0.5.1 the payload travels in the envelope only, not in the target. */
async function handOffToTarget(run: HandOffContext, occ: Occurrence, target: Exclude<Target, JobTarget>) {
  const result = await handOff({
    target: run.version.has(PATCHES.BOUNDED_HANDOFFS) ? { ...target, payload: undefined } : target,
    occurrence: run.ledger.envelope(occ),
  });
  run.learnQuota(result);
  run.ledger.recordHandedOff(occ, result, null);
}

function recordHandOffFailure(run: HandOffContext, occ: Occurrence, err: unknown) {
  const { message } = activityCause(err) as Error;
  recordFailure(
    run,
    occ,
    isForbiddenTarget(err) ? `${REFUSED_BY_POLICY}: ${message}` : `handoff failed: ${message}`,
  );
}

function recordFailure(run: HandOffContext, occ: Occurrence, reason: string) {
  run.ledger.recordFailed(occ, reason);
  wf.log.warn('hand-off failed for good', {
    occurrence_id: occ.occurrence_id,
    scheduled_for: occ.scheduled_for,
    reason: occ.reason,
  });
}
