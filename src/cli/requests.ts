/**
 * Flags → HTTP request bodies and queries, built from the model's zod contracts and checked locally before
 * anything is sent: a bad flag is a {@link UsageError} naming the flag (and the body field it fills), which
 * `main` prints on one line with exit code 2. Pure functions: no I/O, no clock (`now` is passed in).
 */
import type { z } from 'zod';
import { CalendarError } from '../calendar/index.js';
import type { Timing } from '../calendar/timing.js';
import { AuditRequest } from '../model/audit.js';
import {
  BackfillRequest,
  BulkRequest,
  CancelRequest,
  Identifier,
  PauseRequest,
  RecomputeRequest,
  TriggerRequest,
} from '../model/contracts.js';
import {
  CreateScheduleRequest,
  ListOccurrencesQuery,
  ListSchedulesQuery,
  PatchScheduleRequest,
} from '../model/http.js';
import { computeSlots } from '../model/slots.js';
import { validationIssue } from '../model/validation.js';
import {
  buildTarget,
  type CreateFlags,
  definitionFromFlags,
  type EditFlags,
  flagName,
  given,
  parseJsonText,
  payloadFieldsOf,
  policiesFromFlags,
  rejectMixedFile,
  TIMING_FLAGS,
} from './definition-flags.js';
import { UsageError } from './preview.js';

export {
  type CreateFlags,
  type DefinitionFlags,
  type EditFlags,
  flagName,
  parseSeconds,
} from './definition-flags.js';

/** The flag that fills a body field, for error lines (`--timezone (timing.timezone)`). */
const FIELD_FLAGS: Array<[RegExp, string]> = [
  [/^schedule_id$/, '--id'],
  [/^expected_version$/, '--expected-version'],
  [/^timing\.timezone$/, '--timezone'],
  [/^timezone$/, '--timezone'],
  [/^timing\.expression$/, '--cron'],
  [/^timing\.rule$/, '--rule'],
  [/^timing\.every$/, '--every'],
  [/^timing\.delay$/, '--delay'],
  [/^timing\.anchor$/, '--anchor'],
  [/^timing\.reminders(\.|$)/, '--reminder'],
  [/^target\.job_type$/, '--job'],
  [/^target\.task_queue$/, '--task-queue'],
  [/^target\.event_type$/, '--event'],
  [/^target\.sink_url$/, '--sink'],
  [/^target\.signal_name$/, '--signal'],
  [/^target\.workflow_id$/, '--workflow-id'],
  [/^target\.payload$/, '--payload'],
  [/^target\.payload_ref$/, '--payload-ref'],
  [/^misfire$/, '--misfire'],
  [/^overlap$/, '--overlap'],
  [/^max_lateness_s$/, '--max-lateness'],
  [/^labels(\.|$)/, '--label'],
];

function flagForField(field: string, timing: Timing | undefined): string | undefined {
  if (field === 'timing.at') return timing?.kind === 'DEADLINE' ? '--deadline' : '--at';
  return FIELD_FLAGS.find(([pattern]) => pattern.test(field))?.[1];
}

/** Where an error about `field` points: the flag that filled it (when the body came from flags) and the field. */
function label(field: string, fromFlags: boolean, timing?: Timing): string {
  const flag = fromFlags ? flagForField(field, timing) : undefined;
  if (!field) return fromFlags ? 'request' : '--file';
  return flag ? `${flag} (${field})` : field;
}

/** A failed zod parse or calendar check as a UsageError, its field named as the API's problems name it. */
function usageError(error: unknown, fromFlags: boolean, timing?: Timing): UsageError | null {
  const invalid = validationIssue(error);
  return invalid ? new UsageError(label(invalid.field ?? '', fromFlags, timing), invalid.reason) : null;
}

/** The calendar's checks (zone, rule, durations, dates): deterministic, so cheap to run before sending. */
export function checkCalendar(spec: Record<string, unknown>, fromFlags: boolean, now: Date): void {
  const timing = spec.timing as Timing;
  try {
    computeSlots({
      scheduleId: 'cli-check',
      spec: spec as Parameters<typeof computeSlots>[0]['spec'],
      createdAt: now.toISOString(),
      after: now.toISOString(),
      count: 1,
      refuseRepeats: true,
    });
  } catch (err) {
    // Anything but a calendar error is for the server to judge.
    if (err instanceof CalendarError) throw usageError(err, fromFlags, timing)!;
  }
}

