// Temporal refusing the scheduler's own credentials (issue 38: an expired or revoked API key, a certificate
// the server no longer accepts) is answered as what it is: 503 UNAVAILABLE with cause CREDENTIALS_REFUSED,
// logged for the operator, never a bare 500 INTERNAL. The errors are built as @temporalio/client raises
// them (a ServiceError whose cause carries the gRPC code); the real server's refusal is in
// test/integration/secured-temporal.test.ts.
import { ServiceError } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { renderProblem } from '../../src/api/http/problems.js';

const grpcError = (code: number, details: string) =>
  Object.assign(new Error(`${code} ${details}`), { code, details, metadata: {} });

describe('Temporal refusing the deployment', () => {
  it.each([
    ['PermissionDenied (an expired or foreign-namespace token)', 7],
    ['Unauthenticated', 16],
  ])('%s is 503 CREDENTIALS_REFUSED with Retry-After, logged, and says nothing of the key', (_what, code) => {
    const err = new ServiceError('Failed to query workflow', {
      cause: grpcError(code, 'Request unauthorized.'),
    });
    const rendered = renderProblem(err, '/v1/schedules');
    expect(rendered.body).toMatchObject({
      status: 503,
      code: 'UNAVAILABLE',
      unavailable_cause: 'CREDENTIALS_REFUSED',
    });
    expect(rendered.headers['retry-after']).toMatch(/^\d+$/);
    expect(rendered.internal).toBe(true);
    expect(JSON.stringify(rendered.body)).not.toMatch(/unauthorized|bearer|token/i);
  });

  it('an unreachable Temporal is still NO_ANSWER, and another gRPC failure still INTERNAL', () => {
    expect(
      renderProblem(new ServiceError('x', { cause: grpcError(14, 'unavailable') }), '/v1/x').body,
    ).toMatchObject({
      unavailable_cause: 'NO_ANSWER',
    });
    expect(
      renderProblem(new ServiceError('x', { cause: grpcError(13, 'boom') }), '/v1/x').body,
    ).toMatchObject({
      status: 500,
      code: 'INTERNAL',
    });
  });
});
