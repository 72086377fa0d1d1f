// Crash test with real processes on the dev server (SPEC "Semantics": exactly one logical occurrence per
// slot, even under worker crashes). The scheduler worker and the job worker run in a separate OS process
// (test/fixtures/worker-process.ts) that is SIGKILLed at the worst moments of a handoff — for both ways a
// JOB is started: from a local activity, and as a child workflow — and replaced by a new one; what the targets really did is counted outside Temporal: a JOB appends a line to a file, an
// EVENT is POSTed to an HTTP sink in this process.
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { WorkflowNotFoundError } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import { afterEach, describe, expect, it } from 'vitest';
import type { Occurrence, ScheduleDescription } from '../../src/model/contracts.js';
import { scheduleWorkflowId } from '../../src/model/ids.js';
import { isLocalActivityMarker } from '../helpers/history.js';
import { retryTransient, TransientCounter } from '../helpers/transient.js';
import {
  eventually,
  groupBy,
  killHard,
  readRunLines,
  type Stack,
  startStack,
  startWorker,
  stopStack,
} from './support.js';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

const fired = (occurrences: Occurrence[]) => occurrences.filter((o) => o.emitted_at !== null);

/** One record per slot, on the schedule's grid with no gap: nothing lost, nothing twice. */
function expectContiguousGrid(occurrences: Occurrence[], everyMs: number) {
  const slots = occurrences.map((o) => Date.parse(o.scheduled_for)).sort((a, b) => a - b);
  expect(new Set(slots).size).toBe(slots.length);
  for (let i = 1; i < slots.length; i++) expect(slots[i]! - slots[i - 1]!).toBe(everyMs);
}

/**
 * The job-start results a schedule's history recorded for the job `workflowId`: a completed activity's
 * result, or a local activity's marker (v0.4's inert starts). A disarm's result names the job too, in its
 * detail: it is not a start.
 */
function startResultsMentioning(events: HistoryEvent[], workflowId: string): HistoryEvent[] {
  const text = `"workflowId":${JSON.stringify(workflowId)}`;
  return events.filter((e) =>
    [
      ...(e.activityTaskCompletedEventAttributes?.result?.payloads ?? []),
      ...Object.values(e.markerRecordedEventAttributes?.details ?? {}).flatMap((p) => p.payloads ?? []),
    ].some((p) =>
      Buffer.from(p.data ?? [])
        .toString('utf8')
        .includes(text),
    ),
  );
}

const localStartMarkers = (events: HistoryEvent[]) => events.filter(isLocalActivityMarker);

/** Lets `more` slots fire after the last restart, cancels, and waits until every started job closed. */
async function letRunThenCancel(stack: Stack, scheduleId: string, more = 3, slotMs = 3_000) {
  const { sdk, client } = stack;
  // Read right after the restart: the schedule's task may still sit with the killed worker (until its
  // timeout), so the read may outlast its deadline (UNAVAILABLE) once or twice; it is asked again.
  const transient = new TransientCounter();
  // Slots handed off whose instant passed: an armed one is emitted minutes before its instant (since 0.11
  // up to ARMED_AT_MOST of them), so it counts once its instant passed.
  const begun = (list: Occurrence[]) => fired(list).filter((o) => Date.parse(o.fire_at) <= Date.now());
  const firedBefore = begun(
    (await retryTransient('reads', transient, () => sdk.describe(scheduleId), 5)).recent_occurrences,
  ).length;
  if (transient.total() > 0) console.info(`[worker-crash ${scheduleId}] ${transient}`);
  await eventually(
    `${more} more slots after the last restart`,
    async () => {
      const d = await sdk.describe(scheduleId);
      return begun(d.recent_occurrences).length >= Math.max(firedBefore, 1) + more ? d : undefined;
    },
    60_000 + more * slotMs,
  );
  await sdk.cancel(scheduleId);
  // The schedule as it ended: the cancel answers as of the cancel, when the start of the latest slot may
  // still be in flight (DISPATCHING, a regular activity since 0.3); the run drains its hand-offs before it
  // closes and returns its final description.
  const final = (await client.workflow
    .getHandle(scheduleWorkflowId('acme', scheduleId))
    .result()) as ScheduleDescription;
  const occurrences = final.recent_occurrences;
  // Every started job finished (so every run line that will ever be written is written).
  await eventually(
    'all target workflows completed',
    async () => {
      for (const o of fired(occurrences)) {
        const { status } = await client.workflow.getHandle(o.occurrence_id).describe();
        if (status.name !== 'COMPLETED') return undefined;
      }
      return true;
    },
    60_000,
  );
  return { final, occurrences };
}

