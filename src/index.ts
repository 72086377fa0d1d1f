// The package's root entry (`import … from 'durable-scheduler'`): the client SDK, the contracts it speaks
// and its error. Nothing here loads the worker (`durable-scheduler/worker`), the HTTP server or the
// testing kit (`durable-scheduler/testing`); test/unit/architecture.test.ts checks that.
export type { Principal } from './api/auth.js';
export { PrincipalSchema } from './api/auth.js';
export {
  type CreateResult,
  type CreateScheduleInput,
  type InterpretRequestInput,
  type ListFilter,
  type PreviewOptions,
  type RecomputeRequestInput,
  type SchedulePage,
  SchedulerClient,
  type SchedulerClientOptions,
  type SettleOptions,
} from './api/client.js';
export {
  ErrorBody,
  InterpretProblemError,
  SchedulerError,
  SchedulerErrorCode,
  UnavailableCause,
  UnavailableError,
} from './api/errors.js';
export { type PatchScheduleInput, VersionConflictError } from './api/patch.js';
export {
  CalendarOptions,
  CalendarWindow,
  CronTiming,
  DeadlineTiming,
  DelayTiming,
  DstOptions,
  IntervalTiming,
  OneTimeTiming,
  RecurrenceTiming,
  Timing,
  type TimingKind,
  Weekday,
} from './calendar/timing.js';
export {
  AUDIT_MAX_SCHEDULES,
  AUDIT_MAX_SLOTS,
  AuditRequest,
  type AuditRequestInput,
  AuditSlot,
  ScheduleAudit,
  SlotOutcome,
  TenantAudit,
} from './model/audit.js';
export * from './model/contracts.js';
export { PreviewResult } from './model/http.js';
export {
  type InterpretProblem,
  InterpretReading,
  InterpretRequest,
  InterpretResult,
  UnreadWord,
} from './model/interpret.js';
export {
  type TargetField,
  type TargetVerdict,
  TenantPolicy,
  TenantPolicyError,
  TenantPolicyFile,
  TenantTargets,
} from './model/tenant-policy.js';
