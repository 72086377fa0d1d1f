// The JOB target of the `source-sync-crm` schedule: a workflow the scheduler starts once per occurrence,
// with the occurrence as its only argument (its workflow ID is the occurrence ID). Workflow code is
// deterministic: it logs and leaves every side effect to an activity.
import { log, proxyActivities } from '@temporalio/workflow';
import type { OccurrenceEnvelope } from '../../src/model/contracts.js';
import type { SourceSyncActivities } from './activities.js';

const { recordRun } = proxyActivities<SourceSyncActivities>({
  startToCloseTimeout: '30s',
  retry: { maximumAttempts: 5 },
});

export interface SourceSyncResult {
  source: string;
  idempotency_key: string;
  /** False when this occurrence had already been recorded (a retry or a re-delivery): nothing ran twice. */
  recorded: boolean;
}

async function sourceSync(occurrence: OccurrenceEnvelope): Promise<SourceSyncResult> {
  const source = occurrence.payload_ref ?? 'state://sources/unknown';
  log.info('syncing source', {
    source,
    scheduled_for: occurrence.scheduled_for,
    trigger: occurrence.trigger,
    schedule_version: occurrence.schedule_version,
  });
  const { recorded } = await recordRun({
    idempotency_key: occurrence.idempotency_key,
    occurrence_id: occurrence.occurrence_id,
    schedule_id: occurrence.schedule_id,
    scheduled_for: occurrence.scheduled_for,
    trigger: occurrence.trigger,
    source,
  });
  log.info(recorded ? 'source synced' : 'occurrence already recorded; nothing to do', { source });
  return { source, idempotency_key: occurrence.idempotency_key, recorded };
}

// A workflow's type is the name it is exported under. The schedule's job_type is `source.sync`, which is
// not a JavaScript identifier, so the function is exported under a string name (ES2022 "arbitrary module
// namespace identifier"); the worker's bundler keeps it as the export's key.
export { sourceSync as 'source.sync' };
