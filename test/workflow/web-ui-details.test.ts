// What the Temporal Web UI shows as a schedule's current details is markdown: a tenant's pause note and
// trigger reason must reach it as text, not as links or images on the operator's page (security review L5).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scheduleWorkflowId } from '../../src/model/ids.js';
import { SchedulerHarness } from '../helpers/scheduler-harness.js';

const PHISHING = '[your session expired: log in again](https://evil.example/login)';
const PIXEL = '![](https://tracker.example/p.png)\n\n# Owned';

describe('current details in the Web UI (time-skipping server)', () => {
  let h: SchedulerHarness;
  beforeAll(async () => {
    h = await SchedulerHarness.start();
  });
  afterAll(async () => {
    await h?.teardown();
  });

  it('a pause note and a trigger reason are literal text: code spans, on one line each', async () => {
    const sdk = h.sdk();
    await sdk.create({
      schedule_id: 'ui-details',
      target: { type: 'JOB', job_type: 'recordedJob' },
      timing: { kind: 'INTERVAL', every: 'PT1H' },
    });
    await sdk.triggerNow('ui-details', { reason: PIXEL });
    await sdk.pause('ui-details', PHISHING);
    const handle = h.env.client.workflow.getHandle(scheduleWorkflowId('acme', 'ui-details'));
    let details = '';
    for (let attempt = 0; attempt < 50 && !details.includes('PAUSED'); attempt++) {
      details =
        (await handle.query<{ currentDetails?: string }>('__temporal_workflow_metadata')).currentDetails ??
        '';
      if (!details.includes('PAUSED')) await new Promise((r) => setTimeout(r, 100));
    }
    const [headline, , , lastOccurrence] = details.split('\n\n');
    expect(headline).toBe(`**\`ui-details\`** (tenant \`acme\`) v1 — PAUSED (\`${PHISHING}\`)`);
    expect(lastOccurrence).toMatch(
      /^last occurrence: \S+ \w+ \(`!\[\]\(https:\/\/tracker\.example\/p\.png\) # Owned`\)$/,
    );
    // Nothing of the tenant's text stands outside a code span.
    const outsideSpans = details.replace(/`[^`]*`/g, '');
    expect(outsideSpans).not.toMatch(/\]\(|!\[|# Owned/);
    await sdk.cancel('ui-details');
  });
});