/** The fields of a reading of words that a definition takes: the timing and the options the words set. */
export interface WordsReading {
  text: string;
  timing: Timing;
  timezone?: string | undefined;
  window?: unknown;
  starts_at?: string | undefined;
  ends_at?: string | undefined;
  max_count?: number | undefined;
  dst?: unknown;
}

const READ_OPTIONS = ['timezone', 'window', 'starts_at', 'ends_at', 'max_count', 'dst'] as const;

/**
 * `create --when`: the POST /v1/schedules body from what the words were read into (`reading`, the answer
 * of POST /v1/interpret) and the target and policy flags; `authored_from` keeps the words, for audit.
 * The timing flags are the words' (only --timezone, which the reading used, goes with --when).
 */
export function buildCreateFromWords(
  flags: CreateFlags,
  reading: WordsReading,
  now: Date,
): CreateScheduleRequest {
  if (flags.file !== undefined) throw new UsageError('--when', 'give either --when or --file, not both');
  const timingFlags = [...given(flags, TIMING_FLAGS), ...given(flags, ['reminder', 'anchor'])];
  if (timingFlags.length > 0) {
    throw new UsageError(
      flagName(timingFlags[0]!),
      'the words of --when are the timing: give either --when or the timing flags',
    );
  }
  const body: Record<string, unknown> = {
    ...(flags.id !== undefined ? { schedule_id: flags.id } : {}),
    timing: reading.timing,
  };
  for (const key of READ_OPTIONS) if (reading[key] !== undefined) body[key] = reading[key];
  body.target = buildTarget(flags, true);
  Object.assign(body, policiesFromFlags(flags));
  body.authored_from = reading.text;
  const parsed = CreateScheduleRequest.safeParse(body);
  if (!parsed.success) throw usageError(parsed.error, true, reading.timing)!;
  const { schedule_id: _id, target: _target, ...spec } = parsed.data;
  checkCalendar(spec, true, now);
  return body as CreateScheduleRequest;
}

/** `create`: the POST /v1/schedules body, from flags or from the text of `--file`. */
export function buildCreateRequest(
  flags: CreateFlags,
  fileText: string | undefined,
  now: Date,
): CreateScheduleRequest {
  let body: Record<string, unknown>;
  const fromFlags = fileText === undefined;
  if (!fromFlags) {
    rejectMixedFile(flags);
    const value = parseJsonText('--file', fileText);
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw new UsageError('--file', 'must hold a JSON object (a CreateScheduleRequest)');
    }
    body = { ...(value as Record<string, unknown>) };
    if (flags.id !== undefined) body.schedule_id = flags.id;
  } else {
    body = {
      ...(flags.id !== undefined ? { schedule_id: flags.id } : {}),
      ...definitionFromFlags(flags, true),
    };
  }
  const parsed = CreateScheduleRequest.safeParse(body);
  if (!parsed.success) throw usageError(parsed.error, fromFlags, body.timing as Timing)!;
  const { schedule_id: _id, target: _target, ...spec } = parsed.data;
  checkCalendar(spec, fromFlags, now);
  return body as CreateScheduleRequest;
}

