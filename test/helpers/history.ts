// Reading recorded schedule histories in tests: what a marker says and which markers are local activities.
import type { temporal } from '@temporalio/proto';

export type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/** A local activity's marker: since v0.4 only an inert job start records one (PATCH_INERT_LOCAL_START). */
export const isLocalActivityMarker = (e: HistoryEvent): boolean =>
  e.markerRecordedEventAttributes?.markerName === 'core_local_activity';

/** The text of every marker's payloads (patch IDs, local activity results), as one string to search. */
export const markerText = (events: readonly HistoryEvent[]): string =>
  events
    .flatMap((e) => Object.values(e.markerRecordedEventAttributes?.details ?? {}))
    .flatMap((p) => p.payloads ?? [])
    .map((p) => Buffer.from(p.data ?? []).toString('utf8'))
    .join('\n');
