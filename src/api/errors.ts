import { z } from 'zod';
import { SCHEDULE_CONTRACT, SUPPORTED_CONTRACTS } from '../model/contracts.js';
import type { UnavailableCause } from '../model/http.js';
import type { InterpretProblem, InterpretReading, UnreadWord } from '../model/interpret.js';
import { validationIssue } from '../model/validation.js';

export { UnavailableCause } from '../model/http.js';
export { unknownFieldReason } from '../model/validation.js';

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
  // POST /v1/interpret (docs/words.md): a text the reader answers with a question or a refusal
  'AMBIGUOUS', // the text reads more than one way: `readings` holds each
  'UNREADABLE', // words the reader cannot place: `unread` names each with its offset
  'ZONE_REQUIRED', // a wall-clock rule with no zone in the text and no `timezone`: field `timezone`
  'REGION_REQUIRED', // business days with no country in the text, no `region` and no single country of the zone: field `region`
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

/** UNAVAILABLE with its cause (the HTTP problem's `unavailable_cause`). */
export class UnavailableError extends SchedulerError {
  override name = 'UnavailableError';
  declare readonly code: 'UNAVAILABLE';
  constructor(
    readonly unavailableCause: UnavailableCause,
    reason: string,
  ) {
    super('UNAVAILABLE', reason);
  }
}

/** What one item of an operation on many answers when it was refused: the code and the reason. */
export const refusalReason = (err: unknown): string =>
  err instanceof SchedulerError ? `${err.code}: ${err.reason}` : String(err);

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

/**
 * A text the schedule reader answers with a question (AMBIGUOUS, with every reading) or a refusal
 * (UNREADABLE, naming the words; ZONE_REQUIRED; REGION_REQUIRED): the HTTP API's 422 with `readings` / `unread`.
 */
export class InterpretProblemError extends SchedulerError {
  override name = 'InterpretProblemError';
  declare readonly code: 'AMBIGUOUS' | 'UNREADABLE' | 'ZONE_REQUIRED' | 'REGION_REQUIRED';
  /** On AMBIGUOUS: each reading, a full answer (timing, options, explanation, notes, next runs). */
  readonly readings: InterpretReading[] | undefined;
  /** On UNREADABLE: each word the reader could not place, with its UTF-16 offset in the text. */
  readonly unread: z.infer<typeof UnreadWord>[] | undefined;

  constructor(readonly problem: InterpretProblem) {
    super(problem.code, problem.reason, problem.field);
    this.readings = problem.code === 'AMBIGUOUS' ? problem.readings : undefined;
    this.unread = problem.code === 'UNREADABLE' ? problem.unread : undefined;
  }
}

/** Turns zod and calendar validation failures into a SchedulerError naming the field. */
export function validationError(err: unknown, root?: string): SchedulerError | null {
  const issue = validationIssue(err, root);
  return issue ? new SchedulerError('VALIDATION', issue.reason, issue.field) : null;
}

/** Parses with a zod schema, throwing a VALIDATION SchedulerError naming the first bad field. */
export function parseOrThrow<T>(schema: z.ZodType<T, unknown>, value: unknown, root?: string): T {
  const result = schema.safeParse(value);
  if (!result.success) throw validationError(result.error, root)!;
  return result.data;
}
