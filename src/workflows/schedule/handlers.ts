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
import {
  endedRefusal,
  invalidRequest,
  recomputeRefusal,
  revokedRefusal,
  versionRefusal,
} from './commands.js';
import type { ScheduleRun } from './run.js';
import type { Command } from './state.js';
import { describe } from './views.js';

export function registerHandlers(run: ScheduleRun): void {
  const { commands } = run;
  const s = run.state;
  const submit = <T>(make: (done: (r: T | Error) => void) => Command): Promise<T> => {
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
  };
  const requireHandingOff = () => {
    const refusal = endedRefusal(s) ?? (s.ownerRevoked ? revokedRefusal(s) : null);
    if (refusal) throw refusal;
  };

  wf.setHandler(pauseSignal, (request) => {
    commands.push({ kind: 'pause', note: request?.note ?? null });
  });
  wf.setHandler(resumeSignal, (request) => {
    commands.push({ kind: 'resume', ownerRef: request?.owner_ref ?? null });
  });
  wf.setHandler(ownerRevokedSignal, (request) => {
    commands.push({ kind: 'revokeOwner', reason: request.reason });
  });
  wf.setHandler(editUpdate, (request) => submit<EditResult>((done) => ({ kind: 'edit', request, done })), {
    validator: (request) => {
      const refusal = endedRefusal(s) ?? versionRefusal(s, request.expected_version);
      if (refusal) throw refusal;
    },
  });
  wf.setHandler(
    triggerNowUpdate,
    (request) => submit<Occurrence>((done) => ({ kind: 'trigger', request, done })),
    {
      validator: (_request) => requireHandingOff(),
    },
  );
  wf.setHandler(
    backfillUpdate,
    (request) => submit<BackfillResult>((done) => ({ kind: 'backfill', request, done })),
    {
      validator: (request) => {
        requireHandingOff();
        if (!(Date.parse(request.from) < Date.parse(request.to)))
          throw invalidRequest('from must be before to');
      },
    },
  );
  wf.setHandler(cancelUpdate, (request) =>
    submit<ScheduleDescription>((done) => ({ kind: 'cancel', request, done })),
  );
  wf.setHandler(takeOverUpdate, (request) =>
    submit<{ owner_ref: string; taken_over: boolean }>((done) => ({
      kind: 'takeOver',
      ownerRef: request.owner_ref,
      done,
    })),
  );
  wf.setHandler(
    recomputeUpdate,
    (request) => submit<RecomputeResult>((done) => ({ kind: 'recompute', request, done })),
    {
      validator: (_request) => {
        const refusal = recomputeRefusal(s);
        if (refusal) throw refusal;
      },
    },
  );
  wf.setHandler(newerTzSignal, (request) => {
    if (typeof request?.version === 'string')
      commands.push({ kind: 'noteNewerTz', version: request.version });
  });
  wf.setHandler(newerHolidayDataSignal, (request) => {
    if (typeof request?.version === 'string')
      commands.push({ kind: 'noteNewerHolidays', version: request.version });
  });
  wf.setHandler(describeQuery, () => describe(s));
  wf.setHandler(wakeUpdate, () => null);
}