/** `edit`: the PATCH body — expected_version plus only the fields given (or the `--file` body). */
export function buildPatchRequest(
  flags: EditFlags,
  fileText: string | undefined,
  now: Date,
): PatchScheduleRequest {
  const fromFlags = fileText === undefined;
  let body: Record<string, unknown>;
  if (!fromFlags) {
    rejectMixedFile(flags);
    const value = parseJsonText('--file', fileText);
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw new UsageError('--file', 'must hold a JSON object (a PATCH body)');
    }
    body = { ...(value as Record<string, unknown>) };
  } else {
    body = definitionFromFlags(flags, false);
  }
  if (flags.expectedVersion !== undefined) {
    const version = Number(flags.expectedVersion);
    if (!/^\d+$/.test(flags.expectedVersion) || version < 1) {
      throw new UsageError(
        '--expected-version',
        `"${flags.expectedVersion}" must be the version you read (an integer from 1)`,
      );
    }
    body = { expected_version: version, ...body };
  } else if (body.expected_version === undefined) {
    throw new UsageError(
      '--expected-version',
      'is required: the version you read (`scheduler get <id>`); the edit is refused if the schedule moved on',
    );
  }
  if (Object.keys(body).filter((k) => k !== 'expected_version').length === 0) {
    throw new UsageError(
      fromFlags ? 'edit' : '--file',
      'nothing to change: give the definition flags to change (e.g. --cron … --timezone …, --overlap SKIP)',
    );
  }
  const parsed = PatchScheduleRequest.safeParse(body);
  if (!parsed.success) throw usageError(parsed.error, fromFlags, body.timing as Timing)!;
  if (body.timing && typeof body.timing === 'object') {
    checkCalendar(
      {
        timing: body.timing,
        ...(typeof body.timezone === 'string' ? { timezone: body.timezone } : {}),
      },
      fromFlags,
      now,
    );
  }
  return body as PatchScheduleRequest;
}

/** Runs a strict request schema over flag-built values; the issue is reported under the flag. */
function checked<T>(schema: z.ZodType, body: Record<string, unknown>, flags: Record<string, string>): T {
  const parsed = schema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const field = issue.path.map(String).join('.');
    throw new UsageError(flags[field] ?? (field || 'request'), issue.message);
  }
  return body as T;
}

const INSTANT_HINT = 'must be an ISO 8601 instant with Z or an offset (e.g. 2026-11-02T09:00:00Z)';
function instantMessages<T>(fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (err instanceof UsageError && /datetime/i.test(err.reason)) {
      throw new UsageError(err.field, INSTANT_HINT);
    }
    throw err;
  }
}

function checkLimit(limit: string | undefined, max: number): void {
  if (limit !== undefined && (!/^\d+$/.test(limit) || Number(limit) < 1 || Number(limit) > max)) {
    throw new UsageError('--limit', `"${limit}" must be an integer from 1 to ${max}`);
  }
}

export interface ListFlags {
  status?: string;
  kind?: string;
  limit?: string;
  cursor?: string;
  includeDeleted?: boolean;
  selector?: string;
}

/** `list`: the GET /v1/schedules query (only what was given). */
export function buildListQuery(flags: ListFlags): Record<string, string> {
  const query: Record<string, string> = {};
  if (flags.status !== undefined) query.status = flags.status;
  if (flags.kind !== undefined) query.timing_kind = flags.kind;
  if (flags.limit !== undefined) query.limit = flags.limit;
  if (flags.cursor !== undefined) query.cursor = flags.cursor;
  if (flags.includeDeleted) query.include_deleted = 'true';
  if (flags.selector !== undefined) query.selector = flags.selector;
  checkLimit(flags.limit, 100);
  return checked(ListSchedulesQuery, query, {
    selector: '--selector',
    status: '--status',
    timing_kind: '--kind',
    limit: '--limit',
    cursor: '--cursor',
  });
}

/** `occurrences`: the GET …/occurrences query. */
export function buildOccurrencesQuery(flags: { limit?: string; cursor?: string }): Record<string, string> {
  const query: Record<string, string> = {};
  if (flags.limit !== undefined) query.limit = flags.limit;
  if (flags.cursor !== undefined) query.cursor = flags.cursor;
  checkLimit(flags.limit, 256);
  return checked(ListOccurrencesQuery, query, { limit: '--limit', cursor: '--cursor' });
}

export interface AuditFlags {
  from?: string;
  to?: string;
  lateAfter?: string;
}

/** `audit`'s query: --from is required, --to defaults to now. */
export function buildAuditQuery(flags: AuditFlags, now: Date): Record<string, string> {
  if (flags.from === undefined)
    throw new UsageError('--from', 'is required (the first instant of the range)');
  const query: Record<string, string> = { from: flags.from, to: flags.to ?? now.toISOString() };
  if (flags.lateAfter !== undefined) query.late_after_s = flags.lateAfter;
  instantMessages(() =>
    checked(AuditRequest, query, { from: '--from', to: '--to', late_after_s: '--late-after' }),
  );
  return query;
}

