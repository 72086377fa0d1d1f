// Labels and label selectors (issue 42): Kubernetes' syntax for keys and values and its selector grammar,
// checked against the examples of its documentation (labels.md: "Label selectors") and against what a
// tired operator or a hostile tenant would type.
import { describe, expect, it } from 'vitest';
import { Labels } from '../../src/model/contracts.js';
import {
  LabelSelectorError,
  labelTokens,
  MAX_LABELS,
  parseLabelSelector,
  requiredTokens,
  selects,
} from '../../src/model/labels.js';

const pick = (selector: string, labels: Record<string, string>) =>
  selects(parseLabelSelector(selector), labels);

describe('labels', () => {
  it('takes Kubernetes keys and values: a DNS prefix, a name, an empty value', () => {
    const labels = { 'app.kubernetes.io/name': 'billing', team: 'payments', tier: '', 'v1.2_x-y': 'A.b_c-1' };
    expect(Labels.parse(labels)).toEqual(labels);
  });

  it.each([
    [{ '': 'x' }, ''],
    [{ '-team': 'x' }, '-team'],
    [{ 'Acme.com/team': 'x' }, 'Acme.com/team'],
    [{ 'a/b/c': 'x' }, 'a/b/c'],
    [{ [`k${'x'.repeat(63)}`]: 'x' }, `k${'x'.repeat(63)}`],
    [{ team: 'pay ments' }, 'team'],
    [{ team: 'x/y' }, 'team'],
    [{ team: '-x' }, 'team'],
  ])('refuses %j, naming the label', (labels, field) => {
    const result = Labels.safeParse(labels);
    expect(result.success).toBe(false);
    expect(result.error!.issues[0]!.path).toEqual([field]);
  });

  it('bounds their number and their stored size', () => {
    const many = Object.fromEntries(Array.from({ length: MAX_LABELS + 1 }, (_, i) => [`k${i}`, 'v']));
    expect(Labels.safeParse(many).error?.issues[0]?.message).toMatch(/at most 16 labels \(17 given\)/);
    const long = Object.fromEntries(
      Array.from({ length: MAX_LABELS }, (_, i) => [`k${i}${'x'.repeat(60)}`, 'v'.repeat(63)]),
    );
    expect(Labels.safeParse(long).error?.issues[0]?.message).toMatch(/bytes stored, more than 1800/);
  });

  it('are stored as key and key=value tokens, in key order', () => {
    expect(labelTokens({ team: 'payments', env: '' })).toEqual(['env', 'env=', 'team', 'team=payments']);
  });
});

describe('label selectors', () => {
  const prodPayments = { team: 'payments', env: 'prod' };
  const devPayments = { team: 'payments', env: 'dev' };
  const unlabelled = {};

  it('equality: = and == select the value, != everything else, including no key at all', () => {
    expect(pick('team=payments', prodPayments)).toBe(true);
    expect(pick('team==payments', prodPayments)).toBe(true);
    expect(pick('team=payments,env!=dev', prodPayments)).toBe(true);
    expect(pick('team=payments,env!=dev', devPayments)).toBe(false);
    expect(pick('env!=dev', unlabelled)).toBe(true);
    expect(pick('team=payments', unlabelled)).toBe(false);
  });

  it('sets: in, notin; existence: key and !key', () => {
    expect(pick('env in (prod, staging)', prodPayments)).toBe(true);
    expect(pick('env in (prod,staging)', devPayments)).toBe(false);
    expect(pick('env notin (dev)', devPayments)).toBe(false);
    expect(pick('env notin (dev)', unlabelled)).toBe(true);
    expect(pick('team', prodPayments)).toBe(true);
    expect(pick('!team', prodPayments)).toBe(false);
    expect(pick('!team', unlabelled)).toBe(true);
  });

  it('the empty selector selects everything; an empty value is a value', () => {
    expect(parseLabelSelector('  ')).toEqual([]);
    expect(pick('', unlabelled)).toBe(true);
    expect(pick('tier=', { tier: '' })).toBe(true);
    expect(pick('tier=', { tier: 'gold' })).toBe(false);
  });

  it.each([
    ['team=payments,', 15, 'a key is expected'],
    ['team=pay ments', 10, '"," is expected between requirements'],
    ['env in prod', 8, '"(" is expected after in / notin'],
    ['env in (prod', 13, '"," or ")" is expected'],
    ['Bad.Prefix/team', 1, 'a key prefix is a DNS subdomain'],
    ['team=a/b', 6, 'a value is empty, or 1 to 63'],
    ['=x', 1, 'a key is expected'],
  ])('%j is refused at character %i: %s', (selector, at, reason) => {
    try {
      parseLabelSelector(selector);
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(LabelSelectorError);
      expect((err as LabelSelectorError).at + 1).toBe(at);
      expect((err as LabelSelectorError).reason).toContain(reason);
    }
  });

  it('what a server can test is the positive requirements, each as tokens any one of which must be there', () => {
    expect(
      requiredTokens(parseLabelSelector('team=payments,env in (prod,staging),!legacy,tier,x!=y')),
    ).toEqual([['team=payments'], ['env=prod', 'env=staging'], ['tier']]);
  });
});
