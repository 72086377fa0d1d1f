import { readdirSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from '@temporalio/worker';
import { describe, expect, it } from 'vitest';
import { schedulerReplayOptions } from '../../src/worker.js';
import {
  type OwnerReconcileRequest,
  type OwnerReconcileResult,
  SCHEDULE_WORKFLOW_TYPE,
  SCHEDULE_WORKFLOW_TYPE_V1,
} from '../../src/workflows/definitions.js';
import { type OwnerRegistryState, reconcileOwners } from '../../src/workflows/owner-registry.js';
import { OWNER_REGISTRY_PATCHES, PATCHES } from '../../src/workflows/patches.js';
import {
  changeVersionUpserts,
  type HistoryEvent,
  handOffsPerTask,
  isLocalActivityMarker,
  markerText,
  patchMarkers,
} from '../helpers/history.js';
import '../helpers/quiet-sdk.js';
import { RECORDED_SUFFIX, readRecordedHistory } from '../histories/recorded.js';

// Every history recorded by test/histories/record.ts, for every release, replayed against today's
// workflow code: a change that would break a running schedule (a new command, a reordered timer, a
// removed handler) fails here. Such a change goes behind `patched()`; old histories are never deleted.
const groupBy = (items: string[], key: (item: string) => string) => {
  const groups = new Map<string, string[]>();
  for (const item of items) groups.set(key(item), [...(groups.get(key(item)) ?? []), item]);
  return groups;
};
const root = join(dirname(fileURLToPath(import.meta.url)), '..', 'histories');
const files = readdirSync(root, { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .flatMap((d) =>
    readdirSync(join(root, d.name))
      .filter((f) => f.endsWith(RECORDED_SUFFIX))
      .map((f) => join(root, d.name, f)),
  );

const decode = (file: string) => readRecordedHistory(file).events ?? [];
const inRelease = (release: string, prefix = '') =>
  files.filter((f) => basename(dirname(f)) === release && basename(f).startsWith(prefix));
/** The recorded history `name` of `release`, decoded. */
const named = (release: string, name: string) =>
  decode(inRelease(release).find((f) => basename(f) === `${name}${RECORDED_SUFFIX}`)!);
/** The recorded histories' names of `release`. */
const names = (release: string) => inRelease(release).map((f) => basename(f, RECORDED_SUFFIX));

/** The activities of type `name` a history scheduled. */
const activities = (events: readonly HistoryEvent[], name: string) =>
  events.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === name);
/** Workflow tasks a history ran. */
const tasks = (events: readonly HistoryEvent[]) =>
  events.filter((e) => e.workflowTaskStartedEventAttributes).length;
/** Job starts: local (markers) and regular activities. */
const jobStarts = (events: readonly HistoryEvent[]) =>
  events.filter(isLocalActivityMarker).length + activities(events, 'startJobWorkflow').length;

describe('replay of recorded schedule histories', () => {
  it('has recorded histories of every release to replay', () => {
    const releases = groupBy(files, (f) => basename(dirname(f)));
    // v0.1.0: before the small first slot batch and the version memo; v0.2.0: with them (patched());
    // v0.3.0: with the patch that serves handlers while the run waits for hand-offs; v0.4.0: with inert
    // local job starts; v0.4.1: with them turned off again; v0.4.2: on again, under the stale-clock guard.
    expect(releases.get('v0.1.0')?.length).toBeGreaterThanOrEqual(8);
    expect(releases.get('v0.2.0')?.length).toBeGreaterThanOrEqual(10);
    expect(releases.get('v0.3.0')?.length).toBeGreaterThanOrEqual(13);
    expect(releases.get('v0.4.0')?.length).toBeGreaterThanOrEqual(13);
    expect(releases.get('v0.4.1')?.length).toBeGreaterThanOrEqual(13);
    expect(releases.get('v0.4.2')?.length).toBeGreaterThanOrEqual(13);
    // v0.5.0: with targets bound to their tenant (the authorized child start, revocation without gaps).
    expect(releases.get('v0.5.0')?.length).toBeGreaterThanOrEqual(15);
    // v0.5.1: with hand-offs bounded per schedule (chunked backfills, continue-as-new by history size).
    expect(releases.get('v0.5.1')?.length).toBeGreaterThanOrEqual(20);
    // v0.5.2: the same scenarios recorded by the workflow split into modules (no new patch).
    expect(releases.get('v0.5.2')?.length).toBeGreaterThanOrEqual(20);
    // v0.6.0: with the tz horizon (every earlier scenario again, and three of the horizon and recompute).
    expect(releases.get('v0.6.0')?.length).toBeGreaterThanOrEqual(23);
    // v0.8.0: with armed hand-offs (every earlier scenario again, and eight of arming and disarming).
    expect(releases.get('v0.8.0')?.length).toBeGreaterThanOrEqual(31);
    // v0.9.0: schedules created asleep (a delayed start), woken by a read, a pause, or the server at arming.
    expect(releases.get('v0.9.0')?.length).toBeGreaterThanOrEqual(3);
    // v0.10.0: every scenario again, started as SCHEDULE_WORKFLOW_TYPE (born knowing every patch: no marker).
    expect(releases.get('v0.10.0')?.length).toBeGreaterThanOrEqual(34);
    // v0.11.0: every scenario again by the workflow whose state has owners, a run of the first type retiring
    // onto the second, and business days.
    expect(releases.get('v0.11.0')?.length).toBeGreaterThanOrEqual(40);
  });

  it('replays every recorded history without nondeterminism', async () => {
    const histories = files.map((file) => ({
      workflowId: `${basename(dirname(file))}/${basename(file, RECORDED_SUFFIX)}`,
      history: readRecordedHistory(file),
    }));
    const failures: string[] = [];
    for await (const result of Worker.runReplayHistories(schedulerReplayOptions, histories)) {
      if (result.error) failures.push(`${result.workflowId}: ${result.error.message}`);
    }
    expect(failures).toEqual([]);
  }, 120_000);
});

// What the recorded histories exercise: v0.1.0 predates the patch of issue #9 (its schedules start
// every JOB as a child and upsert all attributes); v0.2.0 (recorded with the release's code: both the
// issue #9 and the issue #11 patches) carries it and starts a recurring ALLOW schedule's jobs from local
// activities.
describe('recorded histories cover both sides of the issue #9 patch', () => {
  it('v0.1.0: no patch markers, no job started from an activity', () => {
    expect(inRelease('v0.1.0').length).toBeGreaterThanOrEqual(8);
    for (const file of inRelease('v0.1.0')) {
      const text = markerText(decode(file));
      expect(text).not.toContain(PATCHES.PER_FIRE_COST.id);
      expect(text).not.toContain('startJobWorkflow');
    }
  });

  it('v0.2.0: patch recorded; a recurring ALLOW schedule starts jobs from local activities', () => {
    const recorded = inRelease('v0.2.0');
    expect(recorded.length).toBeGreaterThanOrEqual(10);
    for (const file of recorded) expect(markerText(decode(file))).toContain(PATCHES.PER_FIRE_COST.id);
    const allowThenSkip = decode(recorded.find((f) => basename(f) === `allow-then-skip${RECORDED_SUFFIX}`)!);
    expect(markerText(allowThenSkip)).toContain('startJobWorkflow');
    expect(allowThenSkip.some((e) => e.startChildWorkflowExecutionInitiatedEventAttributes)).toBe(true);
  });
});

describe('recorded histories of the v0.3 patch: handlers served while hand-offs drain', () => {
  const recorded = inRelease('v0.3.0');
  const hasMarker = (events: ReturnType<typeof decode>, patch: string) => markerText(events).includes(patch);

  it('v0.2.0 predates it; every v0.3.0 history carries it', () => {
    for (const file of inRelease('v0.2.0'))
      expect(hasMarker(decode(file), PATCHES.HANDLERS_WHILE_DRAINING.id)).toBe(false);
    for (const file of recorded)
      expect(hasMarker(decode(file), PATCHES.HANDLERS_WHILE_DRAINING.id)).toBe(true);
  });

  it('v0.3.0 runs use no local activity (patch v0.3-no-local-activities): slots and job starts are events', () => {
    // v0.4.0 histories carry the v0.3 patches too (patched() is asked in every run) and are judged below.
    const localActivityMarkers = (events: ReturnType<typeof decode>) =>
      events.filter(isLocalActivityMarker).length;
    for (const file of inRelease('v0.2.0')) {
      if (basename(file) === `allow-then-skip${RECORDED_SUFFIX}`)
        expect(localActivityMarkers(decode(file))).toBeGreaterThan(0);
    }
    for (const file of recorded) {
      const events = decode(file);
      expect(hasMarker(events, PATCHES.NO_LOCAL_ACTIVITIES.id)).toBe(true);
      expect(localActivityMarkers(events)).toBe(0);
    }
    const activitiesOf = (name: string) =>
      named('v0.3.0', name).map((e) => e.activityTaskScheduledEventAttributes?.activityType?.name);
    expect(activitiesOf('allow-then-skip')).toContain('startJobWorkflow');
    // A one-time schedule's only slot came with its start event (the SDK's first batch): no slot activity.
    expect(activitiesOf('one-time')).not.toContain('computeSlotBatch');
  });

  it('the recorded runs answered their updates while a hand-off was in flight', () => {
    const completedUpdates = (events: ReturnType<typeof decode>) =>
      events.filter((e) => e.workflowExecutionUpdateCompletedEventAttributes).length;
    // The edit is answered, then the run continues as new once the held hand-off finished.
    const edit = named('v0.3.0', 'draining-edit-continued');
    expect(completedUpdates(edit)).toBe(1);
    expect(edit.at(-1)?.workflowExecutionContinuedAsNewEventAttributes).toBeTruthy();
    // Cancel, then delete during the final wait; the run closes after the hand-off.
    const deleted = named('v0.3.0', 'draining-delete');
    expect(completedUpdates(deleted)).toBe(2);
    expect(deleted.at(-1)?.workflowExecutionCompletedEventAttributes).toBeTruthy();
  });
});

// v0.4.0 recorded the inert local starts of PATCHES.INERT_LOCAL_START.id, v0.4.2 the same rules under
// PATCHES.INERT_LOCAL_START_GUARDED.id (on again with the stale-clock guard): both must show them.
describe.each([
  ['v0.4.0', PATCHES.INERT_LOCAL_START.id],
  ['v0.4.2', PATCHES.INERT_LOCAL_START_GUARDED.id],
])('recorded histories of %s: inert local job starts (%s)', (release, patch) => {
  type Events = ReturnType<typeof decode>;
  const recorded = (name: string) => named(release, name);
  const localStarts = (events: Events) => events.filter(isLocalActivityMarker);
  const activityStarts = (events: Events) =>
    events.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'startJobWorkflow');

  it('v0.3.0 predates it; every history of the release carries it with the v0.3 patches', () => {
    for (const file of inRelease('v0.3.0')) expect(markerText(decode(file))).not.toContain(patch);
    for (const file of inRelease(release)) {
      const markers = markerText(decode(file));
      expect(markers).toContain(patch);
      expect(markers).toContain(PATCHES.NO_LOCAL_ACTIVITIES.id);
      // Asked first since v0.4.2: a run that has it never asks the switch-off of v0.4.1.
      if (release === 'v0.4.2') expect(markers).not.toContain(PATCHES.NO_INERT_LOCAL_START.id);
    }
  });

  it('a recurring ALLOW JOB fire starts its job locally; nothing else runs as a local activity', () => {
    // Hourly ALLOW: every scheduled fire is a local start, and no fire of it needs a second task.
    const allow = recorded('allow-then-skip');
    expect(localStarts(allow).length).toBeGreaterThanOrEqual(3);
    // A catch-up hands its backlog to regular activities and starts only a last fire that fits one pass
    // locally; a paused-then-edited run (handlers) mixes both, by the rules of PATCHES.INERT_LOCAL_START.id.
    expect(activityStarts(recorded('catch-up-first-run')).length).toBeGreaterThan(
      localStarts(recorded('catch-up-first-run')).length,
    );
    expect(localStarts(recorded('handlers')).length).toBeGreaterThan(0);
    expect(activityStarts(recorded('handlers')).length).toBeGreaterThan(0);
    // Schedules that watch their jobs (QUEUE, FIXED_DELAY), EVENT and finite ones never start locally.
    for (const name of ['overlap-queue', 'fixed-delay', 'one-time', 'deadline', 'draining-delete'])
      expect(localStarts(recorded(name))).toEqual([]);
    for (const file of inRelease(release)) {
      for (const marker of localStarts(decode(file))) {
        const text = markerText([marker]);
        expect(text).toContain('startJobWorkflow');
      }
    }
  });

  it('a local start wakes nothing: the task that starts it also arms the timer of the next slot', () => {
    // The commands a workflow task completed with follow its WorkflowTaskCompleted event; where one of
    // them is a local start's marker, a timer (the sleep to the next slot) is among them too, so the fire
    // cost one workflow task, not two. 'allow-then-skip' has one such task per scheduled fire.
    const isCommandEvent = (e: Events[number]) =>
      Boolean(
        e.markerRecordedEventAttributes ||
          e.timerStartedEventAttributes ||
          e.upsertWorkflowSearchAttributesEventAttributes ||
          e.workflowPropertiesModifiedEventAttributes,
      );
    let checked = 0;
    for (const file of inRelease(release)) {
      const events = decode(file);
      events.forEach((event, i) => {
        if (!isLocalActivityMarker(event)) return;
        let start = i;
        while (start > 0 && isCommandEvent(events[start - 1]!)) start--;
        let end = i;
        while (end < events.length && isCommandEvent(events[end]!)) end++;
        expect(events[start - 1]?.workflowTaskCompletedEventAttributes).toBeTruthy();
        const task = events.slice(start, end);
        expect(
          task.some((e) => e.timerStartedEventAttributes),
          `${basename(file)}: the task of event ${event.eventId} armed no timer`,
        ).toBe(true);
        checked++;
      });
    }
    expect(checked).toBeGreaterThanOrEqual(10);
  });
});

describe('recorded histories of the v0.4.1 patch: no inert local starts in new runs', () => {
  it('every v0.4.1 history carries the switch-off, not the v0.4 patch, and records no local activity', () => {
    for (const file of inRelease('v0.4.1')) {
      const events = decode(file);
      const markers = markerText(events);
      expect(markers, basename(file)).toContain(PATCHES.NO_INERT_LOCAL_START.id);
      expect(markers, basename(file)).toContain(PATCHES.NO_LOCAL_ACTIVITIES.id);
      // patched() short-circuits: a run that switched inert starts off never asked for them.
      expect(markers, basename(file)).not.toContain(PATCHES.INERT_LOCAL_START.id);
      expect(events.filter(isLocalActivityMarker), basename(file)).toEqual([]);
    }
    // A recurring ALLOW JOB fire starts its job from a regular activity again (two tasks per fire).
    const allow = named('v0.4.1', 'allow-then-skip');
    expect(
      allow.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'startJobWorkflow')
        .length,
    ).toBeGreaterThanOrEqual(3);
  });
});

