// The CLI's preview computes what the HTTP preview and the running schedule compute, to the second: a bare
// RRULE starts at the minute of `--from`, never at its second (before, `--from …:33` gave 09:00:33).
import { describe, expect, it } from 'vitest';
import { previewRuns } from '../../src/api/client.js';
import { runPreview } from '../../src/cli/preview.js';
import { ScheduleSpec } from '../../src/model/contracts.js';

const job = { type: 'JOB', job_type: 'report' } as const;

describe('scheduler preview agrees with the HTTP preview', () => {
  it('a bare RRULE at 09:00 fires at 09:00:00 whatever second --from has', () => {
    const from = '2026-12-01T21:33:33Z';
    const { items, timezone } = runPreview(
      { rule: 'FREQ=DAILY;BYHOUR=9;BYMINUTE=0', timezone: 'Europe/Riga', count: '2', from },
      new Date(),
    );
    expect(timezone).toBe('Europe/Riga');
    expect(items.map((i) => i.local)).toEqual(['2026-12-02T09:00:00+02:00', '2026-12-03T09:00:00+02:00']);
  });

  it('the same slots as previewRuns (what POST /v1/preview answers) for rules, cron, windows and zones', () => {
    const from = '2026-03-27T10:17:45.250Z';
    const cases: Array<{ timing: Record<string, unknown>; options?: Record<string, unknown> }> = [
      {
        timing: { kind: 'RECURRENCE', rule: 'FREQ=WEEKLY;BYDAY=MO,WE;BYHOUR=9', timezone: 'Asia/Kathmandu' },
      },
      { timing: { kind: 'CRON', expression: '30 2 * * *', timezone: 'Europe/Riga' } },
      { timing: { kind: 'INTERVAL', every: 'PT10M' } },
      {
        timing: { kind: 'RECURRENCE', rule: 'FREQ=HOURLY', timezone: 'Australia/Lord_Howe' },
        options: { window: { from: '09:00', to: '17:00', days: ['MO', 'TU', 'WE', 'TH', 'FR'] } },
      },
    ];
    for (const { timing, options } of cases) {
      const cli = runPreview(
        {
          timing: JSON.stringify(timing),
          ...(options ? { options: JSON.stringify(options) } : {}),
          from,
          count: '12',
        },
        new Date(),
      ).items;
      const spec = ScheduleSpec.parse({ timing, target: job, ...options });
      const http = previewRuns('preview', spec, from, from, 12);
      expect(
        cli.map((i) => [i.scheduled_for, i.at, i.local]),
        JSON.stringify(timing),
      ).toEqual(http.map((r) => [r.scheduled_for, r.fire_at, r.local]));
    }
  });
});
