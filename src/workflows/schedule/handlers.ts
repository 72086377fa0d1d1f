// The schedule's signals, updates and query. Handlers only enqueue a command for the loop and wait for its
// answer; validators refuse what cannot succeed before it enters history (they run only live, never on
// replay, so a refusal here adds nothing to any history).
import * as wf from '@temporalio/workflow';
import type {
  BackfillResult,
  EditResult,
  Occurrence,
  RecomputeResult,
  ScheduleDescription,
} from '../../model/contracts.js';
import {
  armedTargetsRefusedSignal,
  auditQuery,
  backfillUpdate,
  cancelUpdate,
  describeQuery,
  editUpdate,
  newerHolidayDataSignal,
  newerTzSignal,
  ownerRevokedSignal,
  pauseSignal,
  recomputeUpdate,
  resumeSignal,
  takeOverUpdate,
  triggerNowUpdate,
  wakeUpdate,
} from '../definitions.js';
import { recomputeRefusal } from './commands.js';
import { invalidRequest } from './lifecycle.js';
import type { ScheduleRun } from './run.js';
import type { Command } from './state.js';
import { auditRecord, describe } from './views.js';

/** A command for the loop, and its answer once the loop applied it (an Error is thrown to the caller). */
function submit<T>(commands: Command[], make: (done: (r: T | Error) => void) => Command): Promise<T> {
  let outcome: T | Error | undefined;
  let settled = false;
  commands.push(
    make((r) => {
      outcome = r;
      settled = true;
    }),
  );
  return wf
    .condition(() => settled)
    .then(() => {
      if (outcome instanceof Error) throw outcome;
      return outcome as T;
    });
}

const refuse = (refusal: Error | null) => {
  if (refusal) throw refusal;
};

/**
 * Set in this order, before the loop's first await: signals that arrived before the run began are handed
 * to their handlers as each is set.
 */
export function registerHandlers(run: ScheduleRun): void {
  registerLifecycleSignals(run.commands);
  registerUpdates(run);
  registerDataSignals(run.commands);
  wf.setHandler(describeQuery, () => describe(run.state));
  wf.setHandler(auditQuery, () => auditRecord(run.state));
  wf.setHandler(wakeUpdate, () => null);
}

function registerLifecycleSignals(commands: Command[]): void {
  wf.setHandler(pauseSignal, (request) => {
    commands.push({ kind: 'pause', note: request?.note ?? null });
  });
  wf.setHandler(resumeSignal, (request) => {
    commands.push({ kind: 'resume', ownerRef: request?.owner_ref ?? null });
  });
  wf.setHandler(ownerRevokedSignal, (request) => {
    commands.push({ kind: 'revokeOwner', reason: request.reason });
  });
  wf.setHandler(armedTargetsRefusedSignal, (request) => {
    if (Array.isArray(request?.occurrence_ids) && typeof request.reason === 'string')
      commands.push({ kind: 'refuseArmed', occurrenceIds: request.occurrence_ids, reason: request.reason });
  });
}

function registerUpdates(run: ScheduleRun): void {
  const { commands, lifecycle } = run;
  // Validators run live only, where every run is bound to its tenant's targets (PATCHES.TARGETS_BOUND).
  const requireHandingOff = () => refuse(lifecycle.handOffRefusal());
  wf.setHandler(
    editUpdate,
    (request) => submit<EditResult>(commands, (done) => ({ kind: 'edit', request, done })),
    {
      validator: (request) =>
        refuse(lifecycle.endedRefusal() ?? lifecycle.versionRefusal(request.expected_version)),
    },
  );
  wf.setHandler(
    triggerNowUpdate,
    (request) => submit<Occurrence>(commands, (done) => ({ kind: 'trigger', request, done })),
    { validator: (_request) => requireHandingOff() },
  );
  wf.setHandler(
    backfillUpdate,
    (request) => submit<BackfillResult>(commands, (done) => ({ kind: 'backfill', request, done })),
    {
      validator: (request) => {
        requireHandingOff();
        if (!(Date.parse(request.from) < Date.parse(request.to)))
          throw invalidRequest('from must be before to');
      },
    },
  );
  wf.setHandler(cancelUpdate, (request) =>
    submit<ScheduleDescription>(commands, (done) => ({ kind: 'cancel', request, done })),
  );
  wf.setHandler(takeOverUpdate, (request) =>
    submit<{ owner_ref: string; taken_over: boolean }>(commands, (done) => ({
      kind: 'takeOver',
      ownerRef: request.owner_ref,
      done,
    })),
  );
  wf.setHandler(
    recomputeUpdate,
    (request) => submit<RecomputeResult>(commands, (done) => ({ kind: 'recompute', request, done })),
    { validator: (_request) => refuse(recomputeRefusal(run.state)) },
  );
}

function registerDataSignals(commands: Command[]): void {
  wf.setHandler(newerTzSignal, (request) => {
    if (typeof request?.version === 'string')
      commands.push({ kind: 'noteNewerTz', version: request.version });
  });
  wf.setHandler(newerHolidayDataSignal, (request) => {
    if (typeof request?.version === 'string')
      commands.push({ kind: 'noteNewerHolidays', version: request.version });
  });
}
