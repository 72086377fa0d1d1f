// One run of a schedule's workflow (until it ends or continues as new): the loop that sleeps, decides the
// due slots and continues as new, and what listings see. The state has four owners, each the only writer
// of its fields (state.ts, STATE_OWNERS): the lifecycle (definition, status, owner), the generator (slots),
// the invoker (fires, queue, hand-offs, armed jobs) and the ledger (occurrences, counters). Handlers only
// enqueue commands (./handlers.ts); the loop applies them (./commands.ts) between slot decisions, so an
// edit, pause or trigger that arrives while a slot is due is applied after that slot.
import * as wf from '@temporalio/workflow';
import { armWithinMs } from '../../model/arming.js';
import { isTerminal } from '../../model/views.js';
import { workflowNow, workflowNowIso } from '../clock.js';
import { SCHEDULE_WORKFLOW_TYPE, VERSION_MEMO } from '../definitions.js';
import {
  PATCHES,
  type RunVersion,
  retiresOntoV2,
  startsJobsInertly,
  usesLocalActivities,
} from '../patches.js';
import { applyMisfirePolicy, runOutcome } from '../policy.js';
import { LabelsKey } from '../search-attributes.js';
import { applyCommand } from './commands.js';
import { SlotGenerator } from './generator.js';
import { FailureHooks } from './hooks.js';
import { Invoker } from './invoker.js';
import { Ledger } from './ledger.js';
import { upsertEveryAttribute } from './legacy.js';
import { Lifecycle } from './lifecycle.js';
import {
  CONTINUE_AS_NEW_AFTER_BYTES,
  type Command,
  continuedInput,
  DEFAULT_CONTINUE_AS_NEW_AFTER,
  endsAfterItsSlots,
  initialState,
  type ScheduleState,
  type ScheduleWorkflowInput,
} from './state.js';
import { changedAttributes, currentDetails, visibilityOf } from './views.js';

export class ScheduleRun {
  readonly state: ScheduleState;
  readonly lifecycle: Lifecycle;
  readonly generator: SlotGenerator;
  readonly invoker: Invoker;
  readonly ledger: Ledger;
  readonly hooks: FailureHooks;
  readonly commands: Command[] = [];
  readonly defaultJobTaskQueue: string;
  /** How long before its slot a JOB is armed: input.armLeadMs, or input.armAheadMs when longer (0: never). */
  readonly armWithinMs: number;
  /** input.armAheadMs set (0.11): armed ahead, its wakes spread between slots (Invoker.nextSlotWakeMs). */
  readonly armsAhead: boolean;
  /** Set by whatever finished while the loop slept (a hand-off, an awaited job). */
  private wake = false;
  private readonly continueAsNewAfter: number;
  private shownAttributes = '';

  constructor(
    private readonly input: ScheduleWorkflowInput,
    readonly version: RunVersion,
  ) {
    this.state = input.state ?? initialState(input, input.createdAt ?? workflowNowIso());
    this.continueAsNewAfter = input.continueAsNewAfterEvents ?? DEFAULT_CONTINUE_AS_NEW_AFTER;
    this.defaultJobTaskQueue = input.defaultJobTaskQueue;
    this.armWithinMs = armWithinMs(input.armLeadMs ?? 0, input.armAheadMs ?? 0);
    this.armsAhead = (input.armAheadMs ?? 0) > 0;
    this.lifecycle = new Lifecycle(this.state);
    this.ledger = new Ledger(this.state);
    const firstBatch =
      input.state === undefined && !usesLocalActivities(version) ? input.firstBatch : undefined;
    this.generator = new SlotGenerator(
      this.state,
      version,
      {
        aheadMs: () => (this.invoker.armsJobs() ? this.armWithinMs : 0),
        awaitingCompletion: () => this.ledger.activeCount() > 0 || this.state.queue.length > 0,
      },
      firstBatch,
    );
    this.invoker = new Invoker(this);
    this.hooks = new FailureHooks({
      state: this.state,
      ledger: this.ledger,
      commands: this.commands,
      inFlight: this.invoker.inFlight,
      wakeLoop: () => this.wakeLoop(),
    });
    this.ledger.onFinished = (finished) => this.hooks.observe(finished);
  }

  /** Hand-offs and notices under way: the run continues as new or ends only once none is. */
  private get sending(): number {
    return this.invoker.inFlight.handoffs + this.invoker.inFlight.notices;
  }

  wakeLoop(): void {
    this.wake = true;
  }

