// The owner registry's rule (src/workflows/owner-registry.ts): revocation by difference against what the
// deployment's configurations held, with a brake for the reports a slip produces.
import { describe, expect, it } from 'vitest';
import { type OwnerRegistryState, reconcileOwners } from '../../src/workflows/owner-registry.js';

const empty: OwnerRegistryState = { known: [], revoked: [], reconciles: 0 };
const report = (state: OwnerRegistryState, present: string[], allowMassRevocation = false) =>
  reconcileOwners(state, { present, allowMassRevocation, maxShare: 0.5 });
const acme = ['acme/alice', 'acme/bob', 'acme/carol'];
const learned = report(empty, [...acme, 'globex/gina', 'globex/hal']).state;

describe('owner registry', () => {
  it('the first report only learns: a process that starts with fewer keys revokes nothing', () => {
    const first = report(empty, ['dev/developer']);
    expect(first.result).toEqual({ revoked: [], newlyRevoked: [], refused: null });
    expect(first.state.known).toEqual(['dev/developer']);
  });

  it('an owner that left a configuration the deployment had is revoked, and only that owner', () => {
    const { state, result } = report(learned, ['acme/alice', 'acme/bob', 'globex/gina', 'globex/hal']);
    expect(result).toEqual({ revoked: ['acme/carol'], newlyRevoked: ['acme/carol'], refused: null });
    // Reported again (another replica, the periodic run): still revoked, nothing newly.
    const again = report(state, ['acme/alice', 'acme/bob', 'globex/gina', 'globex/hal']);
    expect(again.result).toEqual({ revoked: ['acme/carol'], newlyRevoked: [], refused: null });
    // Back in the keys: no longer revoked (its schedules need a takeover all the same: the flag is theirs).
    expect(report(again.state, [...acme, 'globex/gina', 'globex/hal']).result.revoked).toEqual([]);
  });

  it('refuses a report that would revoke every owner of a tenant, and learns nothing from it', () => {
    const { state, result } = report(learned, [...acme]);
    expect(result.newlyRevoked).toEqual([]);
    expect(result.refused).toMatch(/every owner of tenant globex.*SCHEDULER_ALLOW_MASS_REVOCATION=1/);
    expect(state.known).toEqual(learned.known);
    // The fixed configuration afterwards revokes nothing.
    expect(report(state, [...acme, 'globex/gina', 'globex/hal']).result.revoked).toEqual([]);
  });

  it('refuses a report that would revoke more than the share of all owners (a missing variable)', () => {
    const five = report(empty, ['a/1', 'a/2', 'a/3', 'b/1', 'b/2']).state;
    expect(report(five, ['a/1', 'b/1']).result.refused).toMatch(/revoke 3 of 5 owners \(more than 50 %\)/);
    expect(report(five, ['a/1', 'b/1', 'b/2']).result.newlyRevoked).toEqual(['a/2', 'a/3']);
  });

  it('applies a refused report when mass revocation is allowed', () => {
    const { result } = report(learned, [...acme], true);
    expect(result).toMatchObject({ refused: null, newlyRevoked: ['globex/gina', 'globex/hal'] });
  });
});
