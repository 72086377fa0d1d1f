// The tenant quotas of the policy file (`quotas`, src/model/tenant-policy.ts), as the API enforces them:
// the parts that are pure (the minimum gap of a timing, the payload size) and the one piece of state (the
// backfilled slots of the last hour). The SDK's SchedulerClient calls these where a definition or a
// backfill enters, so the SDK, the HTTP API and the CLI refuse the same things (security review M3).
import { parseDuration } from '../calendar/duration.js';
import type { Timing } from '../calendar/timing.js';
import {
  MAX_PAYLOAD_BYTES,
  type NextRun,
  PAYLOAD_TOO_LARGE_REASON,
  payloadBytes,
  type Target,
} from '../model/contracts.js';
import type { TenantQuotas } from '../model/tenant-policy.js';
import { QuotaExceededError, SchedulerError } from './errors.js';

/**
 * How many upcoming runs the minimum interval is measured on. Every timing kind (INTERVAL, 6-field cron,
 * RRULE SECONDLY or BYSECOND lists, windows, DST) is judged by what it actually computes, not by parsing
 * its rule; a rule whose quickest gap comes only after this many runs is not seen.
 */
export const MIN_INTERVAL_SAMPLE_RUNS = 50;

/** The workflow's own bound on one backfill: past it, it answers 422. */
export { BACKFILL_LIMIT as WORKFLOW_BACKFILL_LIMIT } from '../workflows/definitions.js';

const HOUR_MS = 3_600_000;

/** The smallest gap in seconds between consecutive runs (by scheduled instant, before jitter); null for fewer than two. */
export function minimumGapSeconds(runs: readonly Pick<NextRun, 'scheduled_for'>[]): number | null {
  let smallest: number | null = null;
  for (let i = 1; i < runs.length; i++) {
    const gap = (Date.parse(runs[i]!.scheduled_for) - Date.parse(runs[i - 1]!.scheduled_for)) / 1000;
    if (smallest === null || gap < smallest) smallest = gap;
  }
  return smallest;
}

/**
 * The smallest gap a timing allows, in seconds: measured on its next runs, and for an INTERVAL never more
 * than `every` (a FIXED_DELAY interval computes one run at a time, after the previous one completed, so its
 * upcoming runs show no gap at all). Null when the runs show none (a one-time schedule).
 */
export function timingMinimumGapSeconds(timing: Timing, runs: readonly NextRun[]): number | null {
  const measured = minimumGapSeconds(runs.slice(0, MIN_INTERVAL_SAMPLE_RUNS));
  if (timing.kind !== 'INTERVAL') return measured;
  const everyMs = parseDuration('timing.every', timing.every, { fixedOnly: true }).fixedMs;
  if (everyMs === undefined) return measured;
  return measured === null ? everyMs / 1000 : Math.min(measured, everyMs / 1000);
}

/** Refuses a timing whose upcoming runs come closer together than `min_interval_s`. */
export function checkMinInterval(timing: Timing, runs: readonly NextRun[], quotas: TenantQuotas): void {
  if (quotas.min_interval_s <= 0) return;
  const gap = timingMinimumGapSeconds(timing, runs);
  if (gap === null || gap >= quotas.min_interval_s) return;
  throw new QuotaExceededError(
    `two consecutive runs are ${gap} s apart (measured on the next ${MIN_INTERVAL_SAMPLE_RUNS} runs), below this tenant's minimum interval of ${quotas.min_interval_s} s (quotas.min_interval_s): run it less often`,
    'timing',
    quotas.min_interval_s,
    gap,
  );
}

/** Refuses an inline payload larger than MAX_PAYLOAD_BYTES (VALIDATION naming target.payload). */
export function checkPayloadSize(target: Target): void {
  if (target.payload === undefined) return;
  if (payloadBytes(target.payload) > MAX_PAYLOAD_BYTES)
    throw new SchedulerError('VALIDATION', PAYLOAD_TOO_LARGE_REASON, 'target.payload');
}

/**
 * The slots each tenant backfilled in the last hour, counted in this process (with several API replicas,
 * each counts its own: the deployment-wide bound is replicas × max_backfill_slots_per_hour). A backfill
 * reserves its slots before it is sent and gives them back if it fails, so concurrent backfills of one
 * tenant cannot both slip under the quota.
 */
export class BackfillSlotLedger {
  private readonly entries = new Map<string, Array<{ at: number; slots: number }>>();

  constructor(private readonly now: () => number = Date.now) {}

  /** Slots `tenant` backfilled within the hour before now. */
  used(tenant: string): number {
    const since = this.now() - HOUR_MS;
    const live = (this.entries.get(tenant) ?? []).filter((e) => e.at > since);
    if (live.length === 0) this.entries.delete(tenant);
    else this.entries.set(tenant, live);
    return live.reduce((sum, e) => sum + e.slots, 0);
  }

  /** Records `slots` for `tenant` if that stays within `limit`; returns the release, or throws QUOTA_EXCEEDED. */
  reserve(tenant: string, slots: number, limit: number): () => void {
    const used = this.used(tenant);
    if (used + slots > limit) {
      throw new QuotaExceededError(
        `this backfill covers ${slots} slots and the tenant backfilled ${used} in the last hour, past its ${limit} an hour (quotas.max_backfill_slots_per_hour): wait, or backfill a shorter range`,
        'from',
        limit,
        used + slots,
      );
    }
    const entry = { at: this.now(), slots };
    const list = this.entries.get(tenant) ?? [];
    list.push(entry);
    this.entries.set(tenant, list);
    return () => {
      const current = this.entries.get(tenant);
      const index = current?.indexOf(entry) ?? -1;
      if (index >= 0) current!.splice(index, 1);
    };
  }
}

/** The ledger of SDK clients not given one: the whole process counts together. */
export const PROCESS_BACKFILL_LEDGER = new BackfillSlotLedger();
