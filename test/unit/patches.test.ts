// The order in which a run asks its patches is part of every recorded history: resolveBehaviour must ask
// exactly these IDs, in this order, for each kind of run (the markers each release recorded). `patched` is
// replaced by a recorder here (outside a workflow it cannot run); the replay test checks the real thing.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { beforeEach, describe, expect, it, vi } from 'vitest';

const asked: string[] = [];
let present = new Set<string>();
vi.mock('@temporalio/workflow', () => ({
  patched: (id: string) => {
    asked.push(id);
    return present.has(id);
  },
}));

const {
  askSmallFirstBatch,
  askVersionMemo,
  KNOWN_AT_BIRTH_V2,
  PATCHES,
  PatchesAskedEachPass,
  resolveBehaviour,
} = await import('../../src/workflows/patches.js');
const P = Object.fromEntries(Object.entries(PATCHES).map(([name, p]) => [name, p.id])) as Record<
  keyof typeof PATCHES,
  string
>;

describe('resolveBehaviour asks the patches of the first activation in one order', () => {
  beforeEach(() => {
    asked.length = 0;
  });

  it('a new run: everything on; the guarded inert start answers first, the older two are not asked', () => {
    present = new Set(Object.values(P));
    expect(resolveBehaviour(0)).toEqual({
      knownAtBirth: 0,
      perFireCost: true,
      servesHandlersWhileDraining: true,
      localActivities: false,
      inertLocalStarts: true,
    });
    expect(asked).toEqual([
      P.PER_FIRE_COST,
      P.HANDLERS_WHILE_DRAINING,
      P.NO_LOCAL_ACTIVITIES,
      P.INERT_LOCAL_START_GUARDED,
    ]);
  });

  it('a run of 0.2 (local activities): no inert-start ID is asked', () => {
    present = new Set([P.PER_FIRE_COST]);
    expect(resolveBehaviour(0)).toMatchObject({ localActivities: true, inertLocalStarts: false });
    expect(asked).toEqual([P.PER_FIRE_COST, P.HANDLERS_WHILE_DRAINING, P.NO_LOCAL_ACTIVITIES]);
  });

  it('a run of 0.3: all three inert-start IDs asked, none present', () => {
    present = new Set([P.PER_FIRE_COST, P.HANDLERS_WHILE_DRAINING, P.NO_LOCAL_ACTIVITIES]);
    expect(resolveBehaviour(0).inertLocalStarts).toBe(false);
    expect(asked.slice(3)).toEqual([
      P.INERT_LOCAL_START_GUARDED,
      P.NO_INERT_LOCAL_START,
      P.INERT_LOCAL_START,
    ]);
  });

  it('a run of 0.4.0: inert by the first inert-start ID', () => {
    present = new Set([
      P.PER_FIRE_COST,
      P.HANDLERS_WHILE_DRAINING,
      P.NO_LOCAL_ACTIVITIES,
      P.INERT_LOCAL_START,
    ]);
    expect(resolveBehaviour(0).inertLocalStarts).toBe(true);
    expect(asked.slice(3)).toEqual([
      P.INERT_LOCAL_START_GUARDED,
      P.NO_INERT_LOCAL_START,
      P.INERT_LOCAL_START,
    ]);
  });

  it('a run of 0.4.1: the switch-off answers, the 0.4.0 ID is not asked', () => {
    present = new Set([
      P.PER_FIRE_COST,
      P.HANDLERS_WHILE_DRAINING,
      P.NO_LOCAL_ACTIVITIES,
      P.NO_INERT_LOCAL_START,
    ]);
    expect(resolveBehaviour(0).inertLocalStarts).toBe(false);
    expect(asked.slice(3)).toEqual([P.INERT_LOCAL_START_GUARDED, P.NO_INERT_LOCAL_START]);
  });
});