export function buildPauseRequest(flags: { note?: string }): PauseRequest {
  return checked(PauseRequest, flags.note !== undefined ? { note: flags.note } : {}, { note: '--note' });
}

/** The flags of a run with a payload override: `trigger` and `backfill`. */
export interface OverrideFlags {
  payload?: string;
  payloadRef?: string;
}

const OVERRIDE_FLAGS = { 'override.payload': '--payload', 'override.payload_ref': '--payload-ref' };

/** --payload / --payload-ref → `override` (none given: the schedule's own payload). */
function overrideOf(flags: OverrideFlags): Record<string, unknown> {
  const pair = payloadFieldsOf(flags);
  return Object.keys(pair).length > 0 ? { override: pair } : {};
}

export function buildTriggerRequest(flags: { at?: string; reason?: string } & OverrideFlags): TriggerRequest {
  const body: Record<string, unknown> = { ...overrideOf(flags) };
  if (flags.at !== undefined) body.scheduled_for = flags.at;
  if (flags.reason !== undefined) body.reason = flags.reason;
  return instantMessages(() =>
    checked(TriggerRequest, body, { scheduled_for: '--at', reason: '--reason', ...OVERRIDE_FLAGS }),
  );
}

export interface RecomputeFlags {
  zone?: string;
  ifOlderThan?: string;
  reason?: string;
}

export function buildRecomputeRequest(flags: RecomputeFlags): RecomputeRequest {
  const body: Record<string, unknown> = {};
  if (flags.zone !== undefined) body.zone = flags.zone;
  if (flags.ifOlderThan !== undefined) body.if_older_than = flags.ifOlderThan;
  if (flags.reason !== undefined) body.reason = flags.reason;
  return checked(RecomputeRequest, body, {
    zone: '--zone',
    if_older_than: '--if-older-than',
    reason: '--reason',
  });
}

export function buildBackfillRequest(
  flags: {
    from?: string;
    to?: string;
    reason?: string;
  } & OverrideFlags,
): BackfillRequest {
  if (flags.from === undefined)
    throw new UsageError('--from', 'is required (the first instant of the range)');
  if (flags.to === undefined) throw new UsageError('--to', 'is required (the end of the range)');
  const body: Record<string, unknown> = { from: flags.from, to: flags.to, ...overrideOf(flags) };
  if (flags.reason !== undefined) body.reason = flags.reason;
  return instantMessages(() =>
    checked(BackfillRequest, body, { from: '--from', to: '--to', reason: '--reason', ...OVERRIDE_FLAGS }),
  );
}

export function buildCancelRequest(flags: {
  note?: string;
  cancelRunning?: boolean;
}): z.input<typeof CancelRequest> {
  const body: Record<string, unknown> = {};
  if (flags.note !== undefined) body.note = flags.note;
  if (flags.cancelRunning) body.running = 'CANCEL';
  return checked(CancelRequest, body, { note: '--note', running: '--cancel-running' });
}

/** `bulk <action>`: the POST /v1/bulk body. */
export function buildBulkRequest(
  action: string,
  flags: { selector?: string; dryRun?: boolean; note?: string; cancelRunning?: boolean },
): z.input<typeof BulkRequest> {
  if (flags.selector === undefined)
    throw new UsageError('--selector', 'is required: the labels that pick the schedules, e.g. team=payments');
  const body: Record<string, unknown> = { action, selector: flags.selector };
  if (flags.dryRun) body.dry_run = true;
  if (flags.note !== undefined) body.note = flags.note;
  if (flags.cancelRunning) body.running = 'CANCEL';
  return checked(BulkRequest, body, {
    action: '<action>',
    selector: '--selector',
    note: '--note',
    running: '--cancel-running',
  });
}

/** A schedule id argument: checked locally so a typo is exit 2, not a 404 from a mangled path. */
export function checkScheduleId(id: string): string {
  if (!Identifier.safeParse(id).success) {
    throw new UsageError(
      '<id>',
      `"${id}" is not a schedule id (letters, digits and . _ ~ - only, starting with a letter or digit)`,
    );
  }
  return id;
}
