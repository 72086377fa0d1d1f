// What a partial edit of a schedule means, apart from the calls that make it (SchedulerClient.patch): the
// fields given merged over the current definition, the conflict a stale version is, and the schedule the
// caller is answered with.
import type { z } from 'zod';
import { type EditResult, type Schedule, ScheduleSpec, specOf } from '../model/contracts.js';
import type { PatchScheduleRequest } from '../model/http.js';
import { parseOrThrow, SchedulerError } from './errors.js';

/** `expected_version` plus the definition fields to change; `null` clears an optional one. */
export type PatchScheduleInput = z.input<typeof PatchScheduleRequest>;

/** A stale `expected_version`: the caller reads the schedule again (`currentVersion`) and re-applies its change. */
export class VersionConflictError extends SchedulerError {
  override name = 'VersionConflictError';
  readonly expectedVersion: number;
  readonly currentVersion: number;

  constructor(expected: number, current: number) {
    const reason = `expected_version ${expected} but the schedule is at version ${current}: read it again and re-apply your change`;
    super('VERSION_CONFLICT', reason, 'expected_version');
    this.expectedVersion = expected;
    this.currentVersion = current;
  }
}

/** `current`'s definition with each given field replacing its own whole, and each null one cleared. */
export function mergedSpec(current: Schedule, changes: Record<string, unknown>): ScheduleSpec {
  const merged: Record<string, unknown> = { ...specOf(current) };
  for (const [key, value] of Object.entries(changes)) {
    if (value === null) delete merged[key];
    else if (value !== undefined) merged[key] = value;
  }
  return parseOrThrow(ScheduleSpec, merged);
}

/**
 * The schedule as one edit left it, when `after` already shows a later edit: a client must learn which
 * version its own change made. Built from what the edit wrote and returned, and `before`'s server-owned
 * fields.
 */
export function asEdited(
  before: Schedule,
  spec: ScheduleSpec,
  edited: EditResult,
  after: Schedule,
): Schedule {
  const serverOwned = Object.fromEntries(
    Object.entries(before).filter(([key]) => !(key in ScheduleSpec.shape)),
  );
  return {
    ...serverOwned,
    ...spec,
    version: edited.version,
    next_run_at: edited.next_runs[0]?.fire_at ?? null,
    updated_at: after.updated_at,
  } as Schedule;
}
