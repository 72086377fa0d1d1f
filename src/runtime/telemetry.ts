// The worker process's Temporal runtime: its logger, and the Prometheus exporter that publishes the SDK's
// worker metrics together with the scheduler's own (src/workflows/metrics.ts, src/activities/handoff.ts).
// Installed once per process, before any worker or native connection exists.
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { LATENESS_HISTOGRAM } from '../workflows/metrics.js';

/** Lateness buckets in seconds: sub-second punctuality up to an hour-long outage. */
export const LATENESS_BUCKETS_SECONDS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 900, 3600];

export interface RuntimeOptions {
  /** `host:port` of the Prometheus endpoint (`/metrics`); none when unset. */
  metricsAddress?: string;
}

export function installRuntime(options: RuntimeOptions = {}): void {
  Runtime.install({
    // The SDK logs every bundle build at INFO; an operator wants warnings and our own lines.
    logger: new DefaultLogger('WARN'),
    // Shutdown on signals is the process's own (API, worker, dev server in order), not the runtime's.
    shutdownSignals: [],
    ...(options.metricsAddress
      ? {
          telemetryOptions: {
            metrics: {
              // Our metrics carry their own `scheduler_` prefix; the SDK's keep `temporal_`.
              metricPrefix: '',
              prometheus: {
                bindAddress: options.metricsAddress,
                countersTotalSuffix: true,
                unitSuffix: false,
                useSecondsForDurations: true,
                histogramBucketOverrides: { [LATENESS_HISTOGRAM]: LATENESS_BUCKETS_SECONDS },
              },
            },
          },
        }
      : {}),
  });
}
