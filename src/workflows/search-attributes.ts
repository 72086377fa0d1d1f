import {
  defineSearchAttributeKey,
  SearchAttributeType,
  type SearchAttributeUpdatePair,
} from '@temporalio/common';

// Custom search attributes that make schedules and the workflows they start findable in the Temporal
// Web UI and through list filters. The runtime registers every key in `schedulerSearchAttributes` at
// start-up (src/runtime/namespace.ts), so adding one here is the whole change.
export const TenantIdKey = defineSearchAttributeKey('SchedulerTenantId', SearchAttributeType.KEYWORD);
export const ScheduleIdKey = defineSearchAttributeKey('SchedulerScheduleId', SearchAttributeType.KEYWORD);
/** `<tenant_id>/<owner_ref>`: finds the schedules of an owner whose API key was removed. */
export const OwnerKey = defineSearchAttributeKey('SchedulerOwner', SearchAttributeType.KEYWORD);
export const ScheduleStatusKey = defineSearchAttributeKey('SchedulerStatus', SearchAttributeType.KEYWORD);
export const TimingKindKey = defineSearchAttributeKey('SchedulerTimingKind', SearchAttributeType.KEYWORD);
export const NextRunAtKey = defineSearchAttributeKey('SchedulerNextRunAt', SearchAttributeType.DATETIME);
export const ScheduledForKey = defineSearchAttributeKey(
  'SchedulerScheduledFor',
  SearchAttributeType.DATETIME,
);
export const OccurrenceIdKey = defineSearchAttributeKey('SchedulerOccurrenceId', SearchAttributeType.KEYWORD);
/** The oldest tz database release among a schedule's buffered future slots: finds the ones a newer worker should recompute. */
export const TzVersionKey = defineSearchAttributeKey('SchedulerTzVersion', SearchAttributeType.KEYWORD);
/** The zones a schedule's instants depend on (model/slots.ts zonesOf): a zone's recompute selects by it. */
export const ZonesKey = defineSearchAttributeKey('SchedulerZones', SearchAttributeType.KEYWORD_LIST);
/**
 * The oldest holiday data release among a business-day schedule's buffered slots (`date-holidays@3.37.0`):
 * finds the ones a worker with newer data should recompute. Set only on schedules with business_days.
 */
export const HolidayDataKey = defineSearchAttributeKey('SchedulerHolidayData', SearchAttributeType.KEYWORD);

/**
 * A schedule's labels as tokens, `key` and `key=value` each (model/labels.ts labelTokens): a list by label
 * selector tests membership on the server. Set only on schedules that have labels or had them.
 */
export const LabelsKey = defineSearchAttributeKey('SchedulerLabels', SearchAttributeType.KEYWORD_LIST);

export const ownerKeyValue = (tenantId: string, ownerRef: string): string => `${tenantId}/${ownerRef}`;

/** A string literal of a visibility query: quotes and backslashes escaped, so a value never ends it early. */
export const quoteQueryValue = (value: string): string =>
  `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

export const schedulerSearchAttributes = [
  TenantIdKey,
  ScheduleIdKey,
  ScheduleStatusKey,
  TimingKindKey,
  NextRunAtKey,
  ScheduledForKey,
  OccurrenceIdKey,
  OwnerKey,
  TzVersionKey,
  ZonesKey,
  HolidayDataKey,
  LabelsKey,
] as const;

export interface ScheduleAttributeValues {
  tenantId: string;
  scheduleId: string;
  timingKind: string;
  /** As listings see it (model/views.ts visibleStatus). */
  status: string;
  nextRunAt: string | null;
  /** Since PATCHES.TZ_HORIZON (absent before: those runs never upsert them). */
  tz?: { version: string | null; zones: string[] };
  /** A business-day schedule's oldest buffered holiday data release (absent for every other schedule). */
  holidays?: string | null;
  /** The label tokens (null: none any more); absent for a schedule that never had labels. */
  labels?: string[] | null;
}

/** The attributes that describe a schedule in listings, as its start sets them and its run updates them. */
export const scheduleAttributes = (v: ScheduleAttributeValues): SearchAttributeUpdatePair[] => [
  { key: TenantIdKey, value: v.tenantId },
  { key: ScheduleIdKey, value: v.scheduleId },
  { key: TimingKindKey, value: v.timingKind },
  { key: ScheduleStatusKey, value: v.status },
  { key: NextRunAtKey, value: v.nextRunAt ? new Date(v.nextRunAt) : null },
  ...(v.tz
    ? [
        { key: TzVersionKey, value: v.tz.version },
        { key: ZonesKey, value: v.tz.zones.length > 0 ? v.tz.zones : null },
      ]
    : []),
  ...(v.holidays !== undefined ? [{ key: HolidayDataKey, value: v.holidays }] : []),
  ...(v.labels !== undefined ? [{ key: LabelsKey, value: v.labels?.length ? v.labels : null }] : []),
];
