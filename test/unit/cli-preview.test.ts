// The CLI's preview computes what the HTTP preview and the running schedule compute, to the second: a bare
// RRULE starts at the minute of `--from`, never at its second (before, `--from …:33` gave 09:00:33).
import { describe, expect, it } from 'vitest';
import { previewRuns, validateSpec } from '../../src/api/client.js';
import { SchedulerError } from '../../src/api/errors.js';
import { runPreview } from '../../src/cli/preview.js';
import { ScheduleSpec } from '../../src/model/contracts.js';
import { PreviewRequest } from '../../src/model/http.js';
import { previewSlots } from '../../src/model/slots.js';

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

describe('an imported calendar block (two RRULEs, EXRULE, RDATE PERIOD, EXDATE in another zone)', () => {
  // what a calendar export holds: the event's DTSTART, its rules, an added date with its length, a cancelled one
  const rule = [
    'DTSTART;TZID=Europe/Riga:20270104T090000',
    'RRULE:FREQ=WEEKLY;BYDAY=MO;COUNT=4',
    'RRULE:FREQ=WEEKLY;BYDAY=WE;BYHOUR=14',
    'EXRULE:FREQ=MONTHLY;BYDAY=1WE;BYHOUR=14',
    'RDATE;VALUE=PERIOD;TZID=Europe/Riga:20270108T100000/PT2H',
    'EXDATE;TZID=America/New_York:20270111T020000', // Monday 09:00 in Riga
  ].join('\n');
  const timing = { kind: 'RECURRENCE', rule, timezone: 'Europe/Riga' } as const;
  const from = '2027-01-01T00:00:00Z';
  const expected = [
    '2027-01-04T09:00:00+02:00',
    '2027-01-08T10:00:00+02:00',
    '2027-01-13T14:00:00+02:00',
    '2027-01-18T09:00:00+02:00',
    '2027-01-20T14:00:00+02:00',
    '2027-01-25T09:00:00+02:00',
    '2027-01-27T14:00:00+02:00',
    '2027-02-10T14:00:00+02:00',
  ];

  it('passes the SDK and HTTP contracts and previews the same slots everywhere', () => {
    const spec = ScheduleSpec.parse({ timing, target: job });
    expect(validateSpec('sch_1', spec, from, from).length).toBeGreaterThan(0); // create and edit
    const http = previewRuns('preview', spec, from, from, 8); // the SDK's preview and POST /v1/preview
    expect(http.map((r) => r.scheduled_for)).toEqual(expected);
    expect(PreviewRequest.parse({ timing, from, count: 8 }).timing).toEqual(timing);
    const model = previewSlots({ scheduleId: 'preview', timing, from, count: 8 });
    expect(model.slots.map((s) => s.scheduledFor)).toEqual(expected);
    const cli = runPreview({ rule, timezone: 'Europe/Riga', from, count: '8' }, new Date()).items;
    expect(cli.map((i) => i.scheduled_for)).toEqual(expected);
  });

  it('a bad line is a VALIDATION error naming timing.rule and the line', () => {
    const bad = ScheduleSpec.parse({
      timing: { ...timing, rule: rule.replace('PT2H', '-PT2H') },
      target: job,
    });
    let err: unknown;
    try {
      previewRuns('preview', bad, from, from, 8);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(SchedulerError);
    expect(err).toMatchObject({ code: 'VALIDATION', field: 'timing.rule' });
    expect((err as SchedulerError).reason).toMatch(
      /RDATE;VALUE=PERIOD:20270108T100000\/-PT2H: the duration must be positive/,
    );
  });
});
