// SchedulerClient.apply: the schedules a file declares, applied as one plan (issue 42) — each created,
// updated or left alone, and with `prune` the schedules a selector picks that the file no longer has
// deleted. The plan is made first, from every schedule as it is now, with the next runs before and after each
// change; it is applied only when nothing in it is a conflict. A conflict is a schedule edited by other means
// since the last apply: each apply records the digest of the definition it applied (`applied_digest`), an
// edit by other means leaves it behind, and overwriting that edit silently is what an apply must never do.

import type { z } from 'zod';
import { type Schedule, ScheduleSpec, specOf } from '../../model/contracts.js';
import {
  type ApplyChange,
  type ApplyDocument,
  ApplyRequest,
  type ApplyRequestInput,
  type ApplyResult,
} from '../../model/http.js';
import { isTerminal } from '../../model/views.js';
import { parseOrThrow, QuotaExceededError, refusalReason, SchedulerError } from '../errors.js';
import { deleteSchedule } from './cancel.js';
import { canonicalJson } from './canonical-json.js';
import { createSchedule, definitionHash, liveScheduleCount } from './create.js';
import { inTurns } from './in-turns.js';
import { pickedBySelector, readIfExists } from './listing.js';
import { previewRuns } from './previews.js';
import type { ScheduleCalls } from './schedule-calls.js';

/** Schedules read, and changed, at once. */
const APPLY_CONCURRENCY = 8;

export interface ApplyHooks {
  /** Called once with the number of schedules read (each a query). */
  onRead?: (schedules: number) => void;
  /** Called once per change made, before it is made. */
  onChange?: (action: 'CREATE' | 'UPDATE' | 'DELETE') => void;
}

/** A change as planned: what it will send (`spec`), and whether a delete ends a live schedule. */
type Planned = ApplyChange & { spec?: ScheduleSpec; live?: boolean };

/** The definition without the digest apply keeps on it: what a file declares, and what a digest covers. */
function declared(spec: ScheduleSpec): ScheduleSpec {
  const { applied_digest: _digest, ...rest } = spec;
  return rest;
}

/** The next runs of a definition as the plan shows them (none when `count` is 0). */
type RunsOf = (scheduleId: string, spec: ScheduleSpec, createdAt: string) => string[];

export async function applySchedules(
  calls: ScheduleCalls,
  input: ApplyRequestInput,
  hooks: ApplyHooks = {},
): Promise<ApplyResult> {
  const request = parseOrThrow(ApplyRequest, input);
  const now = await calls.now();
  const count = request.preview_count;
  const runsOf: RunsOf = (id, spec, createdAt) =>
    count === 0 ? [] : previewRuns(id, spec, createdAt, now, count).map((r) => r.scheduled_for);

  const current = await inTurns(request.schedules, APPLY_CONCURRENCY, (doc) =>
    readIfExists(calls, doc.schedule_id),
  );
  const pruned = request.prune ? await prunable(calls, request.prune, request.schedules) : [];
  hooks.onRead?.(request.schedules.length + pruned.length);
  const plan: Planned[] = [
    ...request.schedules.map((doc, i) =>
      inDocument(i, () => planDocument(doc, current[i]!, { now, runsOf, force: request.force })),
    ),
    ...pruned.map((s) => planPrune(s, request.prune!, runsOf)),
  ];

  const result = (changes: Planned[]): ApplyResult => ({
    dry_run: request.dry_run,
    prune: request.prune ?? null,
    changes: changes.map(({ spec: _spec, live: _live, ...change }) => change),
  });
  if (request.dry_run) return result(plan);
  const conflicts = plan.filter((c) => c.action === 'CONFLICT');
  if (conflicts.length > 0)
    throw new SchedulerError(
      'VERSION_CONFLICT',
      `nothing was applied: ${conflicts.map((c) => `${c.schedule_id}: ${c.reason}`).join('; ')}. Take the edit into the file, or apply with force to overwrite it`,
      'schedules',
    );
  await checkQuota(calls, plan);
  return result(await carryOutPlan(calls, plan, hooks));
}

/** What the file's document asks of the schedule it names, as it is now (`existing`, null: none yet). */
function planDocument(
  doc: z.output<typeof ApplyDocument>,
  existing: Schedule | null,
  { now, runsOf, force }: { now: string; runsOf: RunsOf; force: boolean },
): Planned {
  const { contract: _contract, schedule_id, ...fields } = doc;
  const spec = declared(parseOrThrow(ScheduleSpec, fields));
  const digest = definitionHash(spec);
  const base = { schedule_id, fields: [], next_runs_before: [], reason: null, outcome: 'PLANNED' as const };
  if (!existing)
    return {
      ...base,
      action: 'CREATE',
      version: null,
      next_runs_after: runsOf(schedule_id, spec, now),
      spec: { ...spec, applied_digest: digest },
    };
  const before = ScheduleSpec.parse(specOf(existing));
  const runs = {
    next_runs_before: isTerminal(existing.status) ? [] : runsOf(schedule_id, before, existing.created_at),
    next_runs_after: isTerminal(existing.status) ? [] : runsOf(schedule_id, spec, existing.created_at),
  };
  const changed = changedFields(declared(before), spec);
  if (existing.deleted_at)
    return {
      ...base,
      ...runs,
      fields: changed,
      action: 'CONFLICT',
      version: existing.version,
      reason: `deleted at ${existing.deleted_at}: a schedule ID is never reused; declare it under another schedule_id`,
    };
  if (changed.length === 0) return { ...base, ...runs, action: 'UNCHANGED', version: existing.version };
  const conflict = conflictOf(existing, before, force);
  return {
    ...base,
    ...runs,
    fields: changed,
    version: existing.version,
    ...(conflict
      ? { action: 'CONFLICT', reason: conflict }
      : { action: 'UPDATE', spec: { ...spec, applied_digest: digest } }),
  };
}