  historyIsFull(): boolean {
    const info = wf.workflowInfo();
    return (
      info.continueAsNewSuggested ||
      info.historyLength > this.continueAsNewAfter ||
      (this.version.has(PATCHES.BOUNDED_HANDOFFS) && info.historySize > CONTINUE_AS_NEW_AFTER_BYTES)
    );
  }

  // ---------------------------------------------------------------- slots

  private decideDueSlots(now: number): void {
    const s = this.state;
    const due = this.generator.takeDue(now);
    if (due.length === 0) return;
    const decisions = applyMisfirePolicy(due, now, {
      misfire: s.spec.misfire,
      maxLatenessMs: s.spec.max_lateness_s * 1000,
      catchUpLimit: s.spec.catch_up_limit,
    });
    for (const d of decisions) {
      const late = d.action === 'FIRE' && d.late;
      const fire = { slot: d.slot, trigger: 'SCHEDULE' as const, late, reason: d.reason };
      if (d.action === 'FIRE') this.invoker.schedule(fire);
      else this.ledger.skip(fire, d.reason, d.counter);
    }
  }

  async processDueSlots(): Promise<void> {
    // Slots are judged at the instant of the wake (on time or late, by the misfire policy), even when a
    // slot batch had to be fetched first: since 0.3 that fetch is an activity whose result comes with a
    // later workflow task (a local activity's came with the same one, whose time is the wake's).
    const now = workflowNow();
    this.invoker.settleArmed(now);
    await this.generator.fill(now);
    this.decideDueSlots(usesLocalActivities(this.version) ? workflowNow() : now);
    const refresh = this.generator.horizon(now).now;
    const toArm = refresh ? [] : this.invoker.takeSlotsToArm(now);
    const inert = !refresh && this.invoker.startsMayBeInert(now, this.commands.length);
    this.invoker.firePending(inert);
    this.invoker.arm(toArm, inert);
    if (refresh) await this.generator.recompute(now, 'horizon');
  }

  // ---------------------------------------------------------------- visibility

  refreshVisibility(): void {
    const s = this.state;
    const carried = wf.workflowInfo().typedSearchAttributes;
    const shown = visibilityOf(s, this.version.has(PATCHES.TZ_HORIZON), carried.get(LabelsKey) !== undefined);
    if (shown.key !== this.shownAttributes) {
      this.shownAttributes = shown.key;
      if (this.version.has(PATCHES.PER_FIRE_COST)) {
        // Only what differs from what the workflow already carries (from its start, the run it continued
        // from, or an earlier upsert): on a fire that is the next run alone.
        const changed = changedAttributes(carried, shown.attributes);
        if (changed.length > 0) wf.upsertSearchAttributes(changed);
      } else upsertEveryAttribute(shown.attributes);
    }
    // UI metadata, not a command: changing the details leaves history alone.
    wf.setCurrentDetails(currentDetails(s, shown.next));
  }

  // ---------------------------------------------------------------- the loop

  private async applyCommands(): Promise<void> {
    while (this.commands.length > 0) await applyCommand(this, this.commands.shift()!);
  }

  /**
   * Waits until no hand-off is in flight and every handler finished, or (since the patch) until a command
   * arrived, which only the loop can apply.
   */
  private untilDrainedOrCommanded(): Promise<void> {
    return wf.condition(
      () =>
        (this.version.has(PATCHES.HANDLERS_WHILE_DRAINING) && this.commands.length > 0) ||
        (this.sending === 0 && wf.allHandlersFinished()),
    );
  }

  /** An active schedule's pass after its commands: fire, start what queued, end when nothing is left. */
  private async passWhileActive(): Promise<'RUNNING' | 'ENDED'> {
    const s = this.state;
    await this.processDueSlots();
    this.invoker.drainQueue();
    const outcome = runOutcome({
      exhausted: s.exhausted,
      // An armed job is the schedule's until its instant: a disarm may still take it back.
      buffered: s.buffer.length + this.invoker.armedCount,
      pendingFires: s.pendingFires.length,
      queued: s.queue.length,
      awaitingHandoff: this.invoker.awaitingHandoff,
      inFlight: this.sending,
      running: s.running.length,
      endsAfterItsSlots: endsAfterItsSlots(s.spec),
      failed: s.counters.failed,
    });
    if (outcome === 'RUNNING') return 'RUNNING';
    this.lifecycle.end(outcome);
    return 'ENDED';
  }

