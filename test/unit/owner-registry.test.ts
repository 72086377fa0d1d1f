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

// Security review 2, N8: replicas read a new key file at different moments (a ConfigMap reaches each node
// in its own time); a report carries when its configuration was written, and one older than the newest
// applied revokes nothing.
describe('owner registry: report generations', () => {
  const at = (generation: number, state: OwnerRegistryState, present: string[]) =>
    reconcileOwners(state, { present, allowMassRevocation: false, maxShare: 0.5, generation });
  const T0 = Date.parse('2027-03-01T10:00:00Z');
  const T1 = T0 + 60_000;
  const before = at(T0, empty, [...acme, 'globex/gina', 'globex/hal']).state;

  it('a replica still on older keys, reporting after the newer ones, revokes nothing the newer added', () => {
    // The newer configuration adds dave; the replica the change has not reached reports its old keys after.
    const newer = at(T1, before, [...acme, 'acme/dave', 'globex/gina', 'globex/hal']);
    expect(newer.state).toMatchObject({ generation: T1, revoked: [] });
    const stale = at(T0, newer.state, [...acme, 'globex/gina', 'globex/hal']);
    expect(stale.result).toMatchObject({ revoked: [], newlyRevoked: [], refused: null });
    expect(stale.result.outdated).toMatch(
      /written 2027-03-01T10:00:00.000Z\) is older than one already applied \(written 2027-03-01T10:01:00.000Z\): recorded, revokes nothing/,
    );
    // Recorded (counted), and nothing learned: dave stays known, the newest generation stays.
    expect(stale.state).toEqual({ ...newer.state, reconciles: newer.state.reconciles + 1 });
    // Nor can an older report bring back an owner the newer configuration removed.
    const removed = at(T1 + 1, newer.state, [...acme, 'globex/gina', 'globex/hal']);
    expect(removed.result.newlyRevoked).toEqual(['acme/dave']);
    expect(at(T1, removed.state, [...acme, 'acme/dave', 'globex/gina', 'globex/hal']).result).toMatchObject({
      revoked: ['acme/dave'],
      outdated: expect.stringMatching(/revokes nothing/),
    });
  });

  it('a report of the same generation or a newer one revokes; the newest generation is kept', () => {
    const newer = at(T1, before, [...acme, 'globex/gina', 'globex/hal']);
    const same = at(T1, newer.state, ['acme/alice', 'acme/bob', 'globex/gina', 'globex/hal']);
    expect(same.result).toMatchObject({ newlyRevoked: ['acme/carol'] });
    expect(same.result.outdated).toBeUndefined();
    expect(same.state.generation).toBe(T1);
  });

  it("another node's copy of the same owners, written a moment earlier, is not outdated", () => {
    const newer = at(T1, before, [...acme, 'globex/gina', 'globex/hal']);
    const copy = at(T1 - 5, newer.state, ['globex/hal', 'globex/gina', ...acme]);
    expect(copy.result).toEqual({ revoked: [], newlyRevoked: [], refused: null });
    expect(copy.state.generation).toBe(T1);
  });

  it('a refused report does not become the newest: the configuration before it still revokes', () => {
    const refused = at(T1, before, [...acme]);
    expect(refused.result.refused).toMatch(/every owner of tenant globex/);
    expect(refused.state.generation).toBe(T0);
    expect(
      at(T0, refused.state, ['acme/alice', 'acme/bob', 'globex/gina', 'globex/hal']).result,
    ).toMatchObject({ newlyRevoked: ['acme/carol'] });
  });

  it('a report without a generation (an API before 0.11) is taken whole, as before', () => {
    const newer = at(T1, before, [...acme, 'acme/dave', 'globex/gina', 'globex/hal']);
    const old = report(newer.state, [...acme, 'globex/gina', 'globex/hal']);
    expect(old.result.newlyRevoked).toEqual(['acme/dave']);
    expect(old.state.generation).toBe(T1);
  });

  it('before the patch (a report a worker before 0.11 answered, replayed) a generation is ignored', () => {
    const newer = at(T1, before, [...acme, 'acme/dave', 'globex/gina', 'globex/hal']);
    const request = {
      present: [...acme, 'globex/gina', 'globex/hal'],
      allowMassRevocation: false,
      maxShare: 0.5,
      generation: T0,
    };
    const unpatched = reconcileOwners(newer.state, request, { generations: false });
    expect(unpatched.result).toEqual({ revoked: ['acme/dave'], newlyRevoked: ['acme/dave'], refused: null });
    expect(reconcileOwners(newer.state, request, { generations: true }).result.newlyRevoked).toEqual([]);
  });
});