describe('recorded histories of the v0.5 patch: targets bound to their tenant', () => {
  type Events = readonly HistoryEvent[];
  const childStarts = (events: Events) =>
    events.filter((e) => e.startChildWorkflowExecutionInitiatedEventAttributes);

  it("v0.4.2 predates it; every v0.5.0 history carries it, asked in the run's first task", () => {
    for (const file of inRelease('v0.4.2'))
      expect(markerText(decode(file))).not.toContain(PATCHES.TARGETS_BOUND.id);
    for (const file of inRelease('v0.5.0')) {
      const events = decode(file);
      expect(markerText(events), basename(file)).toContain(PATCHES.TARGETS_BOUND.id);
      const marker = events.findIndex((e) => markerText([e]).includes(PATCHES.TARGETS_BOUND.id));
      const firstTaskDone = events.findIndex((e) => e.workflowTaskCompletedEventAttributes);
      expect(marker, basename(file)).toBeGreaterThan(firstTaskDone);
      expect(
        events.slice(firstTaskDone + 1, marker).some((e) => e.workflowTaskCompletedEventAttributes),
        `${basename(file)}: the patch marker is not among the first task's commands`,
      ).toBe(false);
    }
  });

  it('a child JOB start is authorized first: refused, it starts nothing; allowed, the start follows', () => {
    const refused = named('v0.5.0', 'refused-child');
    expect(activities(refused, 'authorizeTarget').length).toBeGreaterThanOrEqual(2);
    expect(childStarts(refused)).toHaveLength(0);
    // QUEUE watches its jobs: every child start of the recording was authorized right before it.
    const queue = named('v0.5.0', 'overlap-queue');
    expect(childStarts(queue).length).toBeGreaterThan(0);
    expect(activities(queue, 'authorizeTarget').length).toBe(childStarts(queue).length);
  });

  it("a revoked schedule's queued occurrence is not started, and only the takeover update ends the revocation", () => {
    const events = named('v0.5.0', 'revoked-queue');
    const revokedAt = events.findIndex(
      (e) => e.workflowExecutionSignaledEventAttributes?.signalName === 'ownerRevoked',
    );
    const takeOver = events.findIndex(
      (e) => e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input?.name === 'takeOver',
    );
    expect(revokedAt).toBeGreaterThan(0);
    expect(takeOver).toBeGreaterThan(revokedAt);
    // Between the revocation and the takeover no job was started, though the running job ended and
    // slots queued behind it came due.
    expect(childStarts(events.slice(revokedAt, takeOver))).toHaveLength(0);
    expect(childStarts(events.slice(takeOver)).length).toBeGreaterThan(0);
  });
});