  /** Hand-offs in flight finish first, so their results land in this run's state. */
  private async continueAsNewOnceDrained(): Promise<void> {
    await this.untilDrainedOrCommanded();
    if (this.commands.length > 0) return;
    const next = continuedInput(this.input, this.state);
    // The server starts the next run with the first run's memo, not the upserted one: carry it.
    if (this.version.ask(PATCHES.VERSION_MEMO)) {
      const retire = retiresOntoV2(this.version);
      if (retire)
        wf.log.info('continuing as new as the current workflow type', { type: SCHEDULE_WORKFLOW_TYPE });
      await wf.makeContinueAsNewFunc<(input: ScheduleWorkflowInput) => Promise<unknown>>({
        memo: { ...wf.workflowInfo().memo, [VERSION_MEMO]: this.state.version },
        ...(retire ? { workflowType: SCHEDULE_WORKFLOW_TYPE } : {}),
      })(next);
    }
    await wf.continueAsNew<(input: ScheduleWorkflowInput) => Promise<unknown>>(next);
  }

  private async sleep(): Promise<void> {
    const s = this.state;
    const active = this.lifecycle.isActive;
    const pending = active ? (s.pendingFires[0]?.slot.fireAt ?? null) : null;
    const next = active ? (pending === null ? this.invoker.nextSlotWakeMs() : Date.parse(pending)) : null;
    const now = workflowNow();
    // A slot further than the horizon: wake a horizon before it to compute it again.
    const refreshAt = active ? this.generator.horizon(now).wakeAtMs : null;
    // With no slot left to arm, the schedule ends once its armed jobs began: wake at the last instant.
    const lastArmed =
      active && s.buffer.length === 0 && s.exhausted ? this.invoker.lastArmed?.fireAt : undefined;
    const wakeAt = Math.min(
      next ?? Infinity,
      refreshAt ?? Infinity,
      lastArmed ? Date.parse(lastArmed) : Infinity,
    );
    const woken = () => this.wake || this.commands.length > 0;
    if (wakeAt === Infinity) await wf.condition(woken);
    else await wf.condition(woken, Math.max(wakeAt - now, 1));
  }

  /** Runs until the schedule ends (or continues as new, which never returns). */
  async loop(): Promise<void> {
    const s = this.state;
    const { inFlight } = this.invoker;
    for (;;) {
      // Whatever woke the loop, inert starts resolve first: live their results may come with the wake's
      // task, on replay before it; after this wait the loop sees the same state either way.
      if (startsJobsInertly(this.version)) await wf.condition(() => inFlight.inert === 0);
      this.version.takeUpAtTopOfPass();
      this.wake = false;
      // What was due before a command arrived is handled under the definition it was due under: an edit,
      // pause or cancel that lands on a due slot applies after that slot fired.
      if (this.lifecycle.isActive) await this.processDueSlots();
      await this.applyCommands();
      if (isTerminal(s.status)) break;
      if (this.lifecycle.isActive && (await this.passWhileActive()) === 'ENDED') break;
      // Decided hand-offs go out while paused too: a pause stops new slots, not what was already emitted.
      if (this.version.has(PATCHES.BOUNDED_HANDOFFS)) this.invoker.handOffAwaiting();
      this.refreshVisibility();
      // Awaited JOBs report their completion only to the run that started them, so a run that awaits
      // one keeps going until it finished.
      if (this.historyIsFull() && s.running.length === 0) {
        await this.continueAsNewOnceDrained();
        continue;
      }
      if (s.pendingFires.length > 0) continue; // more of a catch-up to hand off
      if (inFlight.jobStarts > 0) {
        // Local activities (before v0.3) resolve within this workflow task: live one by one, on replay
        // possibly together; arming the sleep's timer only once all resolved keeps the task's commands (and
        // timer IDs) independent of how their results were batched. A regular activity's start completes
        // with a later task: waiting for it spares a sleep timer cancelled and started again per fire, and
        // a command that arrives meanwhile is applied at once.
        const local = usesLocalActivities(this.version);
        await wf.condition(() => inFlight.jobStarts === 0 || (!local && this.commands.length > 0));
        continue;
      }
      await this.sleep();
    }
  }

  /** An ended schedule still answers what arrives while its last hand-offs finish (a delete after a cancel). */
  async closeOut(): Promise<void> {
    this.refreshVisibility();
    for (;;) {
      await this.untilDrainedOrCommanded();
      if (this.commands.length === 0) break;
      await this.applyCommands();
      this.refreshVisibility();
    }
  }
}
