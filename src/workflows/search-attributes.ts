import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

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
] as const;
