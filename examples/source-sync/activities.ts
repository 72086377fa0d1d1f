// What the sync "did", recorded outside Temporal: a small JSON ledger keyed by the occurrence's
// idempotency key. The scheduler hands each occurrence off exactly once, but delivery into a target is
// at-least-once (and an activity may be retried after it already wrote), so the write is idempotent.
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { log } from '@temporalio/activity';

export interface RunRecord {
  idempotency_key: string;
  occurrence_id: string;
  schedule_id: string;
  scheduled_for: string;
  trigger: string;
  source: string;
}

/** Where runs are recorded: SOURCE_SYNC_LEDGER, else a file in the system's temp directory. */
export const ledgerFile =
  process.env.SOURCE_SYNC_LEDGER || join(tmpdir(), 'durable-scheduler-examples', 'source-sync-ledger.json');

type Ledger = Record<string, RunRecord & { recorded_at: string }>;

function readLedger(): Ledger {
  return existsSync(ledgerFile) ? (JSON.parse(readFileSync(ledgerFile, 'utf8')) as Ledger) : {};
}

export function createActivities() {
  return {
    async recordRun(run: RunRecord): Promise<{ recorded: boolean }> {
      const ledger = readLedger();
      if (ledger[run.idempotency_key]) {
        log.info('already recorded', { idempotency_key: run.idempotency_key });
        return { recorded: false };
      }
      // ... a real job would pull the source's changes here ...
      ledger[run.idempotency_key] = { ...run, recorded_at: new Date().toISOString() };
      mkdirSync(dirname(ledgerFile), { recursive: true });
      const tmp = `${ledgerFile}.${process.pid}.tmp`;
      writeFileSync(tmp, `${JSON.stringify(ledger, null, 2)}\n`);
      renameSync(tmp, ledgerFile); // all or nothing: a crash never leaves half a ledger
      console.log(
        `[source-sync] recorded ${run.source} for ${run.scheduled_for} (${run.trigger}) key=${run.idempotency_key}`,
      );
      return { recorded: true };
    },
  };
}

export type SourceSyncActivities = ReturnType<typeof createActivities>;
