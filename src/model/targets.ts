// What a schedule reaches (SPEC.md "Contracts"): its target, with the payload it carries and the limits on it,
// and the identifiers of schedules and tenants. Part of the contracts (contracts.ts re-exports all of it): zod
// schemas, the single source of truth.
import { z } from 'zod';

/** A schedule or tenant ID: also a path segment of the API and part of workflow IDs. */
export const Identifier = z
  .string()
  .min(1)
  .max(200)
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9._~-]*$/,
    'letters, digits and . _ ~ - only, starting with a letter or digit',
  );
const payloadRef = z.string().min(1).max(2048).describe('reference to the payload, e.g. state://… (audited)');
/** Deeper payloads cannot be serialised (JSON.stringify recurses): refused as bad input, not a 500. */
export const MAX_PAYLOAD_DEPTH = 32;
/** Whether a JSON value nests at most `max` objects/arrays deep; iterative, so a hostile value cannot overflow. */
function nestsWithin(value: unknown, max: number): boolean {
  const pending: Array<[unknown, number]> = [[value, 1]];
  while (pending.length > 0) {
    const [v, depth] = pending.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth > max) return false;
    for (const child of Object.values(v)) pending.push([child, depth + 1]);
  }
  return true;
}
/**
 * The largest inline payload a create or edit accepts, serialized as JSON (UTF-8). Every hand-off carries
 * the payload into history (security review L7; the workflow bounds what one task carries, see
 * HANDOFF_CHARS_PER_TASK in src/workflows/definitions.ts). Input validation only: the request schemas check
 * it (src/model/http.ts, the SDK), so a schedule stored before the cap keeps working.
 */
export const MAX_PAYLOAD_BYTES = 16 * 1024;
/** The serialized size of a payload in bytes; Infinity when it cannot be serialized. */
export function payloadBytes(payload: unknown): number {
  try {
    return Buffer.byteLength(JSON.stringify(payload) ?? '', 'utf8');
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}
export const PAYLOAD_TOO_LARGE_REASON = `the payload is larger than ${MAX_PAYLOAD_BYTES / 1024} KiB serialized as JSON: send a payload_ref to data stored elsewhere instead`;
const payload = z
  .record(z.string(), z.unknown())
  .refine((p) => nestsWithin(p, MAX_PAYLOAD_DEPTH), {
    message: `nested more than ${MAX_PAYLOAD_DEPTH} levels deep`,
  })
  .describe('inline JSON payload handed to the target');

/**
 * Retries of one run of a JOB, by the server under the same workflow ID (its retry policy): the same
 * occurrence, the same idempotency key; the budget is per run, renewed for every slot. RadixDB Jobs' 100 ms
 * to 10 s and five attempts is `{attempts: 5, initial_interval_s: 0.1, max_interval_s: 10}`.
 */
export const JobRetry = z
  .object({
    attempts: z.number().int().min(1).max(100).describe('most runs of one occurrence, the first included'),
    initial_interval_s: z.number().min(0.1).max(86_400).default(1).describe('wait before the second run'),
    backoff: z.number().min(1).max(10).default(2).describe('each wait this many times the one before'),
    max_interval_s: z
      .number()
      .min(0.1)
      .max(86_400)
      .optional()
      .describe('longest wait (default: 100 × the first)'),
  })
  .strict()
  .refine((r) => r.max_interval_s === undefined || r.max_interval_s >= r.initial_interval_s, {
    message: 'max_interval_s is at least initial_interval_s',
    path: ['max_interval_s'],
  });
export type JobRetry = z.infer<typeof JobRetry>;

export const JobTarget = z
  .object({
    type: z.literal('JOB'),
    job_type: z
      .string()
      .min(1)
      .max(200)
      .describe('workflow type to start; its workflow ID is the occurrence ID'),
    task_queue: z.string().min(1).max(200).optional(),
    payload_ref: payloadRef.optional(),
    payload: payload.optional(),
    retry: JobRetry.optional().describe(
      "the job's own retry policy: a failed run is run again by the server under the same workflow ID; where the schedule watches completion, the occurrence fails only after the last attempt",
    ),
  })
  .strict();

export const WorkflowSignalTarget = z
  .object({
    type: z.literal('WORKFLOW_SIGNAL'),
    workflow_id: z.string().min(1).max(1000),
    signal_name: z.string().min(1).max(200),
    payload_ref: payloadRef.optional(),
    payload: payload.optional(),
    start: z
      .object({ workflow_type: z.string().min(1).max(200), task_queue: z.string().min(1).max(200) })
      .strict()
      .optional()
      .describe('signal-with-start: start the workflow when it is not running'),
  })
  .strict();

export const EventTarget = z
  .object({
    type: z.literal('EVENT'),
    event_type: z.string().min(1).max(200),
    sink_url: z.url({ protocol: /^https?$/ }),
    payload_ref: payloadRef.optional(),
    payload: payload.optional(),
  })
  .strict();

/**
 * What a trigger or a backfill runs with instead of the target's payload: the pair replaced whole (what it
 * omits is absent from the run, not taken from the schedule). Checked as a definition's payload is.
 */
export const PayloadOverride = z
  .object({ payload: payload.optional(), payload_ref: payloadRef.optional() })
  .strict()
  .refine((o) => o.payload !== undefined || o.payload_ref !== undefined, {
    message: 'an override gives payload, payload_ref or both',
  })
  .refine((o) => o.payload === undefined || payloadBytes(o.payload) <= MAX_PAYLOAD_BYTES, {
    message: PAYLOAD_TOO_LARGE_REASON,
    path: ['payload'],
  });
export type PayloadOverride = z.infer<typeof PayloadOverride>;

export const Target = z.discriminatedUnion('type', [JobTarget, WorkflowSignalTarget, EventTarget]);
export type Target = z.infer<typeof Target>;