describe('a run born knowing the patches (SCHEDULE_WORKFLOW_TYPE) asks none of them', () => {
  beforeEach(() => {
    asked.length = 0;
  });

  it('knows every row of 0.9 and before: the behaviour of a new run, with no marker asked', () => {
    // Present or not, nothing is asked: a recorded history of this type has no marker to meet.
    present = new Set();
    const behaviour = resolveBehaviour(KNOWN_AT_BIRTH_V2);
    expect(behaviour).toEqual({
      knownAtBirth: KNOWN_AT_BIRTH_V2,
      perFireCost: true,
      servesHandlersWhileDraining: true,
      localActivities: false,
      inertLocalStarts: true,
    });
    const each = new PatchesAskedEachPass(behaviour);
    each.askAtTopOfPass();
    expect(each).toMatchObject({
      targetsBound: true,
      handoffsBounded: true,
      tzHorizon: true,
      armedHandoffs: true,
    });
    expect(askSmallFirstBatch(behaviour)).toBe(true);
    expect(askVersionMemo(behaviour)).toBe(true);
    expect(asked).toEqual([]);
  });

  it('a patch past its level is still asked: a later patch reaches these runs as it reaches the first type', () => {
    present = new Set();
    const behaviour = resolveBehaviour(PATCHES.TARGETS_BOUND.level);
    const each = new PatchesAskedEachPass(behaviour);
    each.askAtTopOfPass();
    expect(asked).toEqual([P.BOUNDED_HANDOFFS, P.TZ_HORIZON, P.ARMED_HANDOFFS]);
    expect(each).toMatchObject({ targetsBound: true, handoffsBounded: false });
  });

  it('levels are the table order, one each, and V2 knows them all', () => {
    const levels = Object.values(PATCHES).map((p) => p.level);
    expect(levels).toEqual(levels.map((_, i) => i + 1));
    expect(KNOWN_AT_BIRTH_V2).toBe(levels.length);
  });
});

describe('PatchesAskedEachPass', () => {
  beforeEach(() => {
    asked.length = 0;
  });

  it('asks each at every pass until it answers true, then no more, in table order', () => {
    present = new Set();
    const each = new PatchesAskedEachPass({
      knownAtBirth: 0,
      perFireCost: true,
      servesHandlersWhileDraining: true,
      localActivities: false,
      inertLocalStarts: true,
    });
    each.askAtTopOfPass();
    expect(asked).toEqual([P.TARGETS_BOUND, P.BOUNDED_HANDOFFS, P.TZ_HORIZON, P.ARMED_HANDOFFS]);
    present = new Set([P.TARGETS_BOUND]);
    each.askAtTopOfPass();
    expect(each).toMatchObject({
      targetsBound: true,
      handoffsBounded: false,
      tzHorizon: false,
      armedHandoffs: false,
    });
    present = new Set([P.TARGETS_BOUND, P.BOUNDED_HANDOFFS]);
    each.askAtTopOfPass();
    present = new Set([P.TARGETS_BOUND, P.BOUNDED_HANDOFFS, P.TZ_HORIZON]);
    each.askAtTopOfPass();
    present = new Set([P.TARGETS_BOUND, P.BOUNDED_HANDOFFS, P.TZ_HORIZON, P.ARMED_HANDOFFS]);
    each.askAtTopOfPass();
    each.askAtTopOfPass();
    expect(asked).toEqual([
      P.TARGETS_BOUND,
      P.BOUNDED_HANDOFFS,
      P.TZ_HORIZON,
      P.ARMED_HANDOFFS,
      P.TARGETS_BOUND,
      P.BOUNDED_HANDOFFS,
      P.TZ_HORIZON,
      P.ARMED_HANDOFFS,
      P.BOUNDED_HANDOFFS,
      P.TZ_HORIZON,
      P.ARMED_HANDOFFS,
      P.TZ_HORIZON,
      P.ARMED_HANDOFFS,
      P.ARMED_HANDOFFS,
    ]);
    expect(each).toMatchObject({
      targetsBound: true,
      handoffsBounded: true,
      tzHorizon: true,
      armedHandoffs: true,
    });
  });

  it('a run with local activities never asks them', () => {
    present = new Set(Object.values(P));
    const each = new PatchesAskedEachPass({
      knownAtBirth: 0,
      perFireCost: true,
      servesHandlersWhileDraining: false,
      localActivities: true,
      inertLocalStarts: false,
    });
    each.askAtTopOfPass();
    expect(asked).toEqual([]);
    expect(each).toMatchObject({
      targetsBound: false,
      handoffsBounded: false,
      tzHorizon: false,
      armedHandoffs: false,
    });
  });

  it('every ID in the table is distinct and names its first histories folder', () => {
    expect(new Set(Object.values(P)).size).toBe(Object.keys(P).length);
    for (const patch of Object.values(PATCHES))
      expect(
        existsSync(fileURLToPath(new URL(`../histories/${patch.release}`, import.meta.url))),
        patch.id,
      ).toBe(true);
  });
});
