// The order in which a run asks its patches is part of every recorded history: RunVersion must ask
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

const { KNOWN_AT_BIRTH_V2, PATCHES, RunVersion, retiresOntoV2, startsJobsInertly, usesLocalActivities } =
  await import('../../src/workflows/patches.js');
type Version = InstanceType<typeof RunVersion>;
/** What a run does at its first activation, as the rows it asked then answered. */
const firstActivation = (knownAtBirth: number) => {
  const v = new RunVersion(knownAtBirth).takeUpAtFirstActivation();
  return {
    version: v,
    jobsFromActivity: v.has(PATCHES.PER_FIRE_COST),
    appliesCommandsWhileDraining: v.has(PATCHES.HANDLERS_WHILE_DRAINING),
    localActivities: usesLocalActivities(v),
    inertStarts: startsJobsInertly(v),
  };
};
const passRows = (v: Version) => ({
  targetsBound: v.has(PATCHES.TARGETS_BOUND),
  handoffsBounded: v.has(PATCHES.BOUNDED_HANDOFFS),
  tzHorizon: v.has(PATCHES.TZ_HORIZON),
  armedHandoffs: v.has(PATCHES.ARMED_HANDOFFS),
});
/** A run past its first activation, with these rows of it answered true. */
const runAfterFirstActivation = (rows: string[]) => {
  present = new Set(rows);
  const v = new RunVersion(0).takeUpAtFirstActivation();
  asked.length = 0;
  return v;
};
const P = Object.fromEntries(Object.entries(PATCHES).map(([name, p]) => [name, p.id])) as Record<
  keyof typeof PATCHES,
  string
>;

