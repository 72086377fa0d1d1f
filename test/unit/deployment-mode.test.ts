// Which tenant policy a process starts with (issue 38, security review N5): the decision `src/main.ts`
// makes before it starts anything. The refusals are also run as real processes in
// test/integration/start.test.ts; here every combination that matters, including the ones that start.
import { describe, expect, it } from 'vitest';
import { ConfigError, type DeploymentFacts, policyAtStart, productionReasons } from '../../src/config.js';

const laptop: DeploymentFacts = { host: '127.0.0.1' };
const shared: DeploymentFacts = { host: '127.0.0.1', temporalAddress: 'temporal.corp.example:7233' };

const refusal = (run: () => unknown): string => {
  try {
    run();
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
  throw new Error('started');
};

describe('production, and the tenant policy a process starts with', () => {
  it('a named Temporal server is production unless the developer says it is their own', () => {
    expect(productionReasons(laptop)).toEqual([]);
    expect(productionReasons(shared)).toEqual([
      'Temporal at temporal.corp.example:7233 is not the embedded dev server',
    ]);
    expect(productionReasons({ ...shared, developmentOptIn: true })).toEqual([]);
  });

  it('development (tenant dev reaches everything) only on the embedded dev server or by opt-in', () => {
    expect(policyAtStart({ facts: laptop, tenantsFile: undefined, runsWorker: true })).toBe('development');
    expect(
      policyAtStart({
        facts: { ...shared, developmentOptIn: true },
        tenantsFile: undefined,
        runsWorker: true,
      }),
    ).toBe('development');
    expect(
      policyAtStart({ facts: shared, tenantsFile: '/etc/scheduler/tenants.json', runsWorker: true }),
    ).toBe('file');
  });

  it('a worker in production without the policy file refuses, naming the variable and the reason', () => {
    expect(refusal(() => policyAtStart({ facts: shared, tenantsFile: undefined, runsWorker: true }))).toMatch(
      /^SCHEDULER_TENANTS_FILE is not set: a worker in production \(Temporal at temporal\.corp\.example:7233 is not the embedded dev server\) would refuse every hand-off it takes\..*SCHEDULER_DEVELOPMENT=on/,
    );
    const withKeys = { ...laptop, apiKeys: 'k-0123456789abcdef=acme:ops' };
    const message = refusal(() =>
      policyAtStart({ facts: withKeys, tenantsFile: undefined, runsWorker: true }),
    );
    expect(message).toMatch(/\(API keys are configured\)/);
    // On the embedded server the opt-in would change nothing: it is not offered.
    expect(message).not.toMatch(/SCHEDULER_DEVELOPMENT/);
    expect(
      refusal(() =>
        policyAtStart({ facts: { ...laptop, nodeEnv: 'production' }, tenantsFile: '', runsWorker: true }),
      ),
    ).toMatch(/^SCHEDULER_TENANTS_FILE is not set/);
  });

  it('an API alone starts closed: it refuses each create with a reason, which loses nothing', () => {
    expect(policyAtStart({ facts: shared, tenantsFile: undefined, runsWorker: false })).toBe('closed');
  });

  it('the opt-in beside a production setting is a contradiction, refused even with a policy file', () => {
    for (const facts of [
      { ...shared, developmentOptIn: true, nodeEnv: 'production' },
      { ...shared, developmentOptIn: true, apiKeyFile: '/run/secrets/keys' },
      { ...shared, developmentOptIn: true, host: '0.0.0.0' },
    ]) {
      expect(
        refusal(() => policyAtStart({ facts, tenantsFile: '/etc/tenants.json', runsWorker: false })),
      ).toMatch(/^SCHEDULER_DEVELOPMENT=on in a production deployment \(/);
    }
  });
});
