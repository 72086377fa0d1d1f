// The worker process's Temporal runtime: its logger, and the Prometheus exporter that publishes the SDK's
// worker metrics together with the scheduler's own (src/workflows/metrics.ts, src/activities/handoff.ts).
// Installed once per process, before any worker or native connection exists.
import { DefaultLogger, type LogEntry, type LogLevel, Runtime } from '@temporalio/worker';
import { LATENESS_HISTOGRAM } from '../workflows/metrics.js';

/** Lateness buckets in seconds: sub-second punctuality up to an hour-long outage. */
export const LATENESS_BUCKETS_SECONDS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 900, 3600];

export interface RuntimeOptions {
  /** `host:port` of the Prometheus endpoint (`/metrics`); none when unset. */
  metricsAddress?: string;
  /** Lowest level logged (SCHEDULER_LOG_LEVEL); default WARN. */
  logLevel?: LogLevel;
}

const IDS = /^(schedule|occurrence)\/([^/]+)\/([^/]+)(?:\/(.+))?$/;

/**
 * One JSON line per log entry (the same shape as the API's pino lines: time, level, msg), with the
 * schedule's `tenant_id`, `schedule_id` and, for an occurrence, `occurrence_id` read from the workflow ID
 * the SDK puts on workflow and activity lines. Workflow arguments and payloads are never logged.
 */
export function jsonLogLine(entry: LogEntry): string {
  const fields: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(entry.meta ?? {})) {
    fields[key] = value instanceof Error ? { name: value.name, message: value.message } : value;
  }
  const workflowId = typeof fields.workflowId === 'string' ? fields.workflowId : null;
  const ids = workflowId ? IDS.exec(workflowId) : null;
  if (ids) {
    fields.tenant_id ??= ids[2];
    fields.schedule_id ??= ids[3];
    if (ids[1] === 'occurrence') fields.occurrence_id ??= workflowId;
  }
  return JSON.stringify({
    time: new Date(Number(entry.timestampNanos / 1_000_000n)).toISOString(),
    level: entry.level.toLowerCase(),
    msg: entry.message,
    ...fields,
  });
}

export function installRuntime(options: RuntimeOptions = {}): void {
  Runtime.install({
    // The SDK logs every bundle build at INFO; an operator wants warnings and our own lines.
    logger: new DefaultLogger(options.logLevel ?? 'WARN', (entry) => {
      process.stderr.write(`${jsonLogLine(entry)}\n`);
    }),
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

/** SCHEDULER_LOG_LEVEL (pino's names, shared with the API) as the SDK's level. */
export function runtimeLogLevel(level: string): LogLevel {
  switch (level) {
    case 'trace':
      return 'TRACE';
    case 'debug':
      return 'DEBUG';
    case 'info':
      return 'INFO';
    case 'warn':
      return 'WARN';
    default:
      return 'ERROR'; // error, fatal, silent
  }
}
