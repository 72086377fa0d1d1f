// Listings: a tenant's schedules page by page from Temporal's visibility store (each page behind a signed
// cursor, ./cursor-codec.ts), and a schedule's recent occurrences page by page.
import { status } from '@grpc/grpc-js';
import { BULK_MAX_SCHEDULES, type Occurrence, type Schedule } from '../../model/contracts.js';
import { ListOccurrencesQuery, type OccurrencePage } from '../../model/http.js';
import { type Requirement, selects } from '../../model/labels.js';
import { parseOrThrow, SchedulerError } from '../errors.js';
import { cursorRefused, decodeCursor, encodeCursor, PROCESS_CURSOR_SECRET } from './cursor-codec.js';
import { byScheduleId } from './in-turns.js';
import type { ListFilter, SchedulePage } from './options.js';
import { type ScheduleCalls, selectorRequirements } from './schedule-calls.js';
import { grpcCode } from './temporal-errors.js';

/** The largest page a listing asks visibility for. */
const MAX_PAGE_SIZE = 100;

/**
 * One page of this tenant's schedules, newest first, from the server's visibility store; each item is
 * read from its schedule (a query), so a page needs the scheduler worker.
 */
export async function listPage(calls: ScheduleCalls, filter: ListFilter): Promise<SchedulePage> {
  const requirements = selectorRequirements(filter.selector);
  const query = calls.listQuery(filter);
  // A cursor is good for the listing it came from: the whole selector, its negations included.
  const listing = filter.selector ? `${query}\u0000${filter.selector}` : query;
  const secret = calls.options.cursorSecret ?? PROCESS_CURSOR_SECRET;
  const token = filter.cursor ? decodeCursor(secret, filter.cursor, listing) : undefined;
  const pageSize = Math.min(Math.max(filter.limit ?? 20, 1), MAX_PAGE_SIZE);
  const listed = await calls.visibleIds(query, pageSize, token).catch((err) => {
    // A token we signed that the server no longer takes (it changed since, or its visibility store did):
    // the caller's cursor, not our fault. Without a cursor the query is ours alone: left a server error.
    if (token && grpcCode(err) === status.INVALID_ARGUMENT) throw cursorRefused();
    throw err;
  });
  return {
    items: selected(await readAll(calls, listed.ids), requirements),
    next_cursor: listed.next ? encodeCursor(secret, listed.next, listing) : null,
  };
}

/**
 * Every schedule of the tenant (deleted ones included, as before 0.2, unless `include_deleted` is false),
 * up to `limit`, page by page.
 */
export async function listAll(
  calls: ScheduleCalls,
  filter: { status?: Schedule['status']; limit?: number; selector?: string; include_deleted?: boolean },
): Promise<Schedule[]> {
  const requirements = selectorRequirements(filter.selector);
  const query = calls.listQuery({
    ...(filter.status ? { status: filter.status } : {}),
    ...(filter.selector ? { selector: filter.selector } : {}),
    include_deleted: filter.include_deleted ?? true,
  });
  const schedules: Schedule[] = [];
  let token: Uint8Array | undefined;
  do {
    const wanted = filter.limit ? filter.limit - schedules.length : MAX_PAGE_SIZE;
    const listed = await calls.visibleIds(query, Math.min(wanted, MAX_PAGE_SIZE), token);
    schedules.push(...selected(await readAll(calls, listed.ids), requirements));
    token = listed.next;
  } while (token && !(filter.limit && schedules.length >= filter.limit));
  return schedules;
}

/**
 * Those whose labels satisfy the selector as they are now: visibility lags a relabel, and cannot test a
 * negation on a schedule without labels.
 */
const selected = (schedules: Schedule[], requirements: Requirement[]): Schedule[] =>
  requirements.length === 0 ? schedules : schedules.filter((s) => selects(requirements, s.labels ?? {}));

/** The schedules of `ids`, read from their workflows; one deleted since it was listed is left out. */
async function readAll(calls: ScheduleCalls, ids: string[]): Promise<Schedule[]> {
  const items = await Promise.all(ids.map((id) => readIfExists(calls, id)));
  return items.filter((item): item is Schedule => item !== null);
}

/**
 * The IDs of the tenant's schedules (deleted ones included) from visibility alone, no workflow read, up to
 * `limit` (one more than it tells there are more): for work that reads each schedule its own way.
 */
export async function visibleScheduleIds(calls: ScheduleCalls, limit: number): Promise<string[]> {
  const query = calls.listQuery({ include_deleted: true });
  const ids: string[] = [];
  let token: Uint8Array | undefined;
  do {
    const listed = await calls.visibleIds(query, Math.min(limit + 1 - ids.length, MAX_PAGE_SIZE), token);
    ids.push(...listed.ids);
    token = listed.next;
  } while (token && ids.length <= limit);
  return ids;
}

/** The schedule with this ID, or null when there is none. */
export async function readIfExists(calls: ScheduleCalls, scheduleId: string): Promise<Schedule | null> {
  try {
    return await calls.sdk.get(scheduleId);
  } catch (err) {
    if (err instanceof SchedulerError && err.code === 'NOT_FOUND') return null;
    throw err;
  }
}

/**
 * The live schedules a selector picks for an operation on many (bulk, an apply's prune), in the order of
 * their IDs; more than BULK_MAX_SCHEDULES is refused before anything changes, naming `field`.
 */
export async function pickedBySelector(
  calls: ScheduleCalls,
  selector: string,
  field: string,
): Promise<Schedule[]> {
  const picked = await listAll(calls, { selector, include_deleted: false, limit: BULK_MAX_SCHEDULES + 1 });
  if (picked.length > BULK_MAX_SCHEDULES)
    throw new SchedulerError(
      'VALIDATION',
      `picks more than ${BULK_MAX_SCHEDULES} schedules, the most one operation acts on: narrow it (another requirement); nothing was changed`,
      field,
    );
  return picked.sort(byScheduleId);
}

/**
 * A page of recent occurrences (read by `occurrences` once the page request is valid), newest first;
 * `cursor` is the previous page's `next_cursor`.
 */
export async function occurrencesPage(
  page: { limit?: number; cursor?: string },
  occurrences: () => Promise<Occurrence[]>,
): Promise<OccurrencePage> {
  const { limit, cursor } = parseOrThrow(ListOccurrencesQuery, page);
  // Slots carry their zone's offset (manual ones UTC): compare instants, not strings.
  const newestFirst = [...(await occurrences())].sort(
    (a, b) => Date.parse(b.scheduled_for) - Date.parse(a.scheduled_for),
  );
  const offset = Number(cursor ?? 0);
  const end = offset + limit;
  return {
    items: newestFirst.slice(offset, end),
    next_cursor: end < newestFirst.length ? String(end) : null,
  };
}
