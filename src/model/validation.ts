// What a failed check of a request says, in the API's terms (a field path and a reason): the HTTP API and
// the SDK turn it into their SchedulerError, the CLI into a usage error naming the flag. One function, so
// a field is named the same way whether the server or the CLI refused it.
import { z } from 'zod';
import { CalendarError } from '../calendar/errors.js';

export interface ValidationIssue {
  /** Dotted path in the request (`timing.timezone`), or null when the whole request is at fault. */
  field: string | null;
  reason: string;
}

/**
 * The fields of a `schedule.v1` view that the server owns, each with what changes it: a create or a PATCH
 * that sends one is told so (400, the field named, this reason) instead of "unknown field".
 */
export const SERVER_OWNED_FIELDS: Readonly<Record<string, string>> = Object.freeze({
  tenant_id: 'is the API key’s tenant',
  owner_ref: 'is the API key’s owner (an edit makes its author the owner)',
  status: 'is changed by POST /v1/schedules/{id}/pause, /resume, /cancel and DELETE /v1/schedules/{id}',
  version: 'is counted by the server: a PATCH sends the version it read as expected_version',
  next_run_at: 'is computed from the timing: GET /v1/schedules/{id} or POST /v1/preview show it',
  last_run_at: 'is recorded when an occurrence is handed off',
  created_at: 'is recorded at create',
  updated_at: 'is recorded at every change',
  pause_note: 'is the note of POST /v1/schedules/{id}/pause',
  owner_revoked_at:
    'is recorded when the owner’s key is removed; POST /v1/schedules/{id}/resume takes the schedule over',
  deleted_at: 'is recorded by DELETE /v1/schedules/{id}',
  explanation: 'is generated from the timing (POST /v1/interpret reads words into a timing)',
  last_occurrence: 'is read from the schedule’s occurrences (GET /v1/schedules/{id}/occurrences lists them)',
});
/** The reason for a field a request may not send. */
export const serverOwnedReason = (field: string): string | undefined =>
  Object.hasOwn(SERVER_OWNED_FIELDS, field)
    ? `${SERVER_OWNED_FIELDS[field]}: leave it out of the request (a schedule.v1 document from GET round-trips without it)`
    : undefined;

/** Why a field a definition does not have was refused: what sets it, if the server owns it. */
export const unknownFieldReason = (key: string): string =>
  serverOwnedReason(key) ?? 'unknown field: remove it';

/** The first issue of a zod or calendar validation failure, under `root`; null for any other error. */
export function validationIssue(err: unknown, root?: string): ValidationIssue | null {
  if (err instanceof CalendarError) {
    // The calendar names its options `options.*`; a schedule carries them at the top level.
    const own = err.field.replace(/^options\./, '');
    return { field: root ? `${root}.${own}` : own, reason: err.reason };
  }
  if (err instanceof z.ZodError) {
    const issue = err.issues[0]!;
    const path = issue.path.map(String);
    if (issue.code === 'unrecognized_keys' && issue.keys.length > 0) {
      const field = [root, ...path, issue.keys[0]].filter(Boolean).join('.');
      const reason = path.length === 0 ? unknownFieldReason(issue.keys[0]!) : 'unknown field: remove it';
      return { field, reason };
    }
    return { field: [root, ...path].filter(Boolean).join('.') || null, reason: issue.message };
  }
  return null;
}