/** The delete of a schedule the prune selector picked and the file no longer declares. */
function planPrune(s: Schedule, selector: string, runsOf: RunsOf): Planned {
  return {
    schedule_id: s.schedule_id,
    action: 'DELETE',
    version: s.version,
    fields: [],
    next_runs_before: isTerminal(s.status)
      ? []
      : runsOf(s.schedule_id, ScheduleSpec.parse(specOf(s)), s.created_at),
    next_runs_after: [],
    outcome: 'PLANNED',
    reason: `not in the file, picked by ${selector}`,
    live: !isTerminal(s.status),
  };
}

/** Every change of the plan, in the plan's order, each answered with its outcome. */
async function carryOutPlan(calls: ScheduleCalls, plan: Planned[], hooks: ApplyHooks): Promise<Planned[]> {
  // Deletes first, creates last: what a plan frees is free before what it takes.
  const order = ['DELETE', 'UPDATE', 'CREATE'];
  const done = new Map<Planned, ApplyChange>();
  for (const action of order) {
    const changes = plan.filter((c) => c.action === action);
    const answers = await inTurns(changes, APPLY_CONCURRENCY, (change) => carryOut(calls, change, hooks));
    for (const [i, change] of changes.entries()) done.set(change, answers[i]!);
  }
  return plan.map((change) => done.get(change) ?? { ...change, outcome: 'NOTHING_TO_DO' });
}

/**
 * The plan's creates within quotas.max_schedules, counted with its deletes, before anything is applied:
 * a plan is refused whole rather than applied up to the quota.
 */
async function checkQuota(calls: ScheduleCalls, plan: readonly Planned[]): Promise<void> {
  const limit = calls.quotas().max_schedules;
  const creates = plan.filter((c) => c.action === 'CREATE').length;
  if (!Number.isFinite(limit) || creates === 0) return;
  const deletes = plan.filter((c) => c.action === 'DELETE' && c.live).length;
  const live = await liveScheduleCount(calls);
  if (live - deletes + creates > limit)
    throw new QuotaExceededError(
      `the plan creates ${creates} schedules and deletes ${deletes}: the tenant would have ${live - deletes + creates} live, its quota is ${limit} (quotas.max_schedules); nothing was applied`,
      'schedules',
      limit,
      live,
    );
}

/** A refusal of the i-th document (its calendar: a rule, a zone) names it: `schedules.3.timing.rule`. */
function inDocument<T>(i: number, fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (err instanceof SchedulerError && err.code === 'VALIDATION')
      throw new SchedulerError('VALIDATION', err.reason, `schedules.${i}${err.field ? `.${err.field}` : ''}`);
    throw err;
  }
}

/** The schedules `selector` picks that the file does not declare. */
async function prunable(
  calls: ScheduleCalls,
  selector: string,
  declaredSchedules: ReadonlyArray<{ schedule_id: string }>,
): Promise<Schedule[]> {
  const kept = new Set(declaredSchedules.map((d) => d.schedule_id));
  return (await pickedBySelector(calls, selector, 'prune')).filter((s) => !kept.has(s.schedule_id));
}

/** The top-level definition fields whose values differ. */
function changedFields(before: ScheduleSpec, after: ScheduleSpec): string[] {
  const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
  return [...keys]
    .filter(
      (key) =>
        canonicalJson((before as Record<string, unknown>)[key] ?? null) !==
        canonicalJson((after as Record<string, unknown>)[key] ?? null),
    )
    .sort();
}

/** Why the file may not replace the schedule as it is, or null. */
function conflictOf(existing: Schedule, before: ScheduleSpec, force: boolean): string | null {
  if (isTerminal(existing.status))
    return `${existing.status}: an ended schedule is not changed; delete it, or declare the schedule under another schedule_id`;
  if (force || !before.applied_digest) return null;
  return before.applied_digest === definitionHash(declared(before))
    ? null
    : `edited by other means since the last apply (now version ${existing.version}, by ${existing.owner_ref})`;
}

async function carryOut(calls: ScheduleCalls, change: Planned, hooks: ApplyHooks): Promise<ApplyChange> {
  const { spec, live: _live, ...answer } = change;
  if (answer.action === 'UNCHANGED' || answer.action === 'CONFLICT')
    return { ...answer, outcome: 'NOTHING_TO_DO' };
  hooks.onChange?.(answer.action);
  try {
    if (answer.action === 'CREATE')
      await createSchedule(calls, { schedule_id: answer.schedule_id, ...spec! }, true);
    else if (answer.action === 'UPDATE')
      await calls.sdk.update(answer.schedule_id, { expected_version: answer.version!, spec: spec! });
    else await deleteSchedule(calls, answer.schedule_id, {});
    return { ...answer, outcome: 'APPLIED' };
  } catch (err) {
    // Each change is its own: one refused (an edit in between, a quota) is reported, the others stand.
    return { ...answer, outcome: 'FAILED', reason: refusalReason(err) };
  }
}