describe('recorded histories of the v0.5.1 patch: hand-offs bounded per schedule', () => {
  type Events = readonly HistoryEvent[];
  const handOffs = (events: Events) =>
    events.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'handOff');
  const chunks = (events: Events) => handOffsPerTask([events]);
  const json = (payload: { data?: Uint8Array | null } | undefined) =>
    JSON.parse(Buffer.from(payload?.data ?? []).toString('utf8'));

  it('v0.5.0 predates it; every v0.5.1 history carries it', () => {
    for (const file of inRelease('v0.5.0'))
      expect(markerText(decode(file))).not.toContain(PATCHES.BOUNDED_HANDOFFS.id);
    for (const file of inRelease('v0.5.1'))
      expect(markerText(decode(file)), basename(file)).toContain(PATCHES.BOUNDED_HANDOFFS.id);
  });

  it("a backfill goes out in chunks of the tenant's max_handoffs_in_flight (3): never more in one task", () => {
    const events = named('v0.5.1', 'bounded-backfill');
    expect(handOffs(events).length).toBeGreaterThanOrEqual(10);
    expect(chunks(events)[0]).toBe(3);
    expect(Math.max(...chunks(events))).toBeLessThanOrEqual(3);
  });

  it('occurrences waiting for room are not handed off once the schedule is cancelled or its owner revoked', () => {
    // 8 slots backfilled, 3 in flight when the cancel or the revocation came: the other 5 never went out.
    expect(handOffs(named('v0.5.1', 'bounded-cancel'))).toHaveLength(3);
    expect(handOffs(named('v0.5.1', 'bounded-revoked'))).toHaveLength(3);
  });

  it('a 60 KB payload: the run continues as new by history size, carrying the hand-offs still waiting', () => {
    const first = named('v0.5.1', 'bounded-large-first-run');
    expect(first.at(-1)?.workflowExecutionContinuedAsNewEventAttributes).toBeTruthy();
    const carried = json(first.at(-1)?.workflowExecutionContinuedAsNewEventAttributes?.input?.payloads?.[0]);
    expect(carried.state.awaitingHandoff.length).toBeGreaterThan(0);
    // The payload travels once per hand-off: in the envelope, not again in the target.
    const input = json(handOffs(first)[0]?.activityTaskScheduledEventAttributes?.input?.payloads?.[0]);
    expect(input.occurrence.payload.blob).toHaveLength(60_000);
    expect(input.target.payload).toBeUndefined();
    const last = named('v0.5.1', 'bounded-large-last-run');
    expect(handOffs(last).length).toBeGreaterThan(0);
    expect(Math.max(...chunks(first), ...chunks(last))).toBeLessThanOrEqual(3);
  });
});

