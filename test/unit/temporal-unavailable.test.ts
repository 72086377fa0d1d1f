// "Temporal unavailable" is one decision (src/api/sdk/temporal-errors.ts `isTemporalUnavailable`), taken
// by the SDK when it translates a failed call and by the HTTP problems for an error that reaches them raw.
// RESOURCE_EXHAUSTED is Temporal throttling (a namespace rate limit, a full query buffer): retry later,
// so a 503 with Retry-After on both paths, never a 500 logged as our fault.
import { ServiceError, WorkflowUpdateRPCTimeoutOrCancelledError } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { RETRY_AFTER_SECONDS, renderProblem } from '../../src/api/http/problems.js';
import { isTemporalUnavailable, translate } from '../../src/api/sdk/temporal-errors.js';

const grpcError = (code: number, details: string) =>
  Object.assign(new Error(`${code} ${details}`), { code, details, metadata: {} });
const wrapped = (code: number, details: string) =>
  new ServiceError('Failed to query Workflow', { cause: grpcError(code, details) });

/** The HTTP answer to unavailability: 503, retry after a while, and no fault of ours (not logged as one). */
const ANSWERED_LATER = {
  status: 503,
  code: 'UNAVAILABLE',
  unavailable_cause: 'NO_ANSWER',
  retryAfter: String(RETRY_AFTER_SECONDS),
  internal: false,
};

describe('Temporal unavailable: one decision for the SDK and the HTTP API', () => {
  it.each([
    ['DEADLINE_EXCEEDED', 4],
    ['UNAVAILABLE', 14],
    ['RESOURCE_EXHAUSTED', 8],
  ])('%s, raw or wrapped, is unavailable on both paths', (_name, code) => {
    for (const err of [
      grpcError(code, 'x'),
      wrapped(code, 'x'),
      new Error('outer', { cause: wrapped(code, 'x') }),
    ]) {
      expect(isTemporalUnavailable(err)).toBe(true);
      expect(translate(err, 'r1')).toMatchObject({ code: 'UNAVAILABLE', unavailableCause: 'NO_ANSWER' });
      const { body, headers, internal } = renderProblem(err, '/v1/schedules');
      expect({ ...body, retryAfter: headers['retry-after'], internal }).toMatchObject(ANSWERED_LATER);
    }
  });

  it('an update whose RPC timed out is unavailable on both paths', () => {
    const err = new WorkflowUpdateRPCTimeoutOrCancelledError('timed out', {
      cause: grpcError(1, 'cancelled'),
    });
    expect(isTemporalUnavailable(err)).toBe(true);
    expect(translate(err, 'r1')).toMatchObject({ code: 'UNAVAILABLE' });
    expect(renderProblem(err, '/v1/schedules').body).toMatchObject({
      status: 503,
      unavailable_cause: 'NO_ANSWER',
    });
  });

  it.each([
    ['INVALID_ARGUMENT', 3],
    ['NOT_FOUND', 5],
    ['PERMISSION_DENIED', 7],
    ['FAILED_PRECONDITION', 9],
    ['INTERNAL', 13],
  ])('%s is not unavailability', (_name, code) => {
    expect(isTemporalUnavailable(wrapped(code, 'x'))).toBe(false);
  });

  it('an error of another kind, or none, is not unavailability', () => {
    expect(isTemporalUnavailable(new Error('boom'))).toBe(false);
    expect(isTemporalUnavailable(undefined)).toBe(false);
    expect(isTemporalUnavailable('a string')).toBe(false);
  });
});