/**
 * The targets: exactly one workflow execution per occurrence ID, and it is the one that wrote the run
 * line(s). (A line with attempt > 1 is the job's own activity retried after a kill — at-least-once inside
 * the job, still one run of the target.) And the server holds no other target workflow for the schedule.
 */
async function expectOneRunPerOccurrence(
  stack: Stack,
  runLog: string,
  occurrences: Occurrence[],
  /** Occurrences whose armed job a disarm terminated before it began: listed, never run. */
  disarmed: Occurrence[] = [],
) {
  const { client } = stack;
  const lines = readRunLines(runLog);
  const byOccurrence = groupBy(lines, (l) => l.occurrence_id);
  expect([...byOccurrence.keys()].sort()).toEqual(occurrences.map((o) => o.occurrence_id).sort());
  for (const o of occurrences) {
    const runs = byOccurrence.get(o.occurrence_id)!;
    const { runId } = await client.workflow.getHandle(o.occurrence_id).describe();
    expect(new Set(runs.map((r) => r.run_id))).toEqual(new Set([runId]));
    // Each activity attempt writes at most one line (attempt 1 may have died with a worker unwritten).
    expect(new Set(runs.map((r) => r.attempt)).size).toBe(runs.length);
    expect(runs[0]!.scheduled_for).toBe(o.scheduled_for);
  }
  const scheduleId = occurrences[0]!.schedule_id;
  const listed = await eventually(
    'visibility to list the target workflows',
    async () => {
      const ids: string[] = [];
      for await (const wf of client.workflow.list({
        query: `WorkflowType = 'fileRecordedJob' AND SchedulerScheduleId = '${scheduleId}'`,
      }))
        ids.push(wf.workflowId);
      return ids.length >= occurrences.length + disarmed.length ? ids : undefined;
    },
    20_000,
  );
  expect(listed.sort()).toEqual([...occurrences, ...disarmed].map((o) => o.occurrence_id).sort());
  for (const o of disarmed)
    expect((await client.workflow.getHandle(o.occurrence_id).describe()).status.name).toBe('TERMINATED');
  return lines.length;
}

