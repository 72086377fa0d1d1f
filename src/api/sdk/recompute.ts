// Recompute after a tz database upgrade: one schedule, or the fan-out over a tenant's running schedules.
import { CalendarError } from '../../calendar/errors.js';
import { checkZone } from '../../calendar/zone.js';
import { RecomputeRequest, type RecomputeResult, type RecomputeSummary } from '../../model/contracts.js';
import { recomputeUpdate } from '../../workflows/definitions.js';
import { quoteQueryValue, ZonesKey } from '../../workflows/search-attributes.js';
import { parseOrThrow, SchedulerError } from '../errors.js';
import { inTurns } from './in-turns.js';
import type { RecomputeRequestInput } from './options.js';
import type { ScheduleCalls } from './schedule-calls.js';

/** Schedules listed per visibility page, and asked at once, by a tenant's recompute. */
const RECOMPUTE_PAGE = 200;
const RECOMPUTE_CONCURRENCY = 8;

/** The request, with `zone` an IANA id (VALIDATION naming `zone` otherwise). */
function parseRecompute(request: RecomputeRequestInput): RecomputeRequest {
  const parsed = parseOrThrow(RecomputeRequest, request);
  if (parsed.zone !== undefined) {
    try {
      checkZone('zone', parsed.zone);
    } catch (err) {
      if (err instanceof CalendarError) throw new SchedulerError('VALIDATION', err.reason, 'zone');
      throw err;
    }
  }
  return parsed;
}

export async function recomputeSchedule(
  calls: ScheduleCalls,
  scheduleId: string,
  request: RecomputeRequestInput,
): Promise<RecomputeResult> {
  return await calls.runUpdate(scheduleId, recomputeUpdate, parseRecompute(request));
}

/**
 * recomputeSchedule on every running schedule of the tenant (those whose instants depend on `zone`, when
 * given), RECOMPUTE_CONCURRENCY at a time; `onAsk` is called once per schedule asked.
 */
export async function recomputeTenant(
  calls: ScheduleCalls,
  request: RecomputeRequestInput,
  onAsk: (() => void) | undefined,
): Promise<RecomputeSummary> {
  const parsed = parseRecompute(request);
  const clauses = [calls.listQuery({}), `ExecutionStatus = 'Running'`];
  if (parsed.zone) clauses.push(`${ZonesKey.name} = ${quoteQueryValue(parsed.zone)}`);
  const summary: RecomputeSummary = { matched: 0, recomputed: 0, moved_slots: 0, moved: [], failed: [] };
  let token: Uint8Array | undefined;
  do {
    const listed = await calls.visibleIds(clauses.join(' AND '), RECOMPUTE_PAGE, token);
    summary.matched += listed.ids.length;
    await inTurns(listed.ids, RECOMPUTE_CONCURRENCY, (id) =>
      recomputeInto(summary, calls, id, parsed, onAsk),
    );
    token = listed.next;
  } while (token);
  return summary;
}

/** Recomputes schedule `id`, counted into `summary`: moved slots, or a failure to ask it. */
async function recomputeInto(
  summary: RecomputeSummary,
  calls: ScheduleCalls,
  id: string,
  request: RecomputeRequest,
  onAsk: (() => void) | undefined,
): Promise<void> {
  try {
    onAsk?.();
    const result = await calls.runUpdate(id, recomputeUpdate, request);
    if (!result.recomputed) return;
    summary.recomputed += 1;
    const moved = result.record?.moved ?? 0;
    summary.moved_slots += moved;
    if (moved > 0)
      summary.moved.push({ schedule_id: id, moved, tz_version: result.record?.tz_version ?? null });
  } catch (err) {
    // Ended or deleted since it was listed: nothing to recompute.
    if (err instanceof SchedulerError && (err.code === 'NOT_FOUND' || err.code === 'INVALID_STATE')) return;
    summary.failed.push({ schedule_id: id, error: (err as Error).message });
  }
}
