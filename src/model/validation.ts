// What a failed check of a request says, in the API's terms (a field path and a reason): the HTTP API and
// the SDK turn it into their SchedulerError, the CLI into a usage error naming the flag. One function, so
// a field is named the same way whether the server or the CLI refused it.
import { z } from 'zod';
import { CalendarError } from '../calendar/errors.js';
import { serverOwnedReason } from './contracts.js';

export interface ValidationIssue {
  /** Dotted path in the request (`timing.timezone`), or null when the whole request is at fault. */
  field: string | null;
  reason: string;
}

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
