// The pure decisions of a schedule, separate from the plumbing that sleeps, signals and continues as
// new (as Temporal's own scheduler separates processTimeRange from its loop). No Temporal import: these
// are unit-tested on plain values.
import type { MisfirePolicy, OverlapPolicy } from '../model/contracts.js';

/** A slot as the calendar computed it: identity (`scheduledFor`) and when it is due (`fireAt`). */
export interface SlotLike {
  scheduledFor: string;
  fireAt: string;
}

export type MisfireDecision<S extends SlotLike> =
  | { slot: S; action: 'FIRE'; late: boolean; reason: string | null }
  | { slot: S; action: 'SKIP'; counter: 'skipped' | 'expired'; reason: string };

export interface MisfireSettings {
  misfire: MisfirePolicy;
  maxLatenessMs: number;
  catchUpLimit: number;
}

const seconds = (ms: number) => `${Math.round(ms / 1000)} s`;

/** Slots of `buffer` that are due at `nowMs` (fireAt <= now), in order, and the rest. */
export function splitDue<S extends SlotLike>(buffer: readonly S[], nowMs: number): { due: S[]; later: S[] } {
  const due: S[] = [];
  const later: S[] = [];
  for (const slot of buffer) (Date.parse(slot.fireAt) <= nowMs ? due : later).push(slot);
  return { due, later };
}

/**
 * Judges due slots against `max_lateness_s` and the misfire policy. A slot no later than the bound is
 * on time and fires. Late slots: SKIP drops them all; FIRE_ONCE makes one occurrence for all of them
 * (the newest late slot, unless an on-time slot already fires); CATCH_UP fires each, at most
 * `catchUpLimit` (the newest ones), and the older excess expires.
 */
export function applyMisfirePolicy<S extends SlotLike>(
  due: readonly S[],
  nowMs: number,
  settings: MisfireSettings,
): MisfireDecision<S>[] {
  const lateness = (slot: S) => nowMs - Date.parse(slot.fireAt);
  const late = due.filter((slot) => lateness(slot) > settings.maxLatenessMs);
  const onTimeCount = due.length - late.length;
  const bound = `max_lateness_s=${settings.maxLatenessMs / 1000}`;

  let firedLate: Set<S>;
  if (settings.misfire === 'CATCH_UP') firedLate = new Set(late.slice(-settings.catchUpLimit));
  else if (settings.misfire === 'FIRE_ONCE' && onTimeCount === 0 && late.length > 0)
    firedLate = new Set(late.slice(-1));
  else firedLate = new Set();

  return due.map((slot): MisfireDecision<S> => {
    const by = lateness(slot);
    if (by <= settings.maxLatenessMs) return { slot, action: 'FIRE', late: false, reason: null };
    if (firedLate.has(slot)) {
      const reason =
        settings.misfire === 'FIRE_ONCE'
          ? `late by ${seconds(by)} (${bound}); FIRE_ONCE: one occurrence for ${late.length} missed slot(s)`
          : `late by ${seconds(by)} (${bound}); CATCH_UP`;
      return { slot, action: 'FIRE', late: true, reason };
    }
    if (settings.misfire === 'CATCH_UP') {
      return {
        slot,
        action: 'SKIP',
        counter: 'expired',
        reason: `late by ${seconds(by)}; beyond catch_up_limit=${settings.catchUpLimit}`,
      };
    }
    return {
      slot,
      action: 'SKIP',
      counter: 'skipped',
      reason:
        settings.misfire === 'SKIP'
          ? `late by ${seconds(by)} (${bound}); misfire SKIP`
          : `late by ${seconds(by)} (${bound}); FIRE_ONCE: covered by a newer occurrence`,
    };
  });
}

export type OverlapAction =
  | { action: 'START' }
  | { action: 'SKIP'; reason: string }
  | { action: 'ENQUEUE' }
  | { action: 'COALESCE' }
  | { action: 'REPLACE' };

export interface OverlapState {
  running: number;
  queued: number;
  queueLimit: number;
}

/** What the overlap policy does with a new occurrence, given what is still running or waiting. */
export function applyOverlapPolicy(policy: OverlapPolicy, state: OverlapState): OverlapAction {
  const busy = state.running > 0 || state.queued > 0;
  if (policy === 'ALLOW' || !busy) return { action: 'START' };
  switch (policy) {
    case 'SKIP':
      return { action: 'SKIP', reason: 'overlap SKIP: the previous occurrence is still running' };
    case 'QUEUE':
      return state.queued < state.queueLimit
        ? { action: 'ENQUEUE' }
        : { action: 'SKIP', reason: `overlap QUEUE: queue full (queue_limit=${state.queueLimit})` };
    case 'COALESCE':
      return { action: 'COALESCE' };
    case 'REPLACE':
      return { action: 'REPLACE' };
  }
}