describe('v0.5.2: the workflow split into modules (src/workflows/schedule/)', () => {
  // The same scenarios, recorded by the same scripts on the split code. They replay above against today's
  // code; the code before the split (7f446e7) replays them too, as today's replays v0.5.1: on every input
  // of both corpora the two emit the same commands. (Their event sequences are not equal event for event,
  // nor are two recordings by one release: the recorders' signals and activity completions race the
  // time-skipping clock.)
  it('every v0.5.1 scenario was recorded again', () => {
    expect(names('v0.5.2').sort()).toEqual(names('v0.5.1').sort());
  });
});

describe('recorded histories of the v0.6.0 patch: the tz horizon', () => {
  type Events = readonly HistoryEvent[];
  const slotBatches = (events: Events) =>
    events.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'computeSlotBatch');
  const updates = (events: Events, name: string) =>
    events.filter(
      (e) => e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input?.name === name,
    );
  const json = (payload: { data?: Uint8Array | null } | undefined) =>
    JSON.parse(Buffer.from(payload?.data ?? []).toString('utf8'));
  const batchResults = (events: Events) =>
    events
      .filter((e) => e.activityTaskCompletedEventAttributes)
      .map((e) => json(e.activityTaskCompletedEventAttributes?.result?.payloads?.[0]))
      .filter((r) => r && Array.isArray(r.slots));

  it('v0.5.2 predates it; every v0.6.0 history carries it', () => {
    for (const file of inRelease('v0.5.2'))
      expect(markerText(decode(file))).not.toContain(PATCHES.TZ_HORIZON.id);
    for (const file of inRelease('v0.6.0'))
      expect(markerText(decode(file)), basename(file)).toContain(PATCHES.TZ_HORIZON.id);
    expect(names('v0.6.0')).toEqual(expect.arrayContaining(names('v0.5.2')));
  });

  it('a recompute computes the buffer again with the new rules, recorded with their release', () => {
    const events = named('v0.6.0', 'tz-recompute');
    expect(updates(events, 'recompute')).toHaveLength(2);
    const releases = batchResults(events).map((r) => r.tz);
    expect(releases).toContain('2099a');
    expect(releases[0]).not.toBe('2099a');
  });

  it('left alone, the horizon recomputes the buffer a week after it was computed', () => {
    const events = named('v0.6.0', 'tz-horizon');
    expect(updates(events, 'recompute')).toHaveLength(0);
    expect(batchResults(events).map((r) => r.tz)).toContain('2099a');
  });

  it('a slot further than the horizon is computed again a horizon before it fires', () => {
    const events = named('v0.6.0', 'tz-sparse');
    // No batch activity at creation (the SDK computed the first), one a week before the slot.
    expect(slotBatches(events)).toHaveLength(1);
  });
});

