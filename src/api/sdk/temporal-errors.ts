// What a failed call to Temporal means to the scheduler: the SDK's translation into SchedulerErrors, and the
// one decision of "Temporal unavailable" (and of "Temporal refused our credentials") that the SDK and the
// HTTP problems (src/api/http/problems.ts) share. Codes are grpc-js's `status`, never numbers.
import { status } from '@grpc/grpc-js';
import {
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  WorkflowUpdateRPCTimeoutOrCancelledError,
} from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { INVALID_REQUEST, INVALID_STATE, VERSION_CONFLICT } from '../../workflows/definitions.js';
import { SchedulerError, UnavailableError } from '../errors.js';

/**
 * The gRPC status code of a failed call: the error's own, or its cause's (the Temporal client's wrapping).
 * Any numeric `code` counts, not only what @temporalio/client's isGrpcServiceError accepts (which also wants
 * `details` and `metadata`): unit tests stand in for the server with errors that have a code, no metadata.
 */
export const grpcCode = (err: unknown): number | undefined => {
  const e = err as { code?: unknown; cause?: { code?: unknown } } | null;
  const code = typeof e?.code === 'number' ? e.code : e?.cause?.code;
  return typeof code === 'number' ? code : undefined;
};

/**
 * Codes that say "no answer now, the same call may succeed later". DEADLINE_EXCEEDED is also what the
 * server answers when no worker took a query in time ("query timed out before a worker could process
 * it"). RESOURCE_EXHAUSTED is Temporal throttling: a namespace's rate limit, or a schedule with more
 * queries waiting than its worker answers ("consistent query buffer is full"); the call was refused
 * whole, so retrying later is right, and it is no fault of the request nor of ours (not a 500).
 */
const NO_ANSWER_CODES: ReadonlySet<number> = new Set([
  status.DEADLINE_EXCEEDED,
  status.UNAVAILABLE,
  status.RESOURCE_EXHAUSTED,
]);

/** Whether `err` or an error in its chain of causes passes `test` (the Temporal client wraps gRPC errors). */
function someCause(err: unknown, test: (e: { code?: unknown }) => boolean): boolean {
  for (let e = err as { code?: unknown; cause?: unknown } | undefined; e; e = e.cause as typeof e) {
    if (test(e)) return true;
  }
  return false;
}

/**
 * True when Temporal, or the scheduler worker behind it, did not answer in time or refused to answer for
 * now: the error or any of its causes. An update's RPC that timed out (or was cancelled) is one too.
 */
export const isTemporalUnavailable = (err: unknown): boolean =>
  someCause(
    err,
    (e) =>
      (typeof e.code === 'number' && NO_ANSWER_CODES.has(e.code)) ||
      e instanceof WorkflowUpdateRPCTimeoutOrCancelledError,
  );

/**
 * True when Temporal refused the call for this deployment's credentials. The API's own refusals of a tenant
 * are SchedulerErrors, never gRPC codes: a gRPC PermissionDenied here is the server refusing our key.
 */
export const isTemporalRefusal = (err: unknown): boolean =>
  someCause(err, (e) => e.code === status.PERMISSION_DENIED || e.code === status.UNAUTHENTICATED);

/** A query to a schedule created asleep before anything woke it: the server has no task to answer it. */
export function isAsleep(err: unknown): boolean {
  return (
    grpcCode(err) === status.FAILED_PRECONDITION &&
    err instanceof Error &&
    /not scheduled yet/i.test(`${err.message} ${(err.cause as Error | undefined)?.message ?? ''}`)
  );
}

export const noAnswer = () =>
  new UnavailableError(
    'NO_ANSWER',
    'the scheduler worker did not answer in time (down or busy) or Temporal is unreachable; retry',
  );

/** A failed call on schedule `scheduleId` as a SchedulerError where the scheduler knows what it means. */
export function translate(err: unknown, scheduleId: string): unknown {
  if (err instanceof SchedulerError) return err;
  if (err instanceof WorkflowNotFoundError)
    return new SchedulerError('NOT_FOUND', `no schedule ${scheduleId}`);
  const cause = err instanceof WorkflowUpdateFailedError ? err.cause : err;
  if (cause instanceof ApplicationFailure) {
    if (cause.type === VERSION_CONFLICT)
      return new SchedulerError('VERSION_CONFLICT', cause.message, 'expected_version');
    if (cause.type === INVALID_STATE) return new SchedulerError('INVALID_STATE', cause.message);
    if (cause.type === INVALID_REQUEST) return new SchedulerError('VALIDATION', cause.message);
  }
  if (grpcCode(err) === status.NOT_FOUND) return new SchedulerError('NOT_FOUND', `no schedule ${scheduleId}`);
  if (isTemporalUnavailable(err)) return noAnswer();
  return err;
}
