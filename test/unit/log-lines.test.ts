import { describe, expect, it } from 'vitest';
import { jsonLogLine, runtimeLogLevel } from '../../src/runtime/telemetry.js';

describe('structured log lines', () => {
  const at = 1_700_000_000_123n * 1_000_000n;

  it('carries tenant, schedule and occurrence IDs read from the workflow ID', () => {
    const line = JSON.parse(
      jsonLogLine({
        level: 'WARN',
        message: 'hand-off failed for good',
        timestampNanos: at,
        meta: {
          workflowId: 'occurrence/acme/weekday-report/2026-12-01T07:00:00.000Z',
          reason: 'POST https://sink answered 410',
        },
      }),
    );
    expect(line).toMatchObject({
      time: '2023-11-14T22:13:20.123Z',
      level: 'warn',
      msg: 'hand-off failed for good',
      tenant_id: 'acme',
      schedule_id: 'weekday-report',
      occurrence_id: 'occurrence/acme/weekday-report/2026-12-01T07:00:00.000Z',
    });
  });

  it('names a schedule from its own workflow ID, and errors by name and message only', () => {
    const line = JSON.parse(
      jsonLogLine({
        level: 'ERROR',
        message: 'Activity failed',
        timestampNanos: at,
        meta: { workflowId: 'schedule/globex/nightly', error: new TypeError('boom') },
      }),
    );
    expect(line).toMatchObject({
      tenant_id: 'globex',
      schedule_id: 'nightly',
      error: { name: 'TypeError', message: 'boom' },
    });
    expect(line).not.toHaveProperty('occurrence_id');
  });

  it('maps the API log level names onto the SDK levels', () => {
    expect(['trace', 'debug', 'info', 'warn', 'error', 'silent'].map(runtimeLogLevel)).toEqual([
      'TRACE',
      'DEBUG',
      'INFO',
      'WARN',
      'ERROR',
      'ERROR',
    ]);
  });
});
