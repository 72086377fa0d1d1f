// Racing edits through several API processes (issue 10; SPEC "Races": an edit while due is versioned, a
// conflict is an error and never a lost update, every occurrence records the version that produced it).
// Real product processes on one dev server: three `SCHEDULER_ROLE=api` processes on their own ports and
// one `SCHEDULER_ROLE=worker`. Schedules fire every 2 s to an EVENT sink in this process while clients on
// all three APIs PATCH, pause/resume, trigger and backfill the same schedules at once. Each PATCH puts a
// unique tag into the target's payload, so every delivered CloudEvent says which definition produced it.
import { join } from 'node:path';
import { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../../scripts/toolchain.mjs';
import type { Occurrence, Schedule, ScheduleDescription } from '../../src/model/contracts.js';
import { scheduleWorkflowId } from '../../src/model/ids.js';
import { freePort } from '../../src/runtime/ports.js';
import { schedulerReplayOptions } from '../../src/worker.js';
import { type Spawned, spawnProcess } from '../helpers/process.js';
import { tempDir } from '../helpers/servers.js';
import { OPEN_TARGETS, writeTenantsFile } from '../helpers/tenants.js';
import { retryTransient, settleAll, TransientCounter } from '../helpers/transient.js';
import { type FaultSink, startFaultSink } from './fault-sink.js';
import { eventually, groupBy, killHard, type Stack, startStack, stopStack } from './support.js';

const KEY = 'race-key-0123456789abcdef';
const IDS = ['race-a', 'race-b', 'race-c'];
const RACE_MS = 25_000;
/**
 * Past RACE_MS the race goes on, up to this, until it did what the assertions below need done while racing
 * (applied and refused edits on every schedule, a pause/resume): a slow machine does fewer calls per second.
 */
const RACE_MAX_MS = 90_000;
const MIN_APPLIED_PER_SCHEDULE = 3;
const CLIENTS_PER_API = 2;
/** Workflow time and this process's clock are the same machine's clock; this covers rounding only. */
const CLOCK_SLACK_MS = 250;

interface Edit {
  scheduleId: string;
  tag: string;
  expected: number;
  startedAt: number;
  answeredAt: number;
  status: number;
  /** The problem's code, when not applied (VERSION_CONFLICT, UNAVAILABLE…). */
  code?: string;
  version?: number;
  currentVersion?: number;
}

/**
 * An edit the API answered 503 UNAVAILABLE: it ran out of its deadline waiting for Temporal or the worker (a
 * loaded machine), and its update may or may not have been applied, after the answer too. The API says to
 * retry (read the version again); the test cannot know, so such an edit is accounted as either.
 */
const unanswered = (e: Edit) => e.status === 503 && e.code === 'UNAVAILABLE';

function startProduct(role: 'api' | 'worker', address: string, port: number): Spawned {
  return spawnProcess(
    process.execPath,
    ['--import', 'tsx', join(repoRoot, 'src/main.ts')],
    {
      ...process.env,
      SCHEDULER_ROLE: role,
      TEMPORAL_ADDRESS: address,
      SCHEDULER_API_PORT: String(port),
      SCHEDULER_API_KEYS: `${KEY}=acme:ops`,
      SCHEDULER_TENANTS_FILE: writeTenantsFile(tempDir(`race-policy-${role}`), { acme: OPEN_TARGETS }),
      SCHEDULER_API_RATE_LIMIT: '100000',
      SCHEDULER_DATA_DIR: tempDir(`race-${role}`),
      SCHEDULER_LOG_LEVEL: 'error',
    },
    repoRoot,
  );
}

async function call(port: number, method: string, path: string, body?: unknown) {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${KEY}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

const pick = <T>(items: T[]) => items[Math.floor(Math.random() * items.length)]!;

/**
 * A GET: a 503 UNAVAILABLE (the worker did not answer within the API's deadline, a loaded machine) is asked
 * again; any other answer is returned. A read changes nothing, so asking again is always safe.
 */
const read = (port: number, path: string, transient: TransientCounter) =>
  retryTransient('GETs answered 503 UNAVAILABLE', transient, async () => {
    const res = await call(port, 'GET', path);
    if (res.status === 503 && (res.body as { code?: string } | null)?.code === 'UNAVAILABLE')
      throw Object.assign(new Error(`GET ${path}: 503 UNAVAILABLE`), { code: 'UNAVAILABLE' });
    return res;
  });

/** A GET that must answer 200. */
async function readOk(port: number, path: string, transient: TransientCounter) {
  const res = await read(port, path, transient);
  if (res.status !== 200) throw new Error(`GET ${path} answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res;
}

describe('edits racing with due slots from three API processes (real product processes)', () => {
  let stack: Stack;
  let sink: FaultSink;
  const processes: Spawned[] = [];
  const ports: number[] = [];
  const edits: Edit[] = [];
  const otherCalls = new Map<string, (number | 'UNAVAILABLE')[]>();
  const finalVersion = new Map<string, number>();
  const occurrences = new Map<string, Occurrence[]>();
  /** What each cancel answered: the schedule as the cancel left it (`updated_at`: the cancel's instant). */
  const cancelAnswers = new Map<string, Schedule>();
  /** Each schedule read again once the sink settled after the cancels. */
  const settled = new Map<string, { status: number; body: ScheduleDescription }>();
  /** Why each raced history does not replay; null when it does. */
  const replayFailures = new Map<string, string | null>();
  const transient = new TransientCounter();

  beforeAll(async () => {
    stack = await startStack('races');
    sink = await startFaultSink();
    for (let i = 0; i < 3; i++) ports.push(await freePort());
    processes.push(startProduct('worker', stack.server.address, await freePort()));
    for (const port of ports) processes.push(startProduct('api', stack.server.address, port));
    await Promise.all(processes.map((p) => p.waitFor(/ready; Ctrl-C stops everything/, 150_000)));

    const targetFor = (id: string, tag: string) => ({
      type: 'EVENT',
      event_type: 'race.tick',
      sink_url: sink.url(`/${id}`),
      payload: { tag },
    });
    for (const id of IDS) {
      const created = await call(ports[0]!, 'POST', '/v1/schedules', {
        schedule_id: id,
        target: targetFor(id, 'v1'),
        timing: { kind: 'INTERVAL', every: 'PT2S' },
        misfire: 'CATCH_UP',
        max_lateness_s: 3600,
      });
      expect(created.status).toBe(201);
    }

    // The race: every client loops over random operations on random schedules until the time is up and
    // the race did what the assertions need (or RACE_MAX_MS passed); a client that fails stops them all.
    let n = 0;
    let failed = false;
    const raceStart = Date.now();
    const raceDone = () => {
      const elapsed = Date.now() - raceStart;
      if (failed || elapsed >= RACE_MAX_MS) return true;
      if (elapsed < RACE_MS) return false;
      const applied = (id: string) => edits.filter((e) => e.scheduleId === id && e.status === 200).length;
      return (
        IDS.every((id) => applied(id) >= MIN_APPLIED_PER_SCHEDULE) &&
        edits.some((e) => e.status === 409) &&
        (otherCalls.get('pause-resume') ?? []).includes(200)
      );
    };
    const clientLoop = async (port: number) => {
      while (!raceDone()) {
        const id = pick(IDS);
        const op = pick(['patch', 'patch', 'patch', 'stale-patch', 'pause-resume', 'trigger', 'backfill']);
        const count = (res: { status: number; body: unknown }) => {
          // A pause or resume is a signal, then reads until it shows: a 503 UNAVAILABLE says the signal was
          // sent but the read ran out of its deadline (the worker busy: a loaded CI machine), and to retry.
          const unavailable =
            res.status === 503 && (res.body as { code?: string } | null)?.code === 'UNAVAILABLE';
          otherCalls.set(op, [...(otherCalls.get(op) ?? []), unavailable ? 'UNAVAILABLE' : res.status]);
          if (res.status !== 200)
            console.info(`[api-races] ${op} ${id}: ${res.status} ${JSON.stringify(res.body)}`);
        };
        if (op === 'patch' || op === 'stale-patch') {
          const current = (await readOk(port, `/v1/schedules/${id}`, transient)).body.version as number;
          // A stale one is based on the version before (there is none before version 1).
          const expected = op === 'stale-patch' && current > 1 ? current - 1 : current;
          const tag = `t${++n}-${port}`;
          const startedAt = Date.now();
          const res = await call(port, 'PATCH', `/v1/schedules/${id}`, {
            expected_version: expected,
            target: targetFor(id, tag),
          });
          edits.push({
            scheduleId: id,
            tag,
            expected,
            startedAt,
            answeredAt: Date.now(),
            status: res.status,
            ...(res.status === 200 ? { version: res.body.version } : { code: res.body?.code }),
            ...(res.status === 409 ? { currentVersion: res.body.current_version } : {}),
          });
        } else if (op === 'pause-resume') {
          count(await call(port, 'POST', `/v1/schedules/${id}/pause`, { note: 'race' }));
          count(await call(port, 'POST', `/v1/schedules/${id}/resume`, {}));
        } else if (op === 'trigger') {
          count(await call(port, 'POST', `/v1/schedules/${id}/trigger`, { reason: 'race' }));
        } else {
          const now = Date.now();
          const res = await call(port, 'POST', `/v1/schedules/${id}/backfill`, {
            from: new Date(now - 20_000).toISOString(),
            to: new Date(now - 5_000).toISOString(),
          });
          count(res);
        }
      }
    };
    const client = async (port: number) => {
      try {
        await clientLoop(port);
      } catch (err) {
        failed = true;
        throw err;
      }
    };
    await settleAll(ports.flatMap((port) => Array.from({ length: CLIENTS_PER_API }, () => client(port))));
    const raceMs = Date.now() - raceStart;

    // What each schedule recorded, read while it is still running: once no hand-off is in flight.
    for (const id of IDS) {
      const d = await eventually(
        `${id}: no hand-off in flight`,
        async () => {
          const r = await call(ports[0]!, 'GET', `/v1/schedules/${id}/describe`);
          if (r.status !== 200) throw new Error(`describe answered ${r.status}: ${JSON.stringify(r.body)}`);
          return r.body.recent_occurrences.every((o: Occurrence) => o.status !== 'DISPATCHING')
            ? (r.body as ScheduleDescription)
            : undefined;
        },
        60_000,
        100,
      );
      occurrences.set(id, d.recent_occurrences);
      // The occurrence list shows each occurrence's version too.
      const listed = await read(ports[1]!, `/v1/schedules/${id}/occurrences?limit=100`, transient);
      expect(listed.status).toBe(200);
      for (const o of listed.body.items as Occurrence[]) {
        const seen = d.recent_occurrences.find((x) => x.occurrence_id === o.occurrence_id);
        if (seen) expect(o.schedule_version).toBe(seen.schedule_version);
      }
    }

    // Then each schedule is cancelled from one API while the other two still PATCH it: an edit is either
    // applied before the cancel (and counted in the version the cancel answers with) or refused.
    await settleAll(
      IDS.map(async (id, i) => {
        const version = (await readOk(ports[i]!, `/v1/schedules/${id}`, transient)).body.version as number;
        const patch = async (port: number, tag: string) => {
          const startedAt = Date.now();
          const res = await call(port, 'PATCH', `/v1/schedules/${id}`, {
            expected_version: version,
            target: targetFor(id, tag),
          });
          edits.push({
            scheduleId: id,
            tag,
            expected: version,
            startedAt,
            answeredAt: Date.now(),
            status: res.status,
            ...(res.status === 200 ? { version: res.body.version } : { code: res.body?.code }),
            ...(res.status === 409 ? { currentVersion: res.body.current_version } : {}),
          });
        };
        const cancelling = call(ports[i]!, 'POST', `/v1/schedules/${id}/cancel`, {});
        await settleAll([
          cancelling,
          patch(ports[(i + 1) % 3]!, `final-${id}-1`),
          patch(ports[(i + 2) % 3]!, `final-${id}-2`),
        ]);
        const cancel = await cancelling;
        expect(cancel.status).toBe(200);
        expect(cancel.body.status).toBe('CANCELLED');
        cancelAnswers.set(id, cancel.body as Schedule);
        finalVersion.set(id, cancel.body.version);
      }),
    );
    await new Promise((r) => setTimeout(r, 3000)); // anything still to arrive at the sink arrives
    for (const id of IDS) {
      const history = await stack.client.workflow.getHandle(scheduleWorkflowId('acme', id)).fetchHistory();
      const failure = await Worker.runReplayHistory(schedulerReplayOptions, history, id).then(
        () => null,
        (err: Error) => err.message.slice(0, 300),
      );
      replayFailures.set(id, failure);
      console.info(`[api-races] ${id}: ${history.events?.length} events, ${failure ?? 'replays'}`);
      // A closed schedule is read by replaying its history, on the worker this time.
      settled.set(id, await read(ports[2]!, `/v1/schedules/${id}/describe`, transient));
    }
    const ok = edits.filter((e) => e.status === 200).length;
    const unansweredEdits = edits.filter(unanswered).length;
    console.info(
      `[api-races] race ${Math.round(raceMs / 1000)} s: ${edits.length} PATCHes (${ok} applied, ${edits.filter((e) => e.status === 409).length} conflicts, ${unansweredEdits} answered 503 UNAVAILABLE), other calls ${JSON.stringify(Object.fromEntries([...otherCalls].map(([k, v]) => [k, v.length])))}, ${sink.deliveries.length} deliveries; final versions ${JSON.stringify(Object.fromEntries(finalVersion))}, edits racing the cancels ${edits
        .filter((e) => e.tag.startsWith('final-'))
        .map((e) => `${e.status}${e.code ? ` ${e.code}` : ''}`)
        .join(', ')}; ${transient}`,
    );
  }, 400_000);

  afterAll(async () => {
    for (const p of processes) await killHard(p);
    await sink?.close();
    await stopStack(stack);
  });

  it('no version lost: every version after 1 was made by an edit, each applied edit made its own version', () => {
    for (const id of IDS) {
      const mine = edits.filter((e) => e.scheduleId === id);
      const applied = mine.filter((e) => e.status === 200);
      expect(applied.length).toBeGreaterThanOrEqual(MIN_APPLIED_PER_SCHEDULE);
      const final = finalVersion.get(id)!;
      // An edit applies only on the version it expected and makes the next one: the applied edits were
      // based on different versions, each before the final one.
      const bases = applied.map((e) => e.expected).sort((a, b) => a - b);
      expect(new Set(bases).size).toBe(bases.length);
      expect(bases.filter((b) => b < 1 || b >= final)).toEqual([]);
      // And every version 2 … final was made by one: an applied edit, or else one answered 503 UNAVAILABLE
      // based on the version before (which must exist). With no unanswered edit this is: the applied edits
      // were based on 1, 2, … final-1, and the final version is 1 + the applied edits.
      const madeByNoEdit = Array.from({ length: final - 1 }, (_, i) => i + 2).filter(
        (v) => !bases.includes(v - 1) && !mine.some((e) => unanswered(e) && e.expected === v - 1),
      );
      expect(madeByNoEdit).toEqual([]);
      // The PATCH answer is the schedule as this edit left it: exactly the version the edit made, even
      // when another edit landed before the answer (before 0.3 it was a read after the write).
      for (const e of applied) expect(e.version).toBe(e.expected + 1);
    }
  });

  it('every refused edit is a 409 that carries the current version, newer than the one it expected', () => {
    // (An edit answered 503 UNAVAILABLE is neither applied nor refused as far as the test knows: it is
    // accounted for above.)
    const refused = edits.filter((e) => e.status !== 200 && !unanswered(e) && !e.tag.startsWith('final-'));
    expect(refused.length).toBeGreaterThan(0);
    for (const e of refused) {
      expect(e.status).toBe(409);
      expect(e.currentVersion).toBeGreaterThan(e.expected);
    }
    // Pause/resume, trigger and backfill all succeeded while racing (none is versioned); a pause or
    // resume may instead ask to be retried (its signal was sent, its read timed out), never fail otherwise.
    for (const [op, statuses] of otherCalls)
      expect(
        statuses.every((s) => s === 200 || (op === 'pause-resume' && s === 'UNAVAILABLE')),
        `${op}: ${JSON.stringify(statuses.filter((s) => s !== 200))}`,
      ).toBe(true);
    expect(otherCalls.get('pause-resume')?.filter((s) => s === 200).length ?? 0).toBeGreaterThan(0);
  });

  it('every raced history replays with today’s code', () => {
    // The history of test/unit/replay-known-nondeterminism.test.ts (local activities, before 0.3) does
    // not; since 0.3 none may.
    expect(Object.fromEntries(replayFailures)).toEqual(Object.fromEntries(IDS.map((id) => [id, null])));
  });

  it('an edit racing the cancel is applied before it or refused with 409', () => {
    // A PATCH that lands after the cancel reads the closed schedule, which replays its history: that
    // replays (above), so no such read fails, and no edit is answered 500.
    const final = edits.filter((x) => x.tag.startsWith('final-'));
    expect(final).toHaveLength(2 * IDS.length);
    for (const e of final.filter((x) => !unanswered(x)))
      expect([200, 409], `${e.tag}: ${e.status} ${e.code ?? ''}`).toContain(e.status);
  });

  it('every occurrence carries a version that existed when it was emitted, and that version’s definition', () => {
    for (const id of IDS) {
      // The edit that made version v is the applied one that expected v - 1; where none did, one of those
      // answered 503 UNAVAILABLE that expected v - 1 (which one, the test cannot know).
      const mine = edits.filter((e) => e.scheduleId === id);
      const makersOf = (v: number): Edit[] => {
        const applied = mine.filter((e) => e.status === 200 && e.expected === v - 1);
        return applied.length > 0 ? applied : mine.filter((e) => unanswered(e) && e.expected === v - 1);
      };
      const emitted = occurrences.get(id)!.filter((o) => o.emitted_at !== null);
      expect(emitted.length).toBeGreaterThan(10);
      expect(new Set(emitted.map((o) => o.schedule_version)).size).toBeGreaterThan(1);
      for (const o of emitted) {
        const v = o.schedule_version;
        const at = Date.parse(o.emitted_at!);
        const made = makersOf(v);
        if (v > 1) {
          expect(made.length, `${o.occurrence_id} v${v}`).toBeGreaterThan(0);
          expect(at).toBeGreaterThanOrEqual(Math.min(...made.map((e) => e.startedAt)) - CLOCK_SLACK_MS);
        }
        // Not after the next version's edit was answered (an unanswered one may apply after its answer).
        const next = makersOf(v + 1).find((e) => e.status === 200);
        if (next) expect(at).toBeLessThanOrEqual(next.answeredAt + CLOCK_SLACK_MS);
      }
      // What the target received: the definition of the occurrence's version, on every delivery of it.
      const byId = groupBy(
        sink.deliveries.filter((d) => d.path === `/${id}`),
        (d) => d.id,
      );
      const recorded = new Map(emitted.map((o) => [o.occurrence_id, o]));
      for (const [occurrenceId, list] of byId) {
        const o = recorded.get(occurrenceId);
        if (!o) continue; // older than the 256 occurrences a schedule keeps
        for (const d of list) {
          expect(d.data.schedule_version).toBe(o.schedule_version);
          const tags = o.schedule_version === 1 ? ['v1'] : makersOf(o.schedule_version).map((e) => e.tag);
          expect(tags.map((tag) => ({ tag }))).toContainEqual(d.data.payload);
        }
      }
    }
  });

  it('after the cancel answered, nothing more was emitted', () => {
    for (const id of IDS) {
      // The cancel's instant on the workflow clock, which also stamps each emission: no slack needed. A
      // slot due in the task that applied the cancel is emitted at that instant, before it.
      const cancelAt = Date.parse(cancelAnswers.get(id)!.updated_at);
      const now = settled.get(id)!;
      expect(now.status, JSON.stringify(now.body)).toBe(200);
      // Read after the sink settled, not before the cancel: what the schedule recorded emitting since.
      const emittedSince = now.body.recent_occurrences.filter(
        (o) => o.emitted_at !== null && Date.parse(o.emitted_at) > cancelAt,
      );
      expect(emittedSince).toEqual([]);
      // And what its target received (a CloudEvent's `time` is its emission), however late it arrived.
      const deliveredSince = sink.deliveries.filter(
        (d) => d.path === `/${id}` && Date.parse(d.time) > cancelAt,
      );
      expect(deliveredSince).toEqual([]);
      expect(now.body.schedule).toMatchObject({ status: 'CANCELLED', version: finalVersion.get(id) });
    }
  });
});
