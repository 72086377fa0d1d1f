// Records the histories of the v0.5.1 patch `v0.5.1-bounded-handoffs` on the time-skipping server: a
// backfill whose slots wait for room under the tenant's max_handoffs_in_flight (3) and go out as earlier
// ones finish; a cancel while some wait; a revocation while some wait (they are refused); a 60 KB payload
// whose run continues as new by history size with hand-offs still waiting (the first and the last run).
//   node --import tsx test/histories/record-bounded.ts test/histories/v0.5.1
import '../helpers/quiet-sdk.js';
import type { ScheduleSpecInput } from '../../src/model/contracts.js';
import { scheduleWorkflowId } from '../../src/model/ids.js';
import { TenantPolicy } from '../../src/model/tenant-policy.js';
import { ownerRevokedSignal } from '../../src/workflows/definitions.js';
import { startScheduleDirectly } from '../helpers/schedule-workflow.js';
import { policyTellingHandoffBound, SchedulerHarness } from '../helpers/scheduler-harness.js';
import { startFaultSink } from '../integration/fault-sink.js';
import { historySaver, recordingDirectory } from './recorded.js';

const HOUR = 3_600_000;
const outDir = recordingDirectory('record-bounded.ts <output directory>');

let release!: () => void;
const released = new Promise<void>((r) => {
  release = r;
});
// /held waits for the gate; everything else answers after 50 ms.
const sink = await startFaultSink((d) =>
  d.path === '/held' ? { status: 200, until: released } : { status: 200, afterMs: 50 },
);
const policy = TenantPolicy.fromTenants({
  acme: { event_sinks: [{ url: sink.url('/'), private: true }], quotas: { max_handoffs_in_flight: 3 } },
});
const h = await SchedulerHarness.start({ tenantPolicy: () => policy });
// Tells new schedules the quota (3), as the API's SDK does.
const sdkPolicy = policyTellingHandoffBound(3);
const sdk = h.sdk('acme', 'ops', { tenantPolicy: () => sdkPolicy });
const handle = (id: string, runId?: string) =>
  h.env.client.workflow.getHandle(scheduleWorkflowId('acme', id), runId);
const save = historySaver(h.env.client, outDir);
const hourly = (path: string, payload?: Record<string, unknown>): ScheduleSpecInput => ({
  timing: { kind: 'CRON', expression: '0 * * * *', timezone: 'UTC' },
  target: {
    type: 'EVENT',
    event_type: 'report.due',
    sink_url: sink.url(path),
    ...(payload ? { payload } : {}),
  },
});
const lastHours = async (hours: number) => {
  const to = Math.floor((await h.now()) / HOUR) * HOUR - 1000;
  return { from: new Date(to - hours * HOUR).toISOString(), to: new Date(to).toISOString() };
};
const until = async (what: string, check: () => Promise<boolean>) => {
  for (let i = 0; i < 600; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out: ${what}`);
};
const delivered = (path: string) =>
  new Set(sink.deliveries.filter((d) => d.path === path).map((d) => d.id)).size;

try {
  await sdk.create({ schedule_id: 'bounded-backfill', ...hourly('/quick') });
  await sdk.backfill('bounded-backfill', await lastHours(10));
  await until('10 delivered', async () => delivered('/quick') === 10);
  await until('settled', async () => (await sdk.describe('bounded-backfill')).running.length === 0);
  await h.env.sleep(2 * HOUR); // two scheduled fires after the backfill
  await sdk.cancel('bounded-backfill');
  await save('bounded-backfill', 'bounded-backfill');

  await sdk.create({ schedule_id: 'bounded-cancel', ...hourly('/held') });
  await sdk.backfill('bounded-cancel', await lastHours(8));
  await until('3 held', async () => delivered('/held') === 3);
  await sdk.cancel('bounded-cancel');

  await sdk.create({ schedule_id: 'bounded-revoked', ...hourly('/held') });
  await sdk.backfill('bounded-revoked', await lastHours(8));
  await until('3 more held', async () => delivered('/held') === 6);
  await handle('bounded-revoked').signal(ownerRevokedSignal, {
    reason: 'owner acme/ops has no API key any more (recording)',
  });
  await until('revoked', async () =>
    Boolean((await sdk.describe('bounded-revoked')).schedule.owner_revoked_at),
  );
  release();
  await until('held ones answered', async () => (await sdk.describe('bounded-cancel')).running.length === 0);
  await until('refused', async () => (await sdk.describe('bounded-revoked')).running.length === 0);
  await sdk.cancel('bounded-revoked');
  await save('bounded-cancel', 'bounded-cancel');
  await save('bounded-revoked', 'bounded-revoked');

  // Past the API's payload cap (a schedule stored before it): started directly.
  const first = await startScheduleDirectly(h.env.client, {
    scheduleId: 'bounded-large',
    spec: hourly('/large', { blob: 'x'.repeat(60_000) }),
    createdAt: new Date(await h.now()).toISOString(),
    maxHandoffsInFlight: 3,
  });
  await sdk.backfill('bounded-large', await lastHours(60));
  await until('60 delivered', async () => delivered('/large') === 60);
  await until('settled', async () => (await sdk.describe('bounded-large')).running.length === 0);
  await sdk.cancel('bounded-large');
  await save('bounded-large-first-run', 'bounded-large', first.firstExecutionRunId);
  await save('bounded-large-last-run', 'bounded-large');
} finally {
  await h.teardown();
  await sink.close();
}
