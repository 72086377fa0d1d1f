// Every error the HTTP API returns is an RFC 9457 problem (application/problem+json) that names the failing
// field and says what to do. This module is the one place errors become HTTP statuses.

import { maxHeaderSize } from 'node:http';
import type { FastifyError } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { Problem } from '../../model/http.js';
import {
  InterpretProblemError,
  QuotaExceededError,
  SchedulerError,
  type SchedulerErrorCode,
  UnavailableError,
  unknownFieldReason,
} from '../errors.js';
import { VersionConflictError } from '../patch.js';
import { isTemporalRefusal, isTemporalUnavailable } from '../sdk/temporal-errors.js';

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

interface ProblemType {
  slug: string;
  title: string;
  status: number;
  description: string;
}

/** The problem types by slug, each documented at GET /problems/{slug} (the `type` URI). */
const PROBLEM_TYPES = {
  'malformed-request': {
    title: 'Malformed request',
    status: 400,
    description: 'The body is not valid JSON, or a parameter has the wrong shape.',
  },
  'invalid-request': {
    title: 'Invalid request',
    status: 400,
    description: 'A field is missing, unknown or of the wrong type: see `field` and `errors`.',
  },
  unauthorized: {
    title: 'Unauthorized',
    status: 401,
    description: 'Send `Authorization: Bearer <API key>` with a key the operator configured.',
  },
  'not-found': {
    title: 'Not found',
    status: 404,
    description: 'No such schedule for your tenant, or no such route.',
  },
  'method-not-allowed': {
    title: 'Method not allowed',
    status: 405,
    description: 'The path exists but not with this method: the `Allow` header lists the methods it has.',
  },
  'unsupported-media-type': {
    title: 'Unsupported media type',
    status: 415,
    description: 'Send the body as `Content-Type: application/json`.',
  },
  conflict: {
    title: 'Conflict',
    status: 409,
    description: 'The schedule exists with another definition, or is in a state that refuses the change.',
  },
  'version-conflict': {
    title: 'Version conflict',
    status: 409,
    description:
      'The schedule changed since you read it: read it again (`current_version`) and re-apply your change.',
  },
  'payload-too-large': {
    title: 'Payload too large',
    status: 413,
    description: 'The body is larger than the documented limit.',
  },
  'request-timeout': {
    title: 'Request timeout',
    status: 408,
    description: 'The request did not arrive completely in time: send it again.',
  },
  'headers-too-large': {
    title: 'Request header fields too large',
    status: 431,
    description:
      'The request line and headers together are larger than the server accepts: shorten the URL (query) or the headers.',
  },
  'forbidden-target': {
    title: 'Target not allowed for this tenant',
    status: 403,
    description:
      "The schedule's target (job type, task queue, workflow ID or event sink) is outside what the operator's tenant policy allows this tenant; `field` names it and `detail` says which policy entry would allow it.",
  },
  'quota-exceeded': {
    title: 'Tenant quota exceeded',
    status: 403,
    description:
      "The request would take the tenant past a quota of the operator's tenant policy (live schedules, minimum interval, backfill slots): `limit` is the quota, `current` what the tenant has or asks, `field` the field to change; `detail` says which quota.",
  },
  unprocessable: {
    title: 'Unprocessable definition',
    status: 422,
    description:
      'The request is well-formed but the definition cannot work: an unknown zone, a rule that never fires, a refused sink… For POST /v1/interpret, `code` says why the words give no one timing: AMBIGUOUS (`readings` holds each reading), UNREADABLE (`unread` names the words), ZONE_REQUIRED (`field` timezone), REGION_REQUIRED (`field` region: business days and no country).',
  },
  'rate-limited': {
    title: 'Too many requests',
    status: 429,
    description:
      'This tenant (on the public routes: this client address) used up its requests for the minute (weighted by cost: a backfill or a long list counts more than a read), or asked for a tenant-wide recompute again within its interval (`detail` says which): wait `Retry-After` seconds.',
  },
  unavailable: {
    title: 'Service unavailable',
    status: 503,
    description:
      "Temporal or the scheduler worker did not answer in time. Nothing you sent was lost; retry after `Retry-After` seconds. `unavailable_cause` says how: NO_ANSWER (no answer in time, unreachable, or the call was shed), STALE_CLOCK (the worker refused every read of the schedule: it had not yet run the workflow task the newest events wait for), or CREDENTIALS_REFUSED (Temporal refused the scheduler's own credentials: the operator must renew them).",
  },
  internal: {
    title: 'Internal error',
    status: 500,
    description: 'A fault in the scheduler, not in your request. It is logged; retry later.',
  },
} as const satisfies Record<string, Omit<ProblemType, 'slug'>>;

