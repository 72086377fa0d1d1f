// A worker's own data releases against the schedules it runs: the tz database (zone rules) and the holiday
// data (business days). Slots are recorded with the releases that computed them, and a schedule shows the
// oldest one of its buffer (SchedulerTzVersion, SchedulerHolidayData); a worker whose release is newer (an
// operator upgraded Node, or deployed a scheduler carrying newer holiday data) finds those schedules by
// visibility and, by SCHEDULER_TZ_REFRESH / SCHEDULER_HOLIDAY_REFRESH, tells them (describe shows it) or has
// them recompute their buffered slots at once. Only a newer release acts: during a rolling upgrade an older
// worker never undoes a newer one's work (a recompute whose slot activity an older worker ran stays behind,
// and is asked again after RETRY_AFTER_MS).
import type { Client, WorkflowHandle } from '@temporalio/client';
import type { MetricMeter } from '@temporalio/common';
import type { RecomputeRequest } from '../model/contracts.js';
import { holidayDataOlderThan, tzOlderThan } from '../model/zones.js';
import {
  newerHolidayDataSignal,
  newerTzSignal,
  recomputeUpdate,
  SCHEDULE_WORKFLOWS,
} from '../workflows/definitions.js';
import { HolidayDataKey, quoteQueryValue, TzVersionKey } from '../workflows/search-attributes.js';

export type TzRefreshMode = 'off' | 'notify' | 'recompute';

/** One kind of data whose release a schedule's slots record. */
interface DataRelease {
  /** in log lines: `tz database 2025c`, `holiday data date-holidays@3.38.0` */
  label: string;
  /** the search attribute holding the oldest release of a schedule's buffer */
  key: { name: string };
  olderThan(version: string, release: string): boolean;
  notify(handle: WorkflowHandle, release: string): Promise<void>;
  recompute(release: string, behind: string): RecomputeRequest;
  gauge: { name: string; tag: string; help: string };
}

const TZ_DATABASE: DataRelease = {
  label: 'tz database',
  key: TzVersionKey,
  olderThan: tzOlderThan,
  notify: (handle, version) => handle.signal(newerTzSignal, { version }),
  recompute: (release, behind) => ({
    if_older_than: release,
    reason: `a worker has tz database ${release}, newer than ${behind}`,
  }),
  gauge: {
    name: 'scheduler_schedules_behind_tz',
    tag: 'tz_version',
    help: "running schedules with a buffered slot computed by an older tz database than this worker's",
  },
};

const HOLIDAY_DATA: DataRelease = {
  label: 'holiday data',
  key: HolidayDataKey,
  olderThan: holidayDataOlderThan,
  notify: (handle, version) => handle.signal(newerHolidayDataSignal, { version }),
  recompute: (release, behind) => ({
    if_holiday_data_older_than: release,
    reason: `a worker has holiday data ${release}, newer than ${behind}`,
  }),
  gauge: {
    name: 'scheduler_schedules_behind_holiday_data',
    tag: 'holiday_data_version',
    help: "running business-day schedules with a buffered slot decided by older holiday data than this worker's",
  },
};

export interface TzCheckOptions {
  /** This worker's release (`process.versions.tz`, or the rules it installed; the holiday data's version). */
  version: string;
  mode: Exclude<TzRefreshMode, 'off'>;
  /** Schedule runs asked, with when: kept by the caller across checks. */
  asked: Map<string, number>;
  now?: () => number;
}

export interface TzCheckResult {
  /** Running schedules with a buffered slot computed by an older release. */
  behind: number;
  /** Of those, asked now (told, or recomputed). */
  asked: number;
  recomputed: number;
  moved: number;
  failed: number;
}

/** A schedule asked once is asked again only after this (its recompute may have run on an older worker). */
const RETRY_AFTER_MS = 60 * 60_000;
const CONCURRENCY = 8;

/** One pass: every running schedule behind this worker's tz database, told or recomputed. */
export const checkTzVersions = (client: Client, options: TzCheckOptions): Promise<TzCheckResult> =>
  checkReleases(client, TZ_DATABASE, options);

/** One pass: every running business-day schedule behind this worker's holiday data, told or recomputed. */
export const checkHolidayData = (client: Client, options: TzCheckOptions): Promise<TzCheckResult> =>
  checkReleases(client, HOLIDAY_DATA, options);