describe('recorded histories of the v0.8.0 patch: armed hand-offs', () => {
  type Events = readonly HistoryEvent[];
  const ms = (e: HistoryEvent) =>
    Number(e.eventTime!.seconds) * 1000 + Math.floor((e.eventTime!.nanos ?? 0) / 1e6);
  const HOUR = 3_600_000;

  it('v0.6.0 predates it; every v0.8.0 history carries it, and every earlier scenario was recorded again', () => {
    for (const file of inRelease('v0.6.0'))
      expect(markerText(decode(file))).not.toContain(PATCHES.ARMED_HANDOFFS.id);
    for (const file of inRelease('v0.8.0'))
      expect(markerText(decode(file)), basename(file)).toContain(PATCHES.ARMED_HANDOFFS.id);
    expect(names('v0.8.0')).toEqual(expect.arrayContaining(names('v0.6.0')));
    expect(names('v0.8.0')).toEqual(expect.arrayContaining(['armed-hourly', 'armed-pause', 'armed-edit']));
  });

  it('an armed hourly schedule wakes only at its arming points, between the lead and half of it before a slot', () => {
    const events = named('v0.8.0', 'armed-hourly');
    const fired = events.filter((e) => e.timerFiredEventAttributes).map(ms);
    expect(fired.length).toBeGreaterThanOrEqual(3);
    for (const at of fired) {
      const ahead = Math.ceil(at / HOUR) * HOUR - at;
      expect(ahead).toBeGreaterThanOrEqual(60_000);
      expect(ahead).toBeLessThanOrEqual(120_000);
    }
    // One task per slot (each job started inertly in the task that arms it), one at creation, one at cancel.
    expect(tasks(events)).toBeLessThanOrEqual(jobStarts(events) + 2);
  });

  it('a frequent schedule arms several slots per task', () => {
    const events = named('v0.8.0', 'armed-frequent');
    expect(jobStarts(events)).toBeGreaterThanOrEqual(36);
    expect(tasks(events)).toBeLessThan(jobStarts(events));
  });

  it('a pause, an edit, a revocation and a cancel inside the lead each disarm the armed job', () => {
    for (const name of ['armed-pause', 'armed-edit', 'armed-revoked', 'armed-cancel'])
      expect(activities(named('v0.8.0', name), 'disarmJob'), name).toHaveLength(1);
  });

  it('an armed run continues as new carrying its lead and what it armed', () => {
    const first = named('v0.8.0', 'armed-continue-first-run');
    const continued = first.find((e) => e.workflowExecutionContinuedAsNewEventAttributes)!;
    const input = JSON.parse(
      Buffer.from(
        continued.workflowExecutionContinuedAsNewEventAttributes!.input!.payloads![0]!.data!,
      ).toString(),
    );
    expect(input.armLeadMs).toBe(120_000);
    expect(input.state.armed.length).toBeGreaterThan(0);
  });
});