/** The slug of a problem type: a misspelled one fails to compile. */
export type ProblemSlug = keyof typeof PROBLEM_TYPES;

/** The problem types by slug, for a slug that comes from outside (the path of GET /problems/{slug}). */
export const problemTypes: Readonly<Record<string, ProblemType>> = Object.fromEntries(
  Object.entries(PROBLEM_TYPES).map(([slug, type]) => [slug, { slug, ...type }]),
);

export class HttpProblem extends Error {
  constructor(
    readonly slug: ProblemSlug,
    readonly detail: string,
    readonly extra: Partial<Problem> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(detail);
  }
}

/** The OpenAPI responses of `statuses`: each a problem, described by the titles of its problem types. */
export const problemResponses = (...statuses: number[]) =>
  Object.fromEntries(
    statuses.map((status) => [
      status,
      {
        description: Object.values(problemTypes)
          .filter((t) => t.status === status)
          .map((t) => t.title)
          .join(' / '),
        content: { [PROBLEM_CONTENT_TYPE]: { schema: Problem } },
      },
    ]),
  );
/** What every authenticated /v1 route can answer besides its success. */
export const COMMON_PROBLEMS = [400, 401, 413, 415, 429, 431, 503];

/**
 * A 401 asking for a bearer credential (`WWW-Authenticate: Bearer`): `invalid` when the request sent one,
 * `missing` when it sent none.
 */
export function unauthorized(
  authorization: string | undefined,
  invalid: string,
  missing: string,
): HttpProblem {
  return new HttpProblem(
    'unauthorized',
    authorization ? invalid : missing,
    { code: 'UNAUTHORIZED' },
    { 'www-authenticate': 'Bearer' },
  );
}

const bySchedulerCode: Record<SchedulerErrorCode, ProblemSlug> = {
  VALIDATION: 'unprocessable',
  NOT_FOUND: 'not-found',
  ALREADY_EXISTS: 'conflict',
  VERSION_CONFLICT: 'version-conflict',
  INVALID_STATE: 'conflict',
  UNAUTHORIZED: 'unauthorized',
  FORBIDDEN: 'not-found', // never leak that another tenant's schedule exists
  FORBIDDEN_TARGET: 'forbidden-target',
  QUOTA_EXCEEDED: 'quota-exceeded',
  UNAVAILABLE: 'unavailable',
  AMBIGUOUS: 'unprocessable',
  UNREADABLE: 'unprocessable',
  ZONE_REQUIRED: 'unprocessable',
  REGION_REQUIRED: 'unprocessable',
};

export const RETRY_AFTER_SECONDS = 5;

export interface RenderedProblem {
  body: Problem;
  headers: Record<string, string>;
  /** A fault of ours (5xx other than unavailability): to be logged with its stack. */
  internal: boolean;
}

/** A problem of type `slug`; `instance` is the request path, undefined when there was no request yet. */
function problem(
  instance: string | undefined,
  slug: ProblemSlug,
  detail: string,
  extra: Partial<Problem> = {},
  headers: Record<string, string> = {},
): RenderedProblem {
  const type = PROBLEM_TYPES[slug];
  return {
    body: {
      type: `/problems/${slug}`,
      title: type.title,
      status: type.status,
      detail,
      ...(instance === undefined ? {} : { instance }),
      code: slug.toUpperCase().replace(/-/g, '_'),
      field: null,
      ...extra,
    },
    headers,
    internal: slug === 'internal',
  };
}

