// What the SDK's SchedulerClient takes and answers beyond the model's contracts: its options, the inputs
// and results of its operations. Re-exported by src/api/client.ts, the SDK's public module.
import type { Client } from '@temporalio/client';
import type { z } from 'zod';
import type { TimingKind } from '../../calendar/timing.js';
import type { RecomputeRequest, Schedule, ScheduleSpecInput, ScheduleStatus } from '../../model/contracts.js';
import type { InterpretRequest } from '../../model/interpret.js';
import type { TenantPolicy } from '../../model/tenant-policy.js';
import type { Principal } from '../auth.js';
import type { BackfillSlotLedger } from '../quotas.js';
import type { SlotRunner } from '../slot-runner.js';

export interface SchedulerClientOptions {
  client: Client;
  /** Task queue the scheduler's worker polls. */
  taskQueue: string;
  /** Task queue for JOB targets that name none (where the deployment's job workers poll). */
  jobTaskQueue: string;
  /**
   * How long before its slot a new recurring ALLOW JOB schedule starts each job, with a delay to its instant
   * (armed: at the instant the server alone begins it). Default DEFAULT_ARM_LEAD_MS; 0: never armed.
   */
  armLeadMs?: number;
  /**
   * How far ahead a new recurring ALLOW JOB schedule arms its slots when that is longer than its lead: every
   * slot within it, at most ten, in one workflow task. Default DEFAULT_ARM_AHEAD_MS (600 s; 0: the lead
   * alone).
   * The tenant policy is last checked this long before such a job begins (a policy change takes it back).
   */
  armAheadMs?: number;
  /**
   * Start a new schedule asleep (default true): its workflow is started with a delay to the point where
   * it would arm its first run (startDelayMs: within the arm lead, at least `WAKE_MARGIN_MS` before the
   * run), so creating it costs the scheduler's worker nothing until then. A read, an edit or any update wakes it earlier (a query alone cannot: the API
   * wakes it first). False: the first workflow task runs at creation.
   */
  startAsleep?: boolean;
  principal: Principal;
  /**
   * The tenant policy in force (src/model/tenant-policy.ts; a function, so a reloaded file takes effect):
   * a target outside it is refused with FORBIDDEN_TARGET at create and edit. Unset (an SDK embedded in a
   * service that holds namespace credentials anyway), only the checks every deployment makes apply here
   * and the worker's policy decides at hand-off. The HTTP API always passes it.
   */
  tenantPolicy?: () => TenantPolicy;
  /**
   * How long a read that the scheduler's worker answers (describe, get, list, and the reads inside
   * update, delete and callLive) waits before failing with UNAVAILABLE. Default 10 s.
   */
  readTimeoutMs?: number;
  /**
   * The scheduler's "now" (epoch ms): the creation instant a new schedule counts its slots from, and the
   * instant validation checks a definition still fires after. Default: this machine's clock (kept in
   * step with the Temporal server's by NTP). Tests on the time-skipping server, whose clock runs ahead of
   * this machine's, pass its clock: `() => env.currentTimeMs()`.
   */
  clock?: () => number | Promise<number>;
  /**
   * Where backfilled slots are counted for `quotas.max_backfill_slots_per_hour`; default one ledger for the
   * whole process. The HTTP API passes its own.
   */
  backfillLedger?: BackfillSlotLedger;
  /**
   * The secret list cursors are signed with (HMAC-SHA-256): a cursor is accepted only by a client holding
   * the same secret, so every process that serves pages of one listing (API replicas behind a load
   * balancer) needs the same one. Unset: a random secret of this process — its cursors stop working after
   * a restart and on any other process (the caller is told to list again from the start).
   */
  cursorSecret?: string;
  /**
   * Where the calendar's searches of create, edit and backfill run (./slot-runner.ts). Default: in the
   * caller's thread, synchronously. The HTTP API passes its pool of worker threads, which bounds each
   * request's searches in time and queues them fairly per tenant; whatever runs them, a search that
   * completes answers the same.
   */
  calendar?: SlotRunner;
}

/** How a new schedule starts (jobs armed ahead, the schedule asleep): carried as is from `npm start` to the SDK. */
const SCHEDULE_START_KEYS = ['armLeadMs', 'armAheadMs', 'startAsleep'] as const;
export type ScheduleStartOptions = Pick<SchedulerClientOptions, (typeof SCHEDULE_START_KEYS)[number]>;

/** The start options `from` sets, those it leaves unset left out (the SDK's defaults then apply). */
export function scheduleStartOptions(from: ScheduleStartOptions): ScheduleStartOptions {
  return Object.fromEntries(
    SCHEDULE_START_KEYS.filter((key) => from[key] !== undefined).map((key) => [key, from[key]]),
  );
}

export interface ListFilter {
  status?: ScheduleStatus;
  timing_kind?: TimingKind;
  /** Page size, 1–100. */
  limit?: number;
  /** `next_cursor` of the previous page. */
  cursor?: string;
  /** Also list deleted schedules. */
  include_deleted?: boolean;
  /** Only schedules whose labels satisfy this label selector, e.g. `team=payments,env!=dev`. */
  selector?: string;
}

export interface SettleOptions {
  /**
   * Signals are asynchronous: answer the schedule once the signal shows in it, read again every 100 ms
   * for up to 2 s (then as it is).
   */
  wait: true;
}

export interface SchedulePage {
  items: Schedule[];
  next_cursor: string | null;
}

export interface CreateScheduleInput extends ScheduleSpecInput {
  /** `schedule.v1`, or absent: a schedule.v1 document (without its server-owned fields) is a create input. */
  contract?: string;
  /** Client-chosen ID: create is idempotent on it. Default: a new UUID. */
  schedule_id?: string;
}

export interface CreateResult {
  /**
   * Built by the SDK, without waiting for the scheduler's worker. A new schedule: its definition, status
   * ACTIVE, version 1 and next runs counted from `created_at` exactly as the workflow counts them. An
   * existing one (`created: false`): the same, with `status` and `next_run_at` from the workflow's search
   * attributes; `last_run_at` and `pause_note`, which only the workflow knows, are null and `updated_at`
   * is `created_at` — `get()` reads them from the workflow.
   */
  schedule: Schedule;
  /** False when a schedule with this ID and the same definition already existed (idempotent create). */
  created: boolean;
}

export interface PreviewOptions {
  /** Runs strictly after this instant, for a definition created then; default now. */
  from?: string;
  count?: number;
  /** Seeds deterministic jitter; default `preview`. */
  scheduleId?: string;
}

/** What `SchedulerClient.interpret` takes: POST /v1/interpret's body (`count` defaults to 5). */
export type InterpretRequestInput = InterpretRequest;

export type RecomputeRequestInput = z.input<typeof RecomputeRequest>;
