// The pure parts of bounded, private telemetry (issue #20): metric label values come from closed sets
// whatever a caller sends, the production test that decides whether /metrics is served without a token, and
// the token comparison. test/integration/telemetry.test.ts checks the same through the real HTTP server.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BearerSecret } from '../../src/api/auth.js';
import {
  DEFINITION_FIELD_LABELS,
  definitionFieldLabel,
  methodLabel,
  UNKNOWN_FIELD_LABEL,
} from '../../src/api/http/metric-labels.js';
import { isLoopbackHost, productionReasons } from '../../src/config.js';

const isProductionDeployment = (facts: Parameters<typeof productionReasons>[0]) =>
  productionReasons(facts).length > 0;

import { ConfigError, loadEnvironment } from '../../src/config.js';
import { ScheduleSpec } from '../../src/model/contracts.js';

describe('the field label of scheduler_invalid_rules_rejected_total', () => {
  it.each([
    [null, 'body'],
    ['timing', 'timing'],
    ['timing.timezone', 'timing.timezone'],
    ['target.sink_url', 'target.sink_url'],
    ['window.days', 'window.days'],
    // A second segment the schema does not have, an array index, a deeper path: cut to what is known.
    ['timing.every_day', 'timing'],
    ['exclusions.3', 'exclusions'],
    ['target.start.task_queue', 'target.start'],
    ['target.payload.anything.at.all', 'target.payload'],
    // The request's other fields: create, edit and preview bodies.
    ['schedule_id', 'schedule_id'],
    ['expected_version', 'expected_version'],
    ['from', 'from'],
    // Query, path and header fields: the part alone, whatever the parameter was called.
    ['querystring.limit', 'querystring'],
    ['querystring.colour', 'querystring'],
    ['params.id', 'params'],
    // Keys the caller made up.
    ['colour', UNKNOWN_FIELD_LABEL],
    ['__proto__', UNKNOWN_FIELD_LABEL],
    ['constructor.name', UNKNOWN_FIELD_LABEL],
    ['body', UNKNOWN_FIELD_LABEL],
  ])('%s → %s', (field, label) => {
    expect(definitionFieldLabel(field)).toBe(label);
    expect(DEFINITION_FIELD_LABELS).toContain(label);
  });

  it('every top-level definition field of ScheduleSpec is a label of its own', () => {
    for (const key of Object.keys(ScheduleSpec.shape)) expect(definitionFieldLabel(key)).toBe(key);
  });

  it('the set is closed and small: any string maps into it', () => {
    expect(DEFINITION_FIELD_LABELS.size).toBeLessThan(100);
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.array(fc.string(), { maxLength: 5 }).map((segments) => segments.join('.')),
          fc
            .tuple(fc.constantFrom(...Object.keys(ScheduleSpec.shape), 'querystring'), fc.string())
            .map(([known, rest]) => `${known}.${rest}`),
        ),
        (field) => DEFINITION_FIELD_LABELS.has(definitionFieldLabel(field)),
      ),
      { numRuns: 5_000 },
    );
  });
});

describe('the method label of scheduler_http_requests_total', () => {
  it('keeps the methods the API routes and counts the rest as other', () => {
    for (const method of ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'])
      expect(methodLabel(method)).toBe(method);
    for (const method of ['QUERY', 'PROPFIND', 'M-SEARCH', 'get', 'BREW'])
      expect(methodLabel(method)).toBe('other');
  });
});

describe('a production deployment (GET /metrics only with SCHEDULER_METRICS_TOKEN)', () => {
  it.each([
    ['127.0.0.1', true],
    ['127.8.9.10', true],
    ['::1', true],
    ['[::1]', true],
    ['::ffff:127.0.0.1', true],
    ['localhost', true],
    ['0.0.0.0', false],
    ['::', false],
    ['10.0.0.5', false],
    ['api.internal', false],
  ])('host %s is loopback: %s', (host, loopback) => {
    expect(isLoopbackHost(host)).toBe(loopback);
  });

  it('npm start with no keys on loopback is development; keys, NODE_ENV=production or a public bind are not', () => {
    const host = '127.0.0.1';
    expect(isProductionDeployment({ host })).toBe(false);
    expect(isProductionDeployment({ host, apiKeys: '  ', nodeEnv: 'development' })).toBe(false);
    expect(isProductionDeployment({ host, apiKeys: 'k-0123456789abcdef=acme:ops' })).toBe(true);
    expect(isProductionDeployment({ host, apiKeyFile: '/etc/keys' })).toBe(true);
    expect(isProductionDeployment({ host, nodeEnv: 'production' })).toBe(true);
    expect(isProductionDeployment({ host: '0.0.0.0' })).toBe(true);
  });
});

describe('the metrics token', () => {
  const secret = new BearerSecret('metrics-token-0123456789');

  it('matches only the bearer token itself', () => {
    expect(secret.matches('Bearer metrics-token-0123456789')).toBe(true);
    expect(secret.matches('bearer metrics-token-0123456789')).toBe(true);
    expect(secret.matches(undefined)).toBe(false);
    expect(secret.matches('metrics-token-0123456789')).toBe(false);
    expect(secret.matches('Bearer metrics-token-012345678')).toBe(false);
    expect(secret.matches('Bearer metrics-token-0123456789x')).toBe(false);
    expect(secret.matches('Basic bWV0cmljczp0b2tlbg==')).toBe(false);
  });

  it('SCHEDULER_METRICS_TOKEN is refused when short or spaced, without echoing it', () => {
    for (const token of ['', 'short-token', 'sixteen chars ok but spaced']) {
      expect(() => loadEnvironment({ SCHEDULER_METRICS_TOKEN: token })).toThrow(ConfigError);
      try {
        loadEnvironment({ SCHEDULER_METRICS_TOKEN: token });
      } catch (err) {
        expect((err as Error).message).toMatch(/SCHEDULER_METRICS_TOKEN: at least 16 characters/);
        if (token) expect((err as Error).message).not.toContain(token);
      }
    }
    expect(
      loadEnvironment({ SCHEDULER_METRICS_TOKEN: 'metrics-token-0123456789' }).SCHEDULER_METRICS_TOKEN,
    ).toBe('metrics-token-0123456789');
  });
});