type SchemaValidationError = FastifyError & { validation: NonNullable<FastifyError['validation']> };

/** Each issue of a request the route's schema refused, as `{field, reason}`, the field named by request part. */
function schemaIssues(
  err: SchemaValidationError,
  part: string,
): Array<{ field: string | null; reason: string }> {
  return err.validation.flatMap((issue) => {
    const path = issue.instancePath.replace(/^\//, '').split('/').filter(Boolean);
    const at = (segments: string[]) => {
      const joined = segments.join('.');
      return part === 'body' ? joined || null : [part, joined].filter(Boolean).join('.');
    };
    // An unknown field is named itself, so the caller sees which one to remove.
    const unknownKeys =
      issue.keyword === 'unrecognized_keys' ? (issue.params as { keys?: string[] }).keys : undefined;
    if (unknownKeys?.length) {
      // A server-owned field of a schedule.v1 view says what changes it (top level of a definition only).
      return unknownKeys.map((key) => ({
        field: at([...path, key]),
        reason: path.length === 0 && part === 'body' ? unknownFieldReason(key) : 'unknown field: remove it',
      }));
    }
    return [{ field: at(path), reason: issue.message ?? 'invalid' }];
  });
}

function schemaProblem(err: SchemaValidationError, instance: string | undefined): RenderedProblem {
  const part = err.validationContext ?? 'body';
  const errors = schemaIssues(err, part);
  const first = errors[0]!;
  const more =
    errors.length > 1
      ? ` (and ${errors.length - 1} more issue${errors.length > 2 ? 's' : ''}, see errors)`
      : '';
  return problem(instance, 'invalid-request', `${first.field ?? part}: ${first.reason}${more}`, {
    field: first.field,
    errors,
    code: 'VALIDATION',
  });
}

function schedulerProblem(err: SchedulerError, instance: string | undefined): RenderedProblem {
  // Its reason names expected_version itself, and the version to base on is a field of its own.
  if (err instanceof VersionConflictError) {
    return problem(instance, 'version-conflict', err.reason, {
      code: err.code,
      field: err.field,
      current_version: err.currentVersion,
    });
  }
  const slug = bySchedulerCode[err.code];
  return problem(
    instance,
    slug,
    err.field ? `${err.field}: ${err.reason}` : err.reason,
    {
      code: err.code,
      field: err.field,
      ...(err.code === 'VALIDATION' ? { errors: [{ field: err.field, reason: err.reason }] } : {}),
      ...(err instanceof QuotaExceededError ? { limit: err.limit, current: err.current } : {}),
      ...(err instanceof UnavailableError ? { unavailable_cause: err.unavailableCause } : {}),
      ...(err instanceof InterpretProblemError && err.readings ? { readings: err.readings } : {}),
      ...(err instanceof InterpretProblemError && err.unread ? { unread: err.unread } : {}),
    },
    slug === 'unavailable' ? { 'retry-after': String(RETRY_AFTER_SECONDS) } : {},
  );
}

/** Errors of Fastify (body parsing, the router) and of Node's HTTP parser, by code: slug, detail, code. */
const HTTP_ERRORS: Record<string, (err: FastifyError) => [slug: ProblemSlug, detail: string, code: string]> =
  {
    FST_ERR_CTP_INVALID_JSON_BODY: (err) => [
      'malformed-request',
      `the body is not valid JSON: ${err.message}`,
      'MALFORMED_JSON',
    ],
    FST_ERR_CTP_EMPTY_JSON_BODY: (err) => [
      'malformed-request',
      `the body is not valid JSON: ${err.message}`,
      'MALFORMED_JSON',
    ],
    FST_ERR_CTP_BODY_TOO_LARGE: (err) => [
      'payload-too-large',
      `the body is larger than the limit of this API (${err.message})`,
      'PAYLOAD_TOO_LARGE',
    ],
    FST_ERR_CTP_INVALID_MEDIA_TYPE: () => [
      'unsupported-media-type',
      'send the body as Content-Type: application/json',
      'UNSUPPORTED_MEDIA_TYPE',
    ],
    // Raised by the router before any route runs (they reach here through Fastify's `frameworkErrors`).
    FST_ERR_BAD_URL: () => [
      'malformed-request',
      'the path has a malformed percent-escape: encode reserved characters as %XX with two hex digits',
      'MALFORMED_REQUEST',
    ],
    FST_ERR_MAX_PARAM_LENGTH: () => [
      'malformed-request',
      'a path segment is longer than this API accepts (a schedule id has at most 200 characters)',
      'MALFORMED_REQUEST',
    ],
    // Raised by Node's HTTP server before Fastify has a request (they reach here through `clientErrorHandler`).
    HPE_HEADER_OVERFLOW: () => [
      'headers-too-large',
      `the request line and headers are larger than this API accepts (${Math.round(maxHeaderSize / 1024)} KiB): shorten the query or the headers`,
      'HEADERS_TOO_LARGE',
    ],
    ERR_HTTP_REQUEST_TIMEOUT: () => [
      'request-timeout',
      'the request did not arrive completely in time',
      'REQUEST_TIMEOUT',
    ],
  };

/** A Fastify or Node HTTP error as a problem; an error of ours (or of no known kind) as `internal`. */
function httpProblem(err: FastifyError, instance: string | undefined): RenderedProblem {
  const known =
    typeof err.code === 'string' && Object.hasOwn(HTTP_ERRORS, err.code) ? HTTP_ERRORS[err.code] : undefined;
  if (known) {
    const [slug, detail, code] = known(err);
    return problem(instance, slug, detail, { code });
  }
  if (typeof err.code === 'string' && err.code.startsWith('HPE_')) {
    return problem(instance, 'malformed-request', `the request is not valid HTTP/1.1 (${err.code})`, {
      code: 'MALFORMED_REQUEST',
    });
  }
  if (err.statusCode === 429) return problem(instance, 'rate-limited', err.message, { code: 'RATE_LIMITED' });
  if (typeof err.statusCode === 'number' && err.statusCode >= 400 && err.statusCode < 500) {
    return problem(instance, 'malformed-request', err.message, { code: 'MALFORMED_REQUEST' });
  }
  return problem(instance, 'internal', 'an internal error occurred; it has been logged');
}

/** `instance` is the request path; undefined when Node's HTTP parser refused the request before it had one. */
export function renderProblem(err: unknown, instance: string | undefined): RenderedProblem {
  if (err instanceof HttpProblem) return problem(instance, err.slug, err.detail, err.extra, err.headers);
  if (hasZodFastifySchemaValidationErrors(err)) return schemaProblem(err as SchemaValidationError, instance);
  if (err instanceof SchedulerError) return schedulerProblem(err, instance);
  if (isTemporalRefusal(err)) {
    // Logged as an internal error: the deployment's key or certificate is the operator's to fix.
    return {
      ...problem(
        instance,
        'unavailable',
        "Temporal refused the scheduler's credentials; the operator has been alerted. Nothing you sent was changed; retry later",
        { code: 'UNAVAILABLE', unavailable_cause: 'CREDENTIALS_REFUSED' },
        { 'retry-after': String(RETRY_AFTER_SECONDS) },
      ),
      internal: true,
    };
  }
  if (isTemporalUnavailable(err)) {
    return problem(
      instance,
      'unavailable',
      'Temporal or the scheduler worker did not answer in time; retry later',
      { code: 'UNAVAILABLE', unavailable_cause: 'NO_ANSWER' },
      { 'retry-after': String(RETRY_AFTER_SECONDS) },
    );
  }
  return httpProblem(err as FastifyError, instance);
}
