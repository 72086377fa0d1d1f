// A worker's own tz database against the schedules it runs. Slots are recorded with the release that
// computed them, and a schedule shows the oldest one of its buffer (SchedulerTzVersion); a worker whose
// release is newer (an operator upgraded Node) finds those schedules by visibility and, by
// SCHEDULER_TZ_REFRESH, tells them (describe shows it) or has them recompute their buffered slots at once.
// Only a newer release acts: during a rolling upgrade an older worker never undoes a newer one's work (a
// recompute whose slot activity an older worker ran stays behind, and is asked again after RETRY_AFTER_MS).
import type { Client } from '@temporalio/client';
import type { MetricMeter } from '@temporalio/common';
import { tzOlderThan } from '../model/zones.js';
import { newerTzSignal, recomputeUpdate, SCHEDULE_WORKFLOWS } from '../workflows/definitions.js';
import { quoteQueryValue, TzVersionKey } from '../workflows/search-attributes.js';

export type TzRefreshMode = 'off' | 'notify' | 'recompute';

export interface TzCheckOptions {
  /** This worker's tz database release (`process.versions.tz`, or the rules it installed). */
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

/** One pass: every running schedule behind `version`, told or recomputed. */
export async function checkTzVersions(client: Client, options: TzCheckOptions): Promise<TzCheckResult> {
  const now = options.now ?? Date.now;
  const query = [
    SCHEDULE_WORKFLOWS,
    `ExecutionStatus = 'Running'`,
    `${TzVersionKey.name} != ${quoteQueryValue(options.version)}`,
  ].join(' AND ');
  const result: TzCheckResult = { behind: 0, asked: 0, recomputed: 0, moved: 0, failed: 0 };
  const due: Array<{ workflowId: string; key: string; version: string }> = [];
  for await (const execution of client.workflow.list({ query })) {
    const version = execution.searchAttributes?.[TzVersionKey.name]?.[0];
    if (typeof version !== 'string' || !tzOlderThan(version, options.version)) continue;
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
            await handle.signal(newerTzSignal, { version: options.version });
          } else {
            const answer = await handle.executeUpdate(recomputeUpdate, {
              args: [
                {
                  if_older_than: options.version,
                  reason: `a worker has tz database ${options.version}, newer than ${version}`,
                },
              ],
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

export interface TzWatch {
  /** The latest check (tests wait for it). */
  readonly checked: Promise<TzCheckResult | null>;
  stop(): void;
}

/**
 * Checks at start and every `intervalMs`: the count behind goes to `scheduler_schedules_behind_tz` (labelled
 * with this worker's release), what was done to the log. A failed check (visibility down) is logged and
 * retried at the next interval.
 */
export function watchTzVersions(
  client: Client,
  options: {
    version: string;
    mode: TzRefreshMode;
    intervalMs: number;
    log: (line: string) => void;
    meter?: MetricMeter;
  },
): TzWatch {
  const asked = new Map<string, number>();
  const gauge = options.meter
    ?.withTags({ tz_version: options.version })
    .createGauge(
      'scheduler_schedules_behind_tz',
      'int',
      undefined,
      "running schedules with a buffered slot computed by an older tz database than this worker's",
    );
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const watch = {
    checked: Promise.resolve<TzCheckResult | null>(null),
    stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
    },
  };
  if (options.mode === 'off') return watch;
  const mode = options.mode;
  const check = async (): Promise<TzCheckResult | null> => {
    try {
      const result = await checkTzVersions(client, { version: options.version, mode, asked });
      gauge?.set(result.behind);
      if (result.asked > 0 || result.failed > 0)
        options.log(
          `tz database ${options.version}: ${result.behind} schedules behind; ${mode === 'notify' ? `told ${result.asked}` : `recomputed ${result.recomputed} (${result.moved} slots moved)`}${result.failed ? `, ${result.failed} to ask again` : ''}`,
        );
      return result;
    } catch (err) {
      options.log(
        `tz database check failed (retried in ${options.intervalMs} ms): ${(err as Error).message}`,
      );
      return null;
    } finally {
      if (!stopped) timer = setTimeout(() => (watch.checked = check()), options.intervalMs);
      timer?.unref();
    }
  };
  watch.checked = check();
  return watch;
}