describe('v0.10.0: new schedules born knowing every patch (SCHEDULE_WORKFLOW_TYPE)', () => {
  const typeOf = (events: readonly HistoryEvent[]) =>
    events[0]?.workflowExecutionStartedEventAttributes?.workflowType?.name;

  it('every scenario of 0.8 and 0.9 again, each of the new type, with no patch marker and no upsert beside one', () => {
    expect(names('v0.10.0')).toEqual(expect.arrayContaining([...names('v0.8.0'), ...names('v0.9.0')]));
    for (const file of inRelease('v0.10.0')) {
      const events = decode(file);
      expect(typeOf(events), file).toBe(SCHEDULE_WORKFLOW_TYPE);
      expect(patchMarkers(events), file).toEqual([]);
      expect(changeVersionUpserts(events), file).toEqual([]);
    }
  });

  it('0.9 and before recorded the first type, which asks the patches (a marker and an upsert each)', () => {
    for (const file of [...inRelease('v0.8.0'), ...inRelease('v0.9.0')]) {
      const events = decode(file);
      expect(typeOf(events), file).toBe(SCHEDULE_WORKFLOW_TYPE_V1);
      expect(patchMarkers(events).length, file).toBeGreaterThan(0);
      expect(changeVersionUpserts(events).length, file).toBe(patchMarkers(events).length);
    }
  });

  it('a run continues as its own type', () => {
    for (const [release, type] of [
      ['v0.8.0', SCHEDULE_WORKFLOW_TYPE_V1],
      ['v0.10.0', SCHEDULE_WORKFLOW_TYPE],
    ] as const) {
      const continued = named(release, 'edit-continue-first-run').find(
        (e) => e.workflowExecutionContinuedAsNewEventAttributes,
      );
      expect(continued?.workflowExecutionContinuedAsNewEventAttributes?.workflowType?.name).toBe(type);
      expect(typeOf(named(release, 'edit-continue-last-run'))).toBe(type);
    }
  });

  it('a schedule created asleep arms its first job with the commands of 0.9 less the markers and their upserts', () => {
    // What the first workflow task recorded: from its completion to the next task.
    const firstCommands = (events: readonly HistoryEvent[]) => {
      const done = events.findIndex((e) => e.workflowTaskCompletedEventAttributes);
      const next = events.findIndex((e, i) => i > done && e.workflowTaskScheduledEventAttributes);
      return events.slice(done + 1, next === -1 ? undefined : next);
    };
    const before = firstCommands(named('v0.9.0', 'asleep-armed'));
    const now = firstCommands(named('v0.10.0', 'asleep-armed'));
    expect(patchMarkers(before).length).toBeGreaterThanOrEqual(9);
    expect(now.length).toBe(
      before.length - patchMarkers(before).length - changeVersionUpserts(before).length,
    );
    expect(now.length).toBeLessThanOrEqual(before.length / 3);
  });
});

describe('v0.11.0: a run of the first type retires onto the second (PATCHES.RETIRE_ONTO_V2)', () => {
  const typeOf = (events: readonly HistoryEvent[]) =>
    events[0]?.workflowExecutionStartedEventAttributes?.workflowType?.name;
  const continuedAs = (events: readonly HistoryEvent[]) =>
    events.find((e) => e.workflowExecutionContinuedAsNewEventAttributes)
      ?.workflowExecutionContinuedAsNewEventAttributes?.workflowType?.name;

  it('every scenario of 0.10 again, and the first type continues as new as the second once', () => {
    expect(names('v0.11.0')).toEqual(expect.arrayContaining(names('v0.10.0')));
    const first = named('v0.11.0', 'retire-first-run');
    expect(typeOf(first)).toBe(SCHEDULE_WORKFLOW_TYPE_V1);
    expect(markerText(first)).toContain(PATCHES.RETIRE_ONTO_V2.id);
    expect(continuedAs(first)).toBe(SCHEDULE_WORKFLOW_TYPE);
    const last = named('v0.11.0', 'retire-last-run');
    expect(typeOf(last)).toBe(SCHEDULE_WORKFLOW_TYPE);
    expect(patchMarkers(last)).toEqual([]);
  });

  it('before 0.11 the same run continued as its own type: replayed, it still does', () => {
    expect(continuedAs(named('v0.10.0', 'catch-up-first-run'))).toBe(SCHEDULE_WORKFLOW_TYPE);
    expect(continuedAs(named('v0.8.0', 'catch-up-first-run'))).toBe(SCHEDULE_WORKFLOW_TYPE_V1);
    expect(markerText(named('v0.8.0', 'catch-up-first-run'))).not.toContain(PATCHES.RETIRE_ONTO_V2.id);
  });
});

