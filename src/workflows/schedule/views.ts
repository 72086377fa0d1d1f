// What a schedule shows of itself, as pure functions of its state: the describe answer (the schedule.v1
// view), the next runs, and what listings and the Web UI see. No `wf.*` call: unit-testable on plain values.
import type { SearchAttributeUpdatePair } from '@temporalio/common';
import type { ScheduleAuditRecord } from '../../model/audit.js';
import type { FailureHookView, NextRun, ScheduleDescription, ScheduleTzView } from '../../model/contracts.js';
import { labelTokens } from '../../model/labels.js';
import { isTerminal, scheduleDocument, toNextRun, visibleStatus, withoutPayload } from '../../model/views.js';
import {
  followsChangingData,
  holidayVersionsOf,
  oldestHolidayVersion,
  oldestTzVersion,
  tzVersionsOf,
  zonesOf,
} from '../../model/zones.js';
import { markdownLiteral } from '../markdown.js';
import { scheduleAttributes } from '../search-attributes.js';
import { hasFailureHooks, NEXT_RUNS_SHOWN, type ScheduleState, TZ_HORIZON_MS } from './state.js';

/** Until when the buffered slots are trusted (the horizon); null when they follow no changing data. */
const trustedUntil = (s: ScheduleState): string | null =>
  s.computedAt && followsChangingData(s.spec)
    ? new Date(Date.parse(s.computedAt) + TZ_HORIZON_MS).toISOString()
    : null;

export function tzView(s: ScheduleState): ScheduleTzView {
  const tz = s.tz;
  return {
    computed_with: tzVersionsOf(s.buffer),
    trusted_until: zonesOf(s.spec).length > 0 ? trustedUntil(s) : null,
    newer_seen: tz?.newer ?? null,
    horizon_refreshes: tz?.horizonRefreshes ?? 0,
    recomputes: tz?.recomputes ?? 0,
    last_recompute: tz?.last ?? null,
  };
}

/** Armed slots (PATCHES.ARMED_HANDOFFS) are runs still to come until their instant: a read drops passed ones. */
export const nextRuns = (s: ScheduleState): NextRun[] =>
  [...s.pendingFires.map((p) => p.slot), ...(s.armed ?? []).map((a) => a.slot), ...s.buffer]
    .slice(0, NEXT_RUNS_SHOWN)
    .map(toNextRun);

export const nextFireAt = (s: ScheduleState): string | null =>
  s.pendingFires[0]?.slot.fireAt ?? s.armed?.[0]?.slot.fireAt ?? s.buffer[0]?.fireAt ?? null;

/**
 * The next slot the schedule itself still has to act on: an armed one is the server's already. What
 * listings show, so that they never carry an instant that passed while the schedule slept.
 */
export const nextUnarmedFireAt = (s: ScheduleState): string | null =>
  s.pendingFires[0]?.slot.fireAt ?? s.buffer[0]?.fireAt ?? null;

/** What the failure hooks counted and did; null for a schedule without them. */
export function failureHookView(s: ScheduleState): FailureHookView | null {
  if (!hasFailureHooks(s.spec)) return null;
  return {
    consecutive_failures: s.failureStreak?.count ?? 0,
    after_consecutive: s.spec.on_failure?.after_consecutive ?? 1,
    failing: (s.hooks?.trippedAt ?? null) !== null,
    paused_by_hook: s.status === 'PAUSED' && (s.hooks?.pausedByHook ?? false),
    last_notice: s.hooks?.lastNotice ?? null,
  };
}

/**
 * The schedule's own record for an audit. Before any recorded edit the current definition is the first
 * (version 1, since creation) or, for a schedule edited before 0.11, certainly in force since its last
 * change (updatedAt: an edit, a pause, a resume all move it).
 */
export function auditRecord(s: ScheduleState): ScheduleAuditRecord {
  const current = { version: s.version, spec: withoutPayload(s.spec) };
  return {
    created_at: s.createdAt,
    status: s.status,
    version: s.version,
    watermark: s.watermark,
    in_force: s.inForce ?? [{ ...current, from: s.version === 1 ? s.createdAt : s.updatedAt }],
    occurrences: s.occurrences,
    dropped_up_to: s.droppedUpTo ?? null,
  };
}