describe('worker process killed mid-handoff (dev server, real processes)', () => {
  let stack: Stack | undefined;
  let sink: Server | undefined;
  afterEach(async () => {
    sink?.closeAllConnections();
    sink?.close();
    sink = undefined;
    await stopStack(stack);
    stack = undefined;
  });

  /**
   * A recurring schedule with overlap ALLOW waits for no job: it starts each job from an activity that the
   * workflow task deciding the slot scheduled — a local activity of that task where nothing follows its
   * result (v0.4's inert start: the next slot at least 30 s away), a regular one otherwise. At the slot's
   * instant (`armLeadMs` 0), or armed ahead of it with a start delay (0.8; either kind of activity).
   */
  it.each([
    { how: 'an activity', every: 'PT2S', slotMs: 2_000, more: 3, local: false, armLeadMs: 0 },
    {
      how: 'a local activity (inert start)',
      every: 'PT60S',
      slotMs: 60_000,
      more: 2,
      local: true,
      armLeadMs: 0,
    },
    {
      how: 'an armed start',
      every: 'PT40S',
      slotMs: 40_000,
      more: 2,
      local: null,
      armLeadMs: 30_000,
      // Several slots armed per task (up to 90 s ahead): the kill lands among concurrent armings.
      armAheadMs: 90_000,
    },
  ])(
    'JOB started from $how: killed before the start and again after the job started; every slot ran exactly once',
    async ({ every, slotMs, more, local, armLeadMs, armAheadMs }) => {
      const scheduleId = armLeadMs > 0 ? 'crash-job-armed' : local ? 'crash-job-local' : 'crash-job';
      stack = await startStack(scheduleId, {}, { armLeadMs, ...(armAheadMs ? { armAheadMs } : {}) });
      const { sdk, client } = stack;
      const runLog = join(stack.dir, 'runs.jsonl');
      const base = { RUN_LOG: runLog, CRASH_PROBES: '1' };

      // Window 1: the schedule decided the slot and its activity is about to start the job.
      const w1 = await startWorker(stack, { ...base, CRASH_PAUSE_AT: 'beforeJobStart' });
      await sdk.create({
        schedule_id: scheduleId,
        target: { type: 'JOB', job_type: 'fileRecordedJob' },
        // The first slot 5 s after the create.
        timing: { kind: 'INTERVAL', every, anchor: new Date(Date.now() - slotMs + 5_000).toISOString() },
        max_lateness_s: 600, // every slot is on time however long recovery takes: all of them must run
      });
      // Where the probe paused: a local or a regular activity (an armed start may be either).
      const how = local === null ? '(?:local|activity)' : local ? 'local' : 'activity';
      await w1.waitFor(new RegExp(`paused beforeJobStart \\S+ ${how}`), 30_000);
      const decidedId = /paused beforeJobStart (\S+)/.exec(w1.output())![1]!;
      await killHard(w1);
      await expect(client.workflow.getHandle(decidedId).describe()).rejects.toBeInstanceOf(
        WorkflowNotFoundError,
      );

      // Window 2: the job started (the server has it), but the activity that started it has not answered:
      // the worker dies before the schedule recorded the hand-off.
      const w2 = await startWorker(stack, { ...base, CRASH_PAUSE_AT: 'jobStarted' });
      await w2.waitFor(new RegExp(`paused jobStarted \\S+ ${how}`), 60_000);
      const startedId = /paused jobStarted (\S+)/.exec(w2.output())![1]!;
      await killHard(w2);
      expect((await client.workflow.getHandle(startedId).describe()).workflowId).toBe(startedId);
      const schedule = client.workflow.getHandle(scheduleWorkflowId('acme', scheduleId));
      const events = (await schedule.fetchHistory()).events ?? [];
      // The schedule's history holds no record of that start: the kill landed inside the window. (A local
      // activity's decision is not recorded either: the task that ran it never completed.)
      const starts = events.filter(
        (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'startJobWorkflow',
      );
      if (local === false) expect(starts.length).toBeGreaterThan(0); // the decisions are recorded, not the result
      expect(startResultsMentioning(events, startedId)).toEqual([]);
      expect(events.some((e) => e.startChildWorkflowExecutionInitiatedEventAttributes)).toBe(false);

      // A third process takes over: it decides the slot again and starts `startedId` with the same request
      // ID, and is answered with the run already started, not a second run.
      const w3 = await startWorker(stack, base);
      // Armed ahead, the job started in the window may be slots away: the run goes on until it began.
      const startedAt = Date.parse(startedId.slice(startedId.lastIndexOf('/') + 1));
      const slotsUntilStarted = Math.ceil((startedAt - Date.now()) / slotMs) + 1;
      const { occurrences, final } = await letRunThenCancel(
        stack,
        scheduleId,
        Math.max(more, slotsUntilStarted),
        slotMs,
      );
      expect(w3.child.exitCode).toBeNull(); // the last worker stayed up throughout
      const history = (await schedule.fetchHistory()).events ?? [];
      expect(startResultsMentioning(history, startedId)).toHaveLength(1);
      // Slots 60 s apart start their jobs locally once the schedule runs on time again; 2 s apart, never.
      if (local === true) expect(localStartMarkers(history).length).toBeGreaterThanOrEqual(more - 1);
      if (local === false) expect(localStartMarkers(history)).toEqual([]);

      // The schedule: one occurrence per slot of the grid, every one handed off once; the cancel took back
      // (CANCELLED, never emitted) an armed job that had not begun.
      expectContiguousGrid(occurrences, slotMs);
      const handedOff = fired(occurrences);
      expect(handedOff.every((o) => o.status === 'HANDED_OFF')).toBe(true);
      expect(occurrences.filter((o) => o.emitted_at === null).every((o) => o.status === 'CANCELLED')).toBe(
        true,
      );
      if (armLeadMs === 0) expect(handedOff).toEqual(occurrences);
      expect(final.counters.fired).toBe(handedOff.length);
      expect(final.counters.duplicates_prevented).toBe(0); // the retried start was recognised as this one
      expect(handedOff.map((o) => o.occurrence_id)).toContain(decidedId);
      expect(handedOff.map((o) => o.occurrence_id)).toContain(startedId);
      const takenBack = occurrences.filter((o) => o.emitted_at === null);
      const lines = await expectOneRunPerOccurrence(stack, runLog, handedOff, takenBack);
      if (armLeadMs > 0) {
        // Each job began at its slot's instant or after it, never before.
        for (const o of handedOff) {
          const job = await client.workflow.getHandle(o.occurrence_id).describe();
          expect(job.executionTime!.getTime()).toBeGreaterThanOrEqual(Date.parse(o.fire_at) - 1000);
        }
      }
      console.info(
        `[worker-crash JOB ${armLeadMs > 0 ? 'armed ' : local ? 'local ' : ''}activity] ${occurrences.length} slots, ${lines} run lines, ${localStartMarkers(history).length} local starts; kill 1 before ${decidedId}'s start, kill 2 after ${startedId} started`,
      );
    },
    420_000,
  );

  /**
   * A schedule that needs its jobs' completion (here overlap QUEUE) starts each as a child workflow: the
   * start is a command of the workflow task that decided the slot.
   */
  it('JOB started as a child: killed after deciding a slot and again after its child started; every slot ran exactly once', async () => {
    stack = await startStack('crash-child');
    const { sdk, client } = stack;
    const runLog = join(stack.dir, 'runs.jsonl');
    const base = { RUN_LOG: runLog, CRASH_PROBES: '1' };

    // Window 1: the schedule decided the slot and is about to command the child's start; the workflow
    // task that carries the command is held open, so the decision is not yet in the server's history.
    const w1 = await startWorker(stack, { ...base, CRASH_PAUSE_AT: 'beforeChildStart' });
    await sdk.create({
      schedule_id: 'crash-child',
      target: { type: 'JOB', job_type: 'fileRecordedJob' },
      timing: { kind: 'INTERVAL', every: 'PT2S' },
      overlap: 'QUEUE',
      queue_limit: 1000, // slots due during an outage wait their turn: none is skipped as "queue full"
      max_lateness_s: 600,
    });
    await w1.waitFor(/paused beforeChildStart \S+/, 30_000);
    const decidedId = /paused beforeChildStart (\S+)/.exec(w1.output())![1]!;
    await killHard(w1);
    await expect(client.workflow.getHandle(decidedId).describe()).rejects.toBeInstanceOf(
      WorkflowNotFoundError,
    );

    // Window 2: the child started (the server recorded it in the schedule's history), but the schedule's
    // workflow task that sees the start is held open: the worker dies before the schedule recorded it.
    const w2 = await startWorker(stack, { ...base, CRASH_PAUSE_AT: 'childStarted' });
    await w2.waitFor(/paused childStarted \S+/, 60_000);
    const startedId = /paused childStarted (\S+)/.exec(w2.output())![1]!;
    await killHard(w2);
    expect((await client.workflow.getHandle(startedId).describe()).workflowId).toBe(startedId);
    const schedule = client.workflow.getHandle(scheduleWorkflowId('acme', 'crash-child'));
    const events = (await schedule.fetchHistory()).events ?? [];
    const startedAt = events.findIndex(
      (e) => e.childWorkflowExecutionStartedEventAttributes?.workflowExecution?.workflowId === startedId,
    );
    expect(startedAt).toBeGreaterThan(0);
    // Nothing after the child's start was completed by a worker: the kill landed inside the window.
    expect(events.slice(startedAt).some((e) => e.workflowTaskCompletedEventAttributes)).toBe(false);

    const w3 = await startWorker(stack, base);
    const { occurrences, final } = await letRunThenCancel(stack, 'crash-child');
    expect(w3.child.exitCode).toBeNull();

    // One record per slot of the 2 s grid; each fired one ran (COMPLETED, or still RUNNING when the
    // schedule was cancelled); the ones still queued at the cancel were cancelled, never started.
    expectContiguousGrid(occurrences, 2000);
    const ran = fired(occurrences);
    expect(
      ran
        .filter((o) => o.status !== 'COMPLETED' && o.status !== 'RUNNING')
        .map((o) => `${o.occurrence_id} ${o.status} ${o.reason}`),
    ).toEqual([]);
    expect(occurrences.filter((o) => o.emitted_at === null).every((o) => o.status === 'CANCELLED')).toBe(
      true,
    );
    expect(final.counters.fired).toBe(ran.length);
    expect(final.counters.duplicates_prevented).toBe(0); // the replayed start was recorded, never re-issued
    expect(ran.map((o) => o.occurrence_id)).toContain(decidedId);
    expect(ran.map((o) => o.occurrence_id)).toContain(startedId);
    const lines = await expectOneRunPerOccurrence(stack, runLog, ran);
    console.info(
      `[worker-crash JOB child] ${occurrences.length} slots, ${lines} run lines; kill 1 before ${decidedId}'s start was recorded, kill 2 after ${startedId} started`,
    );
  });

  it('EVENT: killed while the sink holds the POST; the retry carries the same id and Idempotency-Key', async () => {
    stack = await startStack('crash-event');
    const { sdk } = stack;

    interface Delivery {
      id: string;
      key: string | undefined;
      scheduledFor: string;
      at: number;
    }
    const deliveries: Delivery[] = [];
    let held: ServerResponse | undefined;
    let onHeld: (() => void) | undefined;
    const heldReached = new Promise<void>((resolve) => {
      onHeld = resolve;
    });
    sink = createServer(async (req: IncomingMessage, res: ServerResponse) => {
      let body = '';
      for await (const chunk of req) body += chunk;
      const event = JSON.parse(body) as { id: string; data: { scheduled_for: string } };
      const key = req.headers['idempotency-key'];
      deliveries.push({
        id: event.id,
        key: Array.isArray(key) ? key.join(',') : key,
        scheduledFor: event.data.scheduled_for,
        at: Date.now(),
      });
      if (!held) {
        held = res; // received, never answered: the activity is still running when its worker dies
        onHeld!();
        return;
      }
      res.writeHead(200).end();
    });
    sink.listen(0, '127.0.0.1');
    await once(sink, 'listening');
    const sinkUrl = `http://127.0.0.1:${(sink.address() as AddressInfo).port}/events`;

    const w1 = await startWorker(stack);
    await sdk.create({
      schedule_id: 'crash-event',
      target: { type: 'EVENT', event_type: 'test.tick', sink_url: sinkUrl },
      timing: { kind: 'INTERVAL', every: 'PT3S' },
      max_lateness_s: 600,
    });
    await heldReached;
    const killedAt = await killHard(w1);
    const heldId = deliveries[0]!.id;
    await startWorker(stack);

    // The handOff activity of the dead worker is retried when its start-to-close timeout expires.
    const redelivered = await eventually(
      'the held event to be delivered again',
      async () => deliveries.slice(1).find((d) => d.id === heldId),
      120_000,
    );
    const handedOff = await eventually(
      'the held occurrence to be recorded as handed off',
      async () => {
        const d = await sdk.describe('crash-event');
        const occ = d.recent_occurrences.find((o) => o.occurrence_id === heldId);
        return occ?.status === 'HANDED_OFF' ? occ : undefined;
      },
      30_000,
    );
    const final = await sdk.cancel('crash-event');
    const { recent_occurrences: occurrences } = await eventually(
      'no handoff in flight',
      async () => {
        const d = await sdk.describe('crash-event');
        return d.recent_occurrences.every((o) => o.status !== 'DISPATCHING') ? d : undefined;
      },
      30_000,
    );

    // Logically once: every delivery of a slot carries that slot's occurrence ID and idempotency key.
    const byId = groupBy(deliveries, (d) => d.id);
    expect([...byId.keys()].sort()).toEqual(occurrences.map((o) => o.occurrence_id).sort());
    for (const o of occurrences) {
      for (const d of byId.get(o.occurrence_id)!) {
        expect(d.key).toBe(o.idempotency_key);
        expect(d.scheduledFor).toBe(o.scheduled_for);
      }
    }
    expect(handedOff.idempotency_key).toBe(
      `schedule:crash-event:${new Date(handedOff.scheduled_for).toISOString()}`,
    );
    expect(byId.get(heldId)!.length).toBeGreaterThanOrEqual(2);
    expect(handedOff.attempt).toBeGreaterThanOrEqual(2);
    // Only the held slot was delivered more than once.
    for (const [id, list] of byId) if (id !== heldId) expect(list).toHaveLength(1);
    // The schedule: one occurrence per slot of the 3 s grid, all handed off.
    expectContiguousGrid(occurrences, 3000);
    expect(occurrences.every((o) => o.status === 'HANDED_OFF')).toBe(true);
    expect(final.counters.duplicates_prevented).toBe(0);
    console.info(
      `[worker-crash EVENT] ${occurrences.length} slots, ${deliveries.length} deliveries; the held event was redelivered ${Math.round((redelivered.at - killedAt) / 100) / 10} s after the kill (attempt ${handedOff.attempt})`,
    );
    held?.destroy();
  });
});