async function checkReleases(
  client: Client,
  data: DataRelease,
  options: TzCheckOptions,
): Promise<TzCheckResult> {
  const now = options.now ?? Date.now;
  const query = [
    SCHEDULE_WORKFLOWS,
    `ExecutionStatus = 'Running'`,
    `${data.key.name} != ${quoteQueryValue(options.version)}`,
  ].join(' AND ');
  const result: TzCheckResult = { behind: 0, asked: 0, recomputed: 0, moved: 0, failed: 0 };
  const due: Array<{ workflowId: string; key: string; version: string }> = [];
  for await (const execution of client.workflow.list({ query })) {
    const version = execution.searchAttributes?.[data.key.name]?.[0];
    if (typeof version !== 'string' || !data.olderThan(version, options.version)) continue;
    result.behind += 1;
    const key = `${execution.workflowId}/${execution.runId}@${options.version}`;
    const at = options.asked.get(key);
    if (at !== undefined && now() - at < RETRY_AFTER_MS) continue;
    due.push({ workflowId: execution.workflowId, key, version });
  }
  for (let i = 0; i < due.length; i += CONCURRENCY) {
    await Promise.all(
      due.slice(i, i + CONCURRENCY).map(async ({ workflowId, key, version }) => {
        const handle = client.workflow.getHandle(workflowId);
        try {
          if (options.mode === 'notify') {
            await data.notify(handle, options.version);
          } else {
            const answer = await handle.executeUpdate(recomputeUpdate, {
              args: [data.recompute(options.version, version)],
            });
            if (answer.recomputed) {
              result.recomputed += 1;
              result.moved += answer.record?.moved ?? 0;
            }
          }
          options.asked.set(key, now());
          result.asked += 1;
        } catch {
          // Ended since it was listed, or the server busy: the next check asks again.
          result.failed += 1;
        }
      }),
    );
  }
  return result;
}

/** This worker's release of one kind of data, and what to do about the schedules behind it. */
export interface ReleaseRefresh {
  version: string;
  mode: TzRefreshMode;
}

export interface ReleaseWatchOptions {
  /** The tz database (SCHEDULER_TZ_REFRESH). */
  tz: ReleaseRefresh;
  /** The holiday data (SCHEDULER_HOLIDAY_REFRESH). */
  holidayData: ReleaseRefresh;
  /** SCHEDULER_TZ_CHECK_INTERVAL_S, for both. */
  intervalMs: number;
  log: (line: string) => void;
  meter?: MetricMeter;
}

export interface ReleaseWatch {
  stop(): void;
}

/**
 * Checks at start and every `intervalMs`, one pass over both kinds of data: the count behind goes to each
 * kind's gauge (`scheduler_schedules_behind_tz`, `scheduler_schedules_behind_holiday_data`, labelled with this
 * worker's release), what was done to the log. A failed check (visibility down) is logged and retried at the
 * next interval; a kind whose mode is `off` is not checked.
 */
export function watchReleases(client: Client, options: ReleaseWatchOptions): ReleaseWatch {
  const checks = [
    releaseCheck(client, TZ_DATABASE, options.tz, options),
    releaseCheck(client, HOLIDAY_DATA, options.holidayData, options),
  ].filter((check) => check !== null);
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const watch = {
    stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
    },
  };
  if (checks.length === 0) return watch;
  const pass = async (): Promise<void> => {
    try {
      await Promise.all(checks.map((check) => check()));
    } finally {
      if (!stopped) timer = setTimeout(pass, options.intervalMs);
      timer?.unref();
    }
  };
  void pass();
  return watch;
}

/** One kind's check, which logs its outcome and never throws; null when its mode is `off`. */
function releaseCheck(
  client: Client,
  data: DataRelease,
  refresh: ReleaseRefresh,
  options: ReleaseWatchOptions,
): (() => Promise<void>) | null {
  const { version, mode } = refresh;
  const gauge = options.meter
    ?.withTags({ [data.gauge.tag]: version })
    .createGauge(data.gauge.name, 'int', undefined, data.gauge.help);
  if (mode === 'off') return null;
  const asked = new Map<string, number>();
  return async () => {
    try {
      const result = await checkReleases(client, data, { version, mode, asked });
      gauge?.set(result.behind);
      if (result.asked > 0 || result.failed > 0)
        options.log(
          `${data.label} ${version}: ${result.behind} schedules behind; ${mode === 'notify' ? `told ${result.asked}` : `recomputed ${result.recomputed} (${result.moved} slots moved)`}${result.failed ? `, ${result.failed} to ask again` : ''}`,
        );
    } catch (err) {
      options.log(
        `${data.label} check failed (retried in ${options.intervalMs} ms): ${(err as Error).message}`,
      );
    }
  };
}