export function describe(s: ScheduleState): ScheduleDescription {
  const failures = failureHookView(s);
  return {
    schedule: scheduleDocument(s.identity, s.spec, {
      status: s.status,
      version: s.version,
      nextRunAt: isTerminal(s.status) ? null : nextFireAt(s),
      lastRunAt: s.lastRunAt,
      createdAt: s.createdAt,
      updatedAt: s.updatedAt,
      pauseNote: s.pauseNote,
      ownerRevokedAt: s.ownerRevoked?.at ?? null,
      deletedAt: s.deletedAt ?? null,
    }),
    next_runs: isTerminal(s.status) ? [] : nextRuns(s),
    recent_occurrences: s.occurrences,
    running: s.occurrences
      .filter((o) => o.status === 'RUNNING' || o.status === 'DISPATCHING')
      .map((o) => o.occurrence_id),
    queued: [...s.queue],
    counters: { ...s.counters },
    tz: tzView(s),
    ...(s.spec.business_days
      ? {
          holidays: {
            region: s.spec.business_days.region,
            computed_with: holidayVersionsOf(s.buffer),
            trusted_until: trustedUntil(s),
            newer_seen: s.holidaysNewer ?? null,
          },
        }
      : {}),
    ...(failures ? { failures } : {}),
  };
}

export interface Visibility {
  /** Equal keys: the search attributes need no upsert. */
  key: string;
  attributes: SearchAttributeUpdatePair[];
  next: string | null;
}

/**
 * What listings see: the next run only while the schedule may still fire; since PATCHES.TZ_HORIZON
 * (`tzTracked`) also the oldest tz release of its buffer and the zones it depends on.
 */
export function visibilityOf(s: ScheduleState, tzTracked = false, labelsCarried = false): Visibility {
  const next = isTerminal(s.status) || s.status === 'PAUSED' ? null : nextUnarmedFireAt(s);
  const status = visibleStatus(s.status, s.deletedAt);
  const zones = tzTracked ? zonesOf(s.spec) : [];
  // The release matters only to instants that follow a zone's rules.
  const tz = tzTracked ? { version: zones.length > 0 ? oldestTzVersion(s.buffer) : null, zones } : null;
  // Only a business-day schedule carries its holiday data release: no other schedule's upserts change.
  const holidays = s.spec.business_days ? oldestHolidayVersion(s.buffer) : undefined;
  // A schedule that never had labels upserts nothing new; one whose labels were removed clears them.
  const labels =
    s.spec.labels && Object.keys(s.spec.labels).length > 0
      ? labelTokens(s.spec.labels)
      : labelsCarried
        ? null
        : undefined;
  const attributes = scheduleAttributes({
    tenantId: s.identity.tenant_id,
    scheduleId: s.identity.schedule_id,
    timingKind: s.spec.timing.kind,
    status,
    nextRunAt: next,
    ...(tz ? { tz } : {}),
    ...(holidays !== undefined ? { holidays } : {}),
    ...(labels !== undefined ? { labels } : {}),
  });
  const tzKey = tz ? `|${tz.version}|${tz.zones.join(',')}` : '';
  const holidaysKey = holidays !== undefined ? `|${holidays}` : '';
  const labelsKey = labels !== undefined ? `|${labels?.join(',') ?? ''}` : '';
  return { key: `${status}|${next}${tzKey}${holidaysKey}${labelsKey}`, attributes, next };
}

/** Equal search-attribute values; an absent attribute equals a null (removing) update. */
function sameAttributeValue(current: unknown, wanted: unknown): boolean {
  if (current instanceof Date && wanted instanceof Date) return current.getTime() === wanted.getTime();
  if (Array.isArray(current) && Array.isArray(wanted))
    return current.length === wanted.length && current.every((v, i) => v === wanted[i]);
  return (current ?? null) === (wanted ?? null);
}

/** The pairs of `wanted` that differ from what the workflow carries. */
export const changedAttributes = (
  current: { get(key: SearchAttributeUpdatePair['key']): unknown },
  wanted: SearchAttributeUpdatePair[],
): SearchAttributeUpdatePair[] =>
  wanted.filter((pair) => !sameAttributeValue(current.get(pair.key), pair.value));

/**
 * The Web UI's markdown summary. Every value a tenant or an operator wrote is a literal (../markdown.ts),
 * never a link or an image.
 */
export function currentDetails(s: ScheduleState, next: string | null): string {
  const last = s.occurrences.at(-1);
  return [
    `**${markdownLiteral(s.identity.schedule_id)}** (tenant ${markdownLiteral(s.identity.tenant_id)}) v${s.version} — ${s.status}${s.pauseNote ? ` (${markdownLiteral(s.pauseNote)})` : ''}${s.ownerRevoked ? ` — owner ${markdownLiteral(s.identity.owner_ref)} revoked, slots refused` : ''}`,
    `timing: ${markdownLiteral(JSON.stringify(s.spec.timing))}`,
    `next run: ${next ?? '—'}`,
    `last occurrence: ${last ? `${last.scheduled_for} ${last.status}${last.reason ? ` (${markdownLiteral(last.reason)})` : ''}` : '—'}`,
    `fired ${s.counters.fired}, caught up ${s.counters.caught_up}, skipped ${s.counters.skipped}, failed ${s.counters.failed}, duplicates prevented ${s.counters.duplicates_prevented}`,
  ].join('\n\n');
}