describe('RunVersion asks the patches of the first activation in one order', () => {
  beforeEach(() => {
    asked.length = 0;
  });

  it('a new run: everything on; the guarded inert start answers first, the older two are not asked', () => {
    present = new Set(Object.values(P));
    expect(firstActivation(0)).toMatchObject({
      jobsFromActivity: true,
      appliesCommandsWhileDraining: true,
      localActivities: false,
      inertStarts: true,
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
    expect(firstActivation(0)).toMatchObject({ localActivities: true, inertStarts: false });
    expect(asked).toEqual([P.PER_FIRE_COST, P.HANDLERS_WHILE_DRAINING, P.NO_LOCAL_ACTIVITIES]);
  });

  it('a run of 0.3: all three inert-start IDs asked, none present', () => {
    present = new Set([P.PER_FIRE_COST, P.HANDLERS_WHILE_DRAINING, P.NO_LOCAL_ACTIVITIES]);
    expect(firstActivation(0).inertStarts).toBe(false);
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
    expect(firstActivation(0).inertStarts).toBe(true);
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
    expect(firstActivation(0).inertStarts).toBe(false);
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
    const run = firstActivation(KNOWN_AT_BIRTH_V2);
    expect(run).toMatchObject({
      jobsFromActivity: true,
      appliesCommandsWhileDraining: true,
      localActivities: false,
      inertStarts: true,
    });
    run.version.takeUpAtTopOfPass();
    expect(passRows(run.version)).toEqual({
      targetsBound: true,
      handoffsBounded: true,
      tzHorizon: true,
      armedHandoffs: true,
    });
    expect(run.version.ask(PATCHES.SMALL_FIRST_BATCH)).toBe(true);
    expect(run.version.ask(PATCHES.VERSION_MEMO)).toBe(true);
    expect(asked).toEqual([]);
  });

  it('a patch past its level is still asked: a later patch reaches these runs as it reaches the first type', () => {
    present = new Set();
    const v = new RunVersion(PATCHES.TARGETS_BOUND.level).takeUpAtFirstActivation();
    v.takeUpAtTopOfPass();
    expect(asked).toEqual([P.BOUNDED_HANDOFFS, P.TZ_HORIZON, P.ARMED_HANDOFFS]);
    expect(passRows(v)).toMatchObject({ targetsBound: true, handoffsBounded: false });
  });

  it('levels are the table order, one each, and V2 knows every row of 0.9 and before', () => {
    const levels = Object.values(PATCHES).map((p) => p.level);
    expect(levels).toEqual(levels.map((_, i) => i + 1));
    expect(KNOWN_AT_BIRTH_V2).toBe(PATCHES.ARMED_HANDOFFS.level);
  });

  it('a run of the first type asks to retire onto V2 once it behaves as one; V2 runs never ask', () => {
    const current = runAfterFirstActivation(Object.values(P));
    current.takeUpAtTopOfPass();
    asked.length = 0;
    expect(retiresOntoV2(current)).toBe(true);
    expect(asked).toEqual([P.RETIRE_ONTO_V2]);
    // A 0.4.0 run (inert starts, not guarded) keeps its type: it does not behave as V2.
    const old = runAfterFirstActivation([
      P.PER_FIRE_COST,
      P.HANDLERS_WHILE_DRAINING,
      P.NO_LOCAL_ACTIVITIES,
      P.INERT_LOCAL_START,
    ]);
    expect(retiresOntoV2(old)).toBe(false);
    expect(asked).toEqual([]);
    present = new Set(Object.values(P));
    expect(retiresOntoV2(new RunVersion(KNOWN_AT_BIRTH_V2))).toBe(false);
    expect(asked).toEqual([]);
  });
});

describe('RunVersion.takeUpAtTopOfPass', () => {
  beforeEach(() => {
    asked.length = 0;
  });

  it('asks each at every pass until it answers true, then no more, in table order', () => {
    const v = runAfterFirstActivation([
      P.PER_FIRE_COST,
      P.HANDLERS_WHILE_DRAINING,
      P.NO_LOCAL_ACTIVITIES,
      P.INERT_LOCAL_START_GUARDED,
    ]);
    present = new Set();
    v.takeUpAtTopOfPass();
    expect(asked).toEqual([P.TARGETS_BOUND, P.BOUNDED_HANDOFFS, P.TZ_HORIZON, P.ARMED_HANDOFFS]);
    present = new Set([P.TARGETS_BOUND]);
    v.takeUpAtTopOfPass();
    expect(passRows(v)).toEqual({
      targetsBound: true,
      handoffsBounded: false,
      tzHorizon: false,
      armedHandoffs: false,
    });
    present = new Set([P.TARGETS_BOUND, P.BOUNDED_HANDOFFS]);
    v.takeUpAtTopOfPass();
    present = new Set([P.TARGETS_BOUND, P.BOUNDED_HANDOFFS, P.TZ_HORIZON]);
    v.takeUpAtTopOfPass();
    present = new Set([P.TARGETS_BOUND, P.BOUNDED_HANDOFFS, P.TZ_HORIZON, P.ARMED_HANDOFFS]);
    v.takeUpAtTopOfPass();
    v.takeUpAtTopOfPass();
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
    expect(passRows(v)).toEqual({
      targetsBound: true,
      handoffsBounded: true,
      tzHorizon: true,
      armedHandoffs: true,
    });
  });

  it('a row answered true is not asked again where first needed; false is asked again', () => {
    const v = runAfterFirstActivation([P.PER_FIRE_COST]);
    present = new Set();
    expect(v.ask(PATCHES.SMALL_FIRST_BATCH)).toBe(false);
    present = new Set([P.SMALL_FIRST_BATCH]);
    expect(v.ask(PATCHES.SMALL_FIRST_BATCH)).toBe(true);
    expect(v.ask(PATCHES.SMALL_FIRST_BATCH)).toBe(true);
    expect(asked).toEqual([P.SMALL_FIRST_BATCH, P.SMALL_FIRST_BATCH]);
  });

  it('a run with local activities never asks them', () => {
    const v = runAfterFirstActivation([P.PER_FIRE_COST]);
    present = new Set(Object.values(P));
    v.takeUpAtTopOfPass();
    expect(asked).toEqual([]);
    expect(passRows(v)).toEqual({
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
