import { z } from 'zod';
import { CalendarError } from '../calendar/errors.js';
import { SCHEDULE_CONTRACT, SUPPORTED_CONTRACTS, serverOwnedReason } from '../model/contracts.js';

/** Why a field a definition does not have was refused: what sets it, if the server owns it. */
export const unknownFieldReason = (key: string): string =>
  serverOwnedReason(key) ?? 'unknown field: remove it';

/**
 * A request's `contract`: absent or the one this API speaks. Another is a 422 (the document is well-formed
 * JSON of a contract this server does not speak), naming the supported ones.
 */
export function checkContract(contract: string | undefined): void {
  if (contract === undefined || contract === SCHEDULE_CONTRACT) return;
  throw new SchedulerError(
    'VALIDATION',
    `unsupported contract ${JSON.stringify(contract).slice(0, 80)}: this API speaks ${SUPPORTED_CONTRACTS.join(', ')} (send it, or leave contract out)`,
    'contract',
  );
}

export const SchedulerErrorCode = z.enum([
  'VALIDATION', // invalid rule, zone, payload or request: `field` says which
  'NOT_FOUND',
  'ALREADY_EXISTS', // a schedule with this ID exists with another definition
  'VERSION_CONFLICT', // expected_version is stale
  'INVALID_STATE', // e.g. editing a cancelled schedule
  'UNAUTHORIZED',
  'FORBIDDEN',
  'FORBIDDEN_TARGET', // the target is outside the tenant policy: `field` names the target field
  'QUOTA_EXCEEDED', // a tenant quota of the policy would be exceeded: `limit` and `current` say by how much
  'UNAVAILABLE', // the scheduler worker (or Temporal) did not answer in time: retryable, nothing changed by it
]);
export type SchedulerErrorCode = z.infer<typeof SchedulerErrorCode>;

/** The error body of the HTTP API and the error the SDK throws. */
export const ErrorBody = z.object({
  error: z.object({ code: SchedulerErrorCode, field: z.string().nullable(), reason: z.string() }),
});
export type ErrorBody = z.infer<typeof ErrorBody>;

export class SchedulerError extends Error {
  override name = 'SchedulerError';
  constructor(
    readonly code: SchedulerErrorCode,
    readonly reason: string,
    readonly field: string | null = null,
  ) {
    super(field ? `${code}: ${field}: ${reason}` : `${code}: ${reason}`);
  }

  toBody(): ErrorBody {
    return { error: { code: this.code, field: this.field, reason: this.reason } };
  }
}

/** A tenant quota (tenant policy `quotas`) would be exceeded; `limit` and `current` are in its unit. */
export class QuotaExceededError extends SchedulerError {
  override name = 'QuotaExceededError';
  constructor(
    reason: string,
    field: string | null,
    readonly limit: number,
    readonly current: number,
  ) {
    super('QUOTA_EXCEEDED', reason, field);
  }
}

/** Turns zod and calendar validation failures into a SchedulerError naming the field. */
export function validationError(err: unknown, root?: string): SchedulerError | null {
  if (err instanceof CalendarError) {
    // The calendar names its options `options.*`; a schedule carries them at the top level.
    const own = err.field.replace(/^options\./, '');
    const field = root ? `${root}.${own}` : own;
    return new SchedulerError('VALIDATION', err.reason, field);
  }
  if (err instanceof z.ZodError) {
    const issue = err.issues[0]!;
    const path = issue.path.map(String);
    if (issue.code === 'unrecognized_keys' && issue.keys.length > 0) {
      const field = [root, ...path, issue.keys[0]].filter(Boolean).join('.');
      const reason = path.length === 0 ? unknownFieldReason(issue.keys[0]!) : 'unknown field: remove it';
      return new SchedulerError('VALIDATION', reason, field);
    }
    return new SchedulerError('VALIDATION', issue.message, [root, ...path].filter(Boolean).join('.') || null);
  }
  return null;
}

/** Parses with a zod schema, throwing a VALIDATION SchedulerError naming the first bad field. */
export function parseOrThrow<T>(schema: z.ZodType<T, unknown>, value: unknown, root?: string): T {
  const result = schema.safeParse(value);
  if (!result.success) throw validationError(result.error, root)!;
  return result.data;
}
