// The schedule's operational metrics, emitted from workflow code through the SDK's workflow metric meter:
// its values go out through a sink that the SDK does not call while replaying, so a history replayed after a
// cache eviction or a worker restart never counts an occurrence twice. The worker's runtime exports them
// (Prometheus, src/runtime/telemetry.ts) next to the SDK's own worker metrics.
import { metricMeter } from '@temporalio/workflow';
import type { Occurrence, ScheduleCounters } from '../model/contracts.js';

/** Counter names per schedule counter (`_total` is added by the exporter). */
export const OCCURRENCE_COUNTERS: Record<keyof ScheduleCounters, { name: string; help: string }> = {
  fired: { name: 'scheduler_occurrences_fired', help: 'occurrences handed off' },
  caught_up: { name: 'scheduler_occurrences_caught_up', help: 'late slots fired by the misfire policy' },
  skipped: { name: 'scheduler_occurrences_skipped', help: 'slots not emitted (misfire, overlap, refused)' },
  expired: { name: 'scheduler_occurrences_expired', help: 'slots dropped as too late by the misfire policy' },
  failed: { name: 'scheduler_handoffs_failed', help: 'hand-offs or targets that failed for good' },
  duplicates_prevented: {
    name: 'scheduler_duplicates_prevented',
    help: 'second attempts at an occurrence recognised and not run again',
  },
};

/**
 * Armed jobs terminated before they began (PATCHES.ARMED_HANDOFFS): each was counted fired when armed, so
 * fired minus disarmed is the schedule's own `fired`.
 */
export function countDisarmed(labels: MetricLabels): void {
  metricMeter
    .createCounter('scheduler_occurrences_disarmed', undefined, 'armed jobs terminated before they began')
    .add(1, { ...labels });
}

export const LATENESS_HISTOGRAM = 'scheduler_occurrence_lateness_seconds';

export interface MetricLabels {
  tenant: string;
  timing_kind: string;
  trigger: Occurrence['trigger'];
}

export function countOccurrence(counter: keyof ScheduleCounters, labels: MetricLabels): void {
  const { name, help } = OCCURRENCE_COUNTERS[counter];
  metricMeter.createCounter(name, undefined, help).add(1, { ...labels });
}

/** emitted_at − scheduled_for of an occurrence handed off by the schedule itself. */
export function recordLateness(seconds: number, labels: MetricLabels): void {
  metricMeter
    .createHistogram(
      LATENESS_HISTOGRAM,
      'float',
      's',
      'emitted_at - scheduled_for of each occurrence handed off',
    )
    .record(Math.max(0, seconds), { ...labels });
}
