// The schedule's own fields: its definition and version, its status, its owner and whether the owner was
// revoked. The only writer of them (state.ts, STATE_OWNERS), and the one place that words the refusals
// that follow from them.
import * as wf from '@temporalio/workflow';
import type { ScheduleSpec, ScheduleStatus } from '../../model/contracts.js';
import { isTerminal } from '../../model/views.js';
import { workflowNowIso } from '../clock.js';
import { INVALID_REQUEST, INVALID_STATE, VERSION_CONFLICT } from '../definitions.js';
import { OwnerKey, ownerKeyValue } from '../search-attributes.js';
import type { ScheduleState } from './state.js';

export const reject = (type: string, message: string) => wf.ApplicationFailure.nonRetryable(message, type);
export const invalidRequest = (message: string) => reject(INVALID_REQUEST, message);

export class Lifecycle {
  constructor(private readonly s: ScheduleState) {}

  get isActive(): boolean {
    return this.s.status === 'ACTIVE';
  }

  get isPaused(): boolean {
    return this.s.status === 'PAUSED';
  }

  get hasEnded(): boolean {
    return isTerminal(this.s.status);
  }

  /** Why a slot decided now is not handed off: the owner's key was removed (null: it is handed off). */
  revocation(): string | null {
    return this.s.ownerRevoked ? `refused: ${this.s.ownerRevoked.reason}` : null;
  }

  endedRefusal(): Error | null {
    return this.hasEnded ? reject(INVALID_STATE, `schedule is ${this.s.status}`) : null;
  }

  versionRefusal(expected: number): Error | null {
    const { version } = this.s;
    return expected !== version
      ? reject(VERSION_CONFLICT, `expected_version ${expected} but the schedule is at version ${version}`)
      : null;
  }

  /** Trigger and backfill: the schedule is live and its owner has a key (`targetsBound`: PATCHES.TARGETS_BOUND). */
  handOffRefusal(targetsBound = true): Error | null {
    const s = this.s;
    if (this.hasEnded) return this.endedRefusal();
    if (!targetsBound || !s.ownerRevoked) return null;
    return reject(
      INVALID_STATE,
      `the schedule's owner ${s.identity.owner_ref} was revoked (${s.ownerRevoked.reason}): nothing is handed off until an authorized owner of the tenant takes it over (resume)`,
    );
  }

  private touch(at = workflowNowIso()): void {
    this.s.updatedAt = at;
  }

  private changeOwner(ownerRef: string): void {
    const s = this.s;
    if (ownerRef === s.identity.owner_ref) return;
    s.identity = { ...s.identity, owner_ref: ownerRef };
    wf.upsertSearchAttributes([{ key: OwnerKey, value: ownerKeyValue(s.identity.tenant_id, ownerRef) }]);
  }

  /** Returns whether an active schedule was paused. */
  pause(note: string | null): boolean {
    const s = this.s;
    if (s.status !== 'ACTIVE') return false;
    s.status = 'PAUSED';
    s.pauseNote = note;
    this.touch();
    return true;
  }

  resume(): void {
    const s = this.s;
    if (s.status !== 'PAUSED') return;
    s.status = 'ACTIVE';
    s.pauseNote = null;
    this.touch();
  }

  /** Returns whether the owner was revoked now (not before, and the schedule not ended). */
  revokeOwner(reason: string): boolean {
    const s = this.s;
    if (s.ownerRevoked || this.hasEnded) return false;
    s.ownerRevoked = { at: workflowNowIso(), reason };
    wf.log.warn('owner revoked: slots are refused until the schedule is resumed', {
      owner_ref: s.identity.owner_ref,
    });
    this.touch(s.ownerRevoked.at);
    return true;
  }

  /** A revoked schedule taken over by `ownerRef` (absent: the owner stays, as a resume before 0.5 did it). */
  takeOver(ownerRef: string | null): { owner_ref: string; taken_over: boolean } {
    const s = this.s;
    const taken = Boolean(s.ownerRevoked);
    if (s.ownerRevoked) {
      s.ownerRevoked = null;
      this.touch();
      if (ownerRef) this.changeOwner(ownerRef);
    }
    return { owner_ref: s.identity.owner_ref, taken_over: taken };
  }

  /** The new definition and its version; `editor`: who edited it (sent by SDKs since 0.5). */
  edit(spec: ScheduleSpec, editor: string | undefined): number {
    const s = this.s;
    s.spec = spec;
    s.version += 1;
    if (editor) this.changeOwner(editor);
    this.touch();
    return s.version;
  }

  markDeleted(): void {
    if (!this.s.deletedAt) this.s.deletedAt = workflowNowIso();
  }

  cancel(note: string | null): void {
    this.s.status = 'CANCELLED';
    this.s.pauseNote = note;
    this.touch();
  }

  /** The slots ran out: COMPLETED, or FAILED (policy.runOutcome). */
  end(outcome: Extract<ScheduleStatus, 'COMPLETED' | 'FAILED'>): void {
    this.s.status = outcome;
    this.touch();
  }
}