describe('v0.11.0: armed ahead (armAheadMs), and armed jobs taken back by a recompute and by a policy change', () => {
  const runs = names('v0.11.0')
    .filter((n) => n.startsWith('armed-ahead-run-'))
    .sort((a, b) => Number(a.split('-').at(-1)) - Number(b.split('-').at(-1)))
    .map((n) => named('v0.11.0', n));
  const first = runs[0]!;
  const continuedInput = (events: readonly HistoryEvent[]) =>
    JSON.parse(
      Buffer.from(
        events.find((e) => e.workflowExecutionContinuedAsNewEventAttributes)!
          .workflowExecutionContinuedAsNewEventAttributes!.input!.payloads![0]!.data!,
      ).toString(),
    );

  it('arms several slots per task, and continues as new carrying its lead and how far it arms ahead', () => {
    expect(tasks(first)).toBeLessThan(jobStarts(first) * 0.6);
    const inputs = runs.slice(0, -1).map(continuedInput);
    for (const input of inputs) {
      expect(input.armLeadMs).toBe(120_000);
      expect(input.armAheadMs).toBe(600_000);
    }
    expect(inputs.some((input) => input.state.armed.length > 1)).toBe(true);
  });

  it('a recompute and a refusing policy each take armed jobs back, behind their patches', () => {
    expect(runs.length).toBeGreaterThanOrEqual(2);
    const markers = runs.map(markerText).join(' ');
    expect(markers).toContain(PATCHES.RECOMPUTE_DISARMS.id);
    expect(markers).toContain(PATCHES.POLICY_DISARMS.id);
    // pause, edit, recompute: several each; the policy change: the two it named.
    expect(runs.flatMap((events) => activities(events, 'disarmJob')).length).toBeGreaterThanOrEqual(8);
  });

  it('the schedules armed by 0.8 and 0.10 knew neither patch', () => {
    for (const release of ['v0.8.0', 'v0.10.0'])
      for (const name of names(release).filter((n) => n.startsWith('armed-'))) {
        expect(markerText(named(release, name)), name).not.toContain(PATCHES.RECOMPUTE_DISARMS.id);
        expect(markerText(named(release, name)), name).not.toContain(PATCHES.POLICY_DISARMS.id);
      }
  });
});

describe('v0.11.0: armed ahead in batches (PATCHES.BATCHED_ARMING)', () => {
  const runs = names('v0.11.0')
    .filter((n) => n.startsWith('armed-batched-run-'))
    .map((n) => named('v0.11.0', n));
  /** What each local start marker holds: the results of one batch (an array), or of one start. */
  const startMarkers = runs
    .flatMap((events) => events.filter(isLocalActivityMarker))
    .map((e) => markerText([e]))
    .filter((text) => text.includes('"workflowId":'));
  const startsIn = (text: string) => text.match(/"workflowId":/g)?.length ?? 0;

  it('the slots a pass arms are started by one activity, their results in one marker', () => {
    expect(runs.map(markerText).join(' ')).toContain(PATCHES.BATCHED_ARMING.id);
    const batches = startMarkers.filter((text) => text.trimStart().startsWith('['));
    expect(batches.some((text) => startsIn(text) >= 5)).toBe(true);
    // A pass that arms one slot (a re-arm after an edit) starts it alone; every other pass, in one batch.
    const alone = startMarkers.filter((text) => !text.trimStart().startsWith('['));
    const batched = batches.reduce((n, text) => n + startsIn(text), 0);
    expect(batched).toBeGreaterThan(5 * alone.length);
  });

  it('a recompute and a refusing policy take batched armed jobs back, as before', () => {
    const markers = runs.map(markerText).join(' ');
    expect(markers).toContain(PATCHES.RECOMPUTE_DISARMS.id);
    expect(markers).toContain(PATCHES.POLICY_DISARMS.id);
    expect(runs.flatMap((events) => activities(events, 'disarmJob')).length).toBeGreaterThanOrEqual(8);
  });

  it('the runs armed ahead before the batches never asked for them', () => {
    for (const name of names('v0.11.0').filter((n) => n.startsWith('armed-ahead-run-')))
      expect(markerText(named('v0.11.0', name)), name).not.toContain(PATCHES.BATCHED_ARMING.id);
  });
});

describe('v0.11.0: labels upserted as they change, and a JOB started with its own retry policy', () => {
  /** The SchedulerLabels values a history upserted, in order (null: cleared). */
  const labelUpserts = (events: readonly HistoryEvent[]) =>
    events.flatMap((e) => {
      const field =
        e.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields?.SchedulerLabels;
      if (!field) return [];
      const data = Buffer.from(field.data ?? []).toString('utf8');
      return [data === '' ? null : (JSON.parse(data) as string[] | null)];
    });

  it('a relabel upserts the tokens, a removal clears them, a new label sets them again', () => {
    const events = named('v0.11.0', 'labels');
    const started =
      events[0]!.workflowExecutionStartedEventAttributes?.searchAttributes?.indexedFields?.SchedulerLabels;
    expect(JSON.parse(Buffer.from(started?.data ?? []).toString('utf8'))).toEqual([
      'env',
      'env=prod',
      'team',
      'team=payments',
    ]);
    expect(labelUpserts(events)).toEqual([
      ['env', 'env=dev', 'team', 'team=payments'],
      null,
      ['team', 'team=shipping'],
    ]);
  });

  it("the child start carries the target's retry policy", () => {
    const child = named('v0.11.0', 'retried-job').find(
      (e) => e.startChildWorkflowExecutionInitiatedEventAttributes,
    )!.startChildWorkflowExecutionInitiatedEventAttributes!;
    expect(child.retryPolicy?.maximumAttempts).toBe(3);
    expect(Number(child.retryPolicy?.initialInterval?.seconds)).toBe(10);
    expect(child.retryPolicy?.backoffCoefficient).toBe(2);
  });
});

describe('v0.11.0: failure hooks (test/histories/record-hooks.ts)', () => {
  const json = (p: { data?: Uint8Array | null } | undefined) =>
    JSON.parse(Buffer.from(p?.data ?? []).toString('utf8'));

  it('two failed jobs send a FAILING notice and pause the schedule; the success after the resume sends RECOVERED', () => {
    const events = named('v0.11.0', 'failure-hooks');
    const notices = activities(events, 'notify').map(
      (e) => json(e.activityTaskScheduledEventAttributes?.input?.payloads?.[0]).notice,
    );
    expect(notices.map((n) => [n.kind, n.notice_id, n.consecutive_failures])).toEqual([
      ['FAILING', 'notice/acme/failure-hooks/failing/1', 2],
      ['RECOVERED', 'notice/acme/failure-hooks/recovered/1', 2],
    ]);
    expect(notices[0].failures).toHaveLength(2);
    // The hook's pause shows in the listing's status, as a user's would.
    const statuses = events.flatMap((e) => {
      const field =
        e.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields?.SchedulerStatus;
      return field ? [json(field)] : [];
    });
    expect(statuses.slice(0, 2)).toEqual(['PAUSED', 'ACTIVE']);
  });
});

describe('v0.11.0: payload overrides (test/histories/record-override.ts)', () => {
  it('each override run is started once, with the override, under an ID that says so', () => {
    const starts = activities(named('v0.11.0', 'payload-override'), 'startJobWorkflow').map(
      (e) =>
        JSON.parse(
          Buffer.from(e.activityTaskScheduledEventAttributes?.input?.payloads?.[0]?.data ?? []).toString(
            'utf8',
          ),
        ).occurrence,
    );
    const overridden = starts.filter((o) => o.override !== undefined);
    // Two triggers and a backfill of three slots; the same backfill again started nothing.
    expect(overridden).toHaveLength(5);
    expect(new Set(overridden.map((o) => o.occurrence_id)).size).toBe(5);
    for (const o of overridden) expect(o.occurrence_id.endsWith(`~override-${o.override}`)).toBe(true);
    expect(overridden.filter((o) => o.payload?.scope === 'full')).toHaveLength(4);
    expect(
      overridden.filter((o) => o.payload_ref === 'state://reindex/all' && o.payload === null),
    ).toHaveLength(1);
    for (const o of starts.filter((s) => s.override === undefined))
      expect(o.payload).toEqual({ scope: 'delta' });
  });
});

// The owner registry's histories (test/histories/record-owner-registry.ts): the same reports of two
// replicas, answered by 0.10.0's registry (which ignores generations) and by the patched one. The replay
// above replays both; here each recorded answer is checked against the rule its side of the patch selects,
// so a registry that started before the patch keeps the state its answers told.
describe('owner registry histories: report generations (OWNER_REGISTRY_PATCHES.GENERATIONS)', () => {
  const json = (p: { data?: Uint8Array | null } | undefined) =>
    JSON.parse(Buffer.from(p?.data ?? []).toString('utf8'));
  /** The reports in the order the registry answered them, with the answers it recorded. */
  const reports = (events: readonly HistoryEvent[]) => {
    const requests = events.flatMap((e) => {
      const payload =
        e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input?.args?.payloads?.[0];
      return payload ? [json(payload) as OwnerReconcileRequest] : [];
    });
    const answers = events.flatMap((e) => {
      const payload = e.workflowExecutionUpdateCompletedEventAttributes?.outcome?.success?.payloads?.[0];
      return payload ? [json(payload) as OwnerReconcileResult] : [];
    });
    expect(answers.length).toBe(requests.length);
    return requests.map((request, i) => ({ request, answer: answers[i]! }));
  };
  const answeredBy = (events: readonly HistoryEvent[], generations: boolean) => {
    let state: OwnerRegistryState = { known: [], revoked: [], reconciles: 0 };
    return reports(events).map(({ request }) => {
      const next = reconcileOwners(state, request, { generations });
      state = next.state;
      return next.result;
    });
  };
  const before = named('owner-registry', 'v0.10.0-generations-ignored');
  const patched = named('owner-registry', 'v0.11.0-generations');

  it('0.10.0 recorded no marker and took every report whole: the stale replica revoked dave', () => {
    expect(markerText(before)).not.toContain(OWNER_REGISTRY_PATCHES.GENERATIONS.id);
    const recorded = reports(before).map((r) => r.answer);
    expect(recorded[2]).toMatchObject({ newlyRevoked: ['acme/dave'] });
    expect(answeredBy(before, false)).toEqual(recorded);
    // What the patch's rule would have answered differs: replayed without the gate, the state would not be
    // the one these answers told.
    expect(answeredBy(before, true)).not.toEqual(recorded);
  });

  it('the patched registry recorded the marker: older reports were recorded and revoked nothing', () => {
    expect(markerText(patched)).toContain(OWNER_REGISTRY_PATCHES.GENERATIONS.id);
    const recorded = reports(patched);
    expect(recorded.map((r) => r.request.generation !== undefined)).toEqual([
      true,
      true,
      true,
      true,
      true,
      false,
    ]);
    expect(recorded[2]!.answer).toMatchObject({
      newlyRevoked: [],
      outdated: expect.stringMatching(/revokes nothing/),
    });
    expect(recorded[4]!.answer).toMatchObject({ revoked: ['acme/carol'], outdated: expect.any(String) });
    expect(answeredBy(patched, true)).toEqual(recorded.map((r) => r.answer));
  });
});
