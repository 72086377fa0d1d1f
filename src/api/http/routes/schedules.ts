// The /v1/schedules routes: each validates its request against the model's schemas, calls the caller's
// SchedulerClient under the request's deadline and answers what it returns. What an operation means lives
// in the SDK (src/api/client.ts), so SDK, HTTP and CLI users get the same behaviour.
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  AUDIT_MAX_SCHEDULES,
  AUDIT_MAX_SLOTS,
  AuditRequest,
  ScheduleAudit,
  TenantAudit,
} from '../../../model/audit.js';
import {
  BackfillRequest,
  BackfillResult,
  BULK_MAX_SCHEDULES,
  BulkRequest,
  BulkResult,
  CancelRequest,
  Occurrence,
  PauseRequest,
  RecomputeRequest,
  RecomputeResult,
  RecomputeSummary,
  Schedule,
  ScheduleDescription,
  TriggerRequest,
} from '../../../model/contracts.js';
import {
  APPLY_MAX_SCHEDULES,
  ApplyRequest,
  ApplyResult,
  CreateScheduleRequest,
  ListOccurrencesQuery,
  ListSchedulesQuery,
  OccurrencePage,
  PatchScheduleRequest,
  ScheduleIdParams,
  SchedulePage,
} from '../../../model/http.js';
import { RECENT_OCCURRENCES_KEPT } from '../../../model/views.js';
import type { SchedulerClient } from '../../client.js';
import { SchedulerError } from '../../errors.js';
import { COMMON_PROBLEMS as common, HttpProblem, problemResponses } from '../problems.js';
import { listReadCost, REQUEST_UNIT_COSTS, TENANT_RECOMPUTE_INTERVAL_MS } from '../tenant-rate-limit.js';

export interface ScheduleRouteOptions {
  /** The SDK scoped to the request's principal. */
  sdkFor: (request: FastifyRequest) => SchedulerClient;
  /** Temporal calls of one request share a deadline: an outage answers 503, never hangs. */
  withDeadline: <T>(fn: () => Promise<T>) => Promise<T>;
  /** An audit found expected slots decided with no record (the metric counts them). */
  onUnexplained?: (tenant: string, slots: number) => void;
}

type App = Parameters<FastifyPluginAsyncZod>[0];
type Route = (app: App, options: ScheduleRouteOptions) => void;

const tags = ['schedules'];

/** The SDK's `cursor` is the query's: a refused one is a 400 naming it, like any malformed query. */
function asQueryCursorProblem(err: unknown): never {
  if (err instanceof SchedulerError && err.field === 'cursor') {
    throw new HttpProblem('invalid-request', `querystring.cursor: ${err.reason}`, {
      code: 'VALIDATION',
      field: 'querystring.cursor',
      errors: [{ field: 'querystring.cursor', reason: err.reason }],
    });
  }
  throw err;
}

const createSchedule: Route = (app, { sdkFor, withDeadline }) =>
  app.post(
    '/v1/schedules',
    {
      schema: {
        tags,
        summary: 'Create a schedule (idempotent on schedule_id)',
        description:
          "The same schedule_id with the same definition answers 200 with the existing schedule; with another definition, 409. The owner is the caller. 403 FORBIDDEN_TARGET for a target outside the tenant policy; 403 QUOTA_EXCEEDED past the tenant's quotas (live schedules, minimum interval), with `limit` and `current`.",
        body: CreateScheduleRequest,
        response: { 200: Schedule, 201: Schedule, ...problemResponses(...common, 403, 409, 422) },
      },
    },
    async (request, reply) => {
      const { schedule, created } = await withDeadline(() => sdkFor(request).create(request.body));
      reply.code(created ? 201 : 200).header('location', `/v1/schedules/${schedule.schedule_id}`);
      return schedule;
    },
  );

const listSchedules: Route = (app, { sdkFor, withDeadline }) =>
  app.get(
    '/v1/schedules',
    {
      schema: {
        tags,
        summary: "List your tenant's schedules",
        querystring: ListSchedulesQuery,
        response: { 200: SchedulePage, ...problemResponses(...common) },
      },
    },
    async (request) =>
      withDeadline(() =>
        sdkFor(request).listPage({
          ...request.query,
          include_deleted: request.query.include_deleted === 'true',
        }),
      ).catch(asQueryCursorProblem),
  );

const readSchedule: Route = (app, { sdkFor, withDeadline }) =>
  app.get(
    '/v1/schedules/:id',
    {
      schema: {
        tags,
        summary: 'Read a schedule (schedule.v1)',
        params: ScheduleIdParams,
        response: { 200: Schedule, ...problemResponses(...common, 404) },
      },
    },
    async (request) => withDeadline(() => sdkFor(request).get(request.params.id)),
  );

const describeSchedule: Route = (app, { sdkFor, withDeadline }) =>
  app.get(
    '/v1/schedules/:id/describe',
    {
      schema: {
        tags,
        summary: 'A schedule with its next runs, recent occurrences and counters',
        params: ScheduleIdParams,
        response: { 200: ScheduleDescription, ...problemResponses(...common, 404) },
      },
    },
    async (request) => withDeadline(() => sdkFor(request).describe(request.params.id)),
  );

const patchSchedule: Route = (app, { sdkFor, withDeadline }) =>
  app.patch(
    '/v1/schedules/:id',
    {
      schema: {
        tags,
        summary: 'Change definition fields (optimistic: expected_version)',
        description:
          "Each field given replaces the current one whole; null clears an optional field. A stale expected_version answers 409 with current_version. A changed timing quicker than the tenant's quotas.min_interval_s answers 403 QUOTA_EXCEEDED.",
        params: ScheduleIdParams,
        body: PatchScheduleRequest,
        response: { 200: Schedule, ...problemResponses(...common, 403, 404, 409, 422) },
      },
    },
    async (request) => withDeadline(() => sdkFor(request).patch(request.params.id, request.body)),
  );

const pauseSchedule: Route = (app, { sdkFor, withDeadline }) =>
  app.post(
    '/v1/schedules/:id/pause',
    {
      schema: {
        tags,
        summary: 'Pause: no occurrences until resumed (missed slots then go through the misfire policy)',
        params: ScheduleIdParams,
        body: PauseRequest,
        response: { 200: Schedule, ...problemResponses(...common, 404, 409) },
      },
    },
    async (request) =>
      withDeadline(() => sdkFor(request).pause(request.params.id, request.body.note, { wait: true })),
  );

const resumeSchedule: Route = (app, { sdkFor, withDeadline }) =>
  app.post(
    '/v1/schedules/:id/resume',
    {
      schema: {
        tags,
        summary: 'Resume a paused schedule; on one whose owner was revoked, take it over',
        params: ScheduleIdParams,
        body: z.object({}).strict(),
        response: { 200: Schedule, ...problemResponses(...common, 404, 409) },
      },
    },
    async (request) => withDeadline(() => sdkFor(request).resume(request.params.id, { wait: true })),
  );

const triggerOccurrence: Route = (app, { sdkFor, withDeadline }) =>
  app.post(
    '/v1/schedules/:id/trigger',
    {
      schema: {
        tags,
        summary: 'Run one occurrence now (idempotent on scheduled_for)',
        params: ScheduleIdParams,
        body: TriggerRequest,
        response: { 200: Occurrence, ...problemResponses(...common, 404, 409) },
      },
    },
    async (request) => withDeadline(() => sdkFor(request).triggerNow(request.params.id, request.body)),
  );

const backfillSlots: Route = (app, { sdkFor, withDeadline }) =>
  app.post(
    '/v1/schedules/:id/backfill',
    {
      schema: {
        tags,
        summary: 'Run the slots of a past range (each at most once)',
        description:
          "403 QUOTA_EXCEEDED when the range covers more slots than the tenant's quotas allow (one backfill, or per hour).",
        params: ScheduleIdParams,
        body: BackfillRequest,
        response: { 200: BackfillResult, ...problemResponses(...common, 403, 404, 409, 422) },
      },
    },
    async (request) => withDeadline(() => sdkFor(request).backfill(request.params.id, request.body)),
  );

const cancelSchedule: Route = (app, { sdkFor, withDeadline }) =>
  app.post(
    '/v1/schedules/:id/cancel',
    {
      schema: {
        tags,
        summary: 'Cancel: no future runs; the schedule stays readable (CANCELLED)',
        params: ScheduleIdParams,
        body: CancelRequest,
        response: { 200: Schedule, ...problemResponses(...common, 404, 409) },
      },
    },
    async (request) =>
      withDeadline(async () => (await sdkFor(request).cancel(request.params.id, request.body)).schedule),
  );

const deleteSchedule: Route = (app, { sdkFor, withDeadline }) =>
  app.delete(
    '/v1/schedules/:id',
    {
      schema: {
        tags,
        summary: 'Delete: cancel, and leave it out of listings (still readable by ID, with deleted_at)',
        description:
          'Target workflows already started are not touched. A schedule that had already ended (COMPLETED, FAILED, CANCELLED) is removed from Temporal instead, which the server does asynchronously.',
        params: ScheduleIdParams,
        response: { 204: z.undefined().describe('deleted'), ...problemResponses(...common, 404) },
      },
    },
    async (request, reply) => {
      await withDeadline(() => sdkFor(request).delete(request.params.id));
      return reply.code(204).send();
    },
  );

const recomputeSchedule: Route = (app, { sdkFor, withDeadline }) =>
  app.post(
    '/v1/schedules/:id/recompute',
    {
      schema: {
        tags,
        summary: "Compute the schedule's buffered future slots again with the worker's tz database",
        description:
          "After a tz database upgrade (a government changed a zone's rules): the slots not yet due are dropped and computed again; the answer says how many moved. `recomputed: false` with the reason when the schedule does not depend on `zone`, or no buffered slot is older than `if_older_than`. Idempotent.",
        params: ScheduleIdParams,
        body: RecomputeRequest,
        response: { 200: RecomputeResult, ...problemResponses(...common, 404, 409, 422) },
      },
    },
    async (request) => withDeadline(() => sdkFor(request).recomputeSchedule(request.params.id, request.body)),
  );

const recomputeSchedules: Route = (app, { sdkFor, withDeadline }) =>
  app.post(
    '/v1/recompute',
    {
      schema: {
        tags,
        summary: "Recompute every running schedule of the caller's tenant (those depending on `zone`)",
        description: `POST /v1/schedules/{id}/recompute on each, a few at a time (one recomputed less than a minute ago is left out). Once per tenant every ${TENANT_RECOMPUTE_INTERVAL_MS / 60_000} minutes (429 with Retry-After before then; a recompute that found no schedule does not count), charged to the tenant's rate limit for each schedule it asks, as that route is. Schedules that could not be asked are listed in \`failed\`: recompute them one by one, or run it again after the interval (with \`if_older_than\` it skips what is done).`,
        body: RecomputeRequest,
        response: { 200: RecomputeSummary, ...problemResponses(...common, 422) },
      },
    },
    async (request) =>
      withDeadline(() =>
        sdkFor(request).recompute(request.body, {
          // Each schedule asked is an update (a workflow task on the shared worker): charged as one recompute.
          onAsk: () => request.chargeTenant?.(REQUEST_UNIT_COSTS.recompute),
        }),
      ),
  );

const applySchedules: Route = (app, { sdkFor, withDeadline }) =>
  app.post(
    '/v1/apply',
    {
      schema: {
        tags,
        summary: 'Apply the schedules a file declares, as one plan (create / update / unchanged / prune)',
        description: `Each schedule of \`schedules\` (a schedule.v1 document with its schedule_id) is created, updated or left as it is; with \`prune\`, the schedules that selector picks and \`schedules\` does not have are deleted. Every change comes with the next runs before and after it. \`dry_run\` answers the plan and changes nothing. A schedule edited by other means since the last apply is a CONFLICT: the apply answers 409 naming it and changes nothing (\`force\` overwrites it). At most ${APPLY_MAX_SCHEDULES} schedules; charged to the tenant's rate limit for the schedules read and for each create, update and delete as those routes are.`,
        body: ApplyRequest,
        response: { 200: ApplyResult, ...problemResponses(...common, 403, 409, 422) },
      },
    },
    async (request) =>
      withDeadline(() =>
        sdkFor(request).apply(request.body, {
          onRead: (schedules) => request.chargeTenant?.(listReadCost(schedules)),
          onChange: (action) =>
            request.chargeTenant?.(
              action === 'CREATE'
                ? REQUEST_UNIT_COSTS.create
                : action === 'UPDATE'
                  ? REQUEST_UNIT_COSTS.edit
                  : REQUEST_UNIT_COSTS.action,
            ),
        }),
      ),
  );

const bulkOperation: Route = (app, { sdkFor, withDeadline }) =>
  app.post(
    '/v1/bulk',
    {
      schema: {
        tags,
        summary: 'Pause, resume, cancel or delete every schedule of your tenant that a label selector picks',
        description: `Answers each schedule picked with what happened to it: DONE, UNCHANGED (nothing to do, and why), FAILED (and why); with \`dry_run\`, WOULD_DO instead of acting. A selector picking more than ${BULK_MAX_SCHEDULES} schedules answers 400 and changes nothing; the empty selector is refused. Charged to the tenant's rate limit for the schedules read (as a list) and for each schedule acted on (as the single action).`,
        body: BulkRequest,
        response: { 200: BulkResult, ...problemResponses(...common) },
      },
    },
    async (request) =>
      withDeadline(() =>
        sdkFor(request).bulk(request.body, {
          onRead: (schedules) => request.chargeTenant?.(listReadCost(schedules)),
          onAct: () =>
            request.chargeTenant?.(
              request.body.action === 'pause' || request.body.action === 'resume'
                ? REQUEST_UNIT_COSTS.pauseResume
                : REQUEST_UNIT_COSTS.action,
            ),
        }),
      ),
  );

const listOccurrences: Route = (app, { sdkFor, withDeadline }) =>
  app.get(
    '/v1/schedules/:id/occurrences',
    {
      schema: {
        tags,
        summary: 'Recent occurrences, newest first',
        description: `A schedule keeps its most recent ${RECENT_OCCURRENCES_KEPT} occurrences (and every one still running).`,
        params: ScheduleIdParams,
        querystring: ListOccurrencesQuery,
        response: { 200: OccurrencePage, ...problemResponses(...common, 404) },
      },
    },
    async (request) =>
      withDeadline(() => sdkFor(request).listOccurrencesPage(request.params.id, request.query)),
  );

const AUDIT_DESCRIPTION = `Each expected slot with its outcome: ON_TIME or LATE (with the lateness), FAILED, MISSED (a misfire), SKIPPED (overlap), REFUSED (revoked owner, tenant policy), CANCELLED, REMOVED (a window that skips, an exclusion, a closed day), RUNNING, PENDING (not decided yet), BEYOND_LEDGER (older than the ledger keeps) or UNEXPLAINED (decided with no record: a bug, counted in scheduler_audit_unexplained_slots_total). At most ${AUDIT_MAX_SLOTS} expected slots per schedule.`;

const auditOne: Route = (app, { sdkFor, withDeadline, onUnexplained }) =>
  app.get(
    '/v1/schedules/:id/audit',
    {
      schema: {
        tags,
        summary: "What became of every slot the schedule's definitions called for in a range",
        description: AUDIT_DESCRIPTION,
        params: ScheduleIdParams,
        querystring: AuditRequest,
        response: { 200: ScheduleAudit, ...problemResponses(...common, 404) },
      },
    },
    async (request) => {
      const audit = await withDeadline(() => sdkFor(request).audit(request.params.id, request.query));
      const unexplained = audit.counts.UNEXPLAINED ?? 0;
      if (unexplained > 0) onUnexplained?.(request.principal!.tenant_id, unexplained);
      return audit;
    },
  );

const auditAll: Route = (app, { sdkFor, withDeadline, onUnexplained }) =>
  app.get(
    '/v1/audit',
    {
      schema: {
        tags,
        summary: "What didn't run: every schedule of your tenant audited for a range",
        description: `Counts by outcome over the tenant's schedules (at most ${AUDIT_MAX_SCHEDULES}), and each schedule with a slot other than ON_TIME or REMOVED, with those slots. ${AUDIT_DESCRIPTION} Charged for its listing and each schedule it audits.`,
        querystring: AuditRequest,
        response: { 200: TenantAudit, ...problemResponses(...common) },
      },
    },
    async (request) => {
      const audit = await withDeadline(() =>
        sdkFor(request).auditTenant(request.query, {
          onRead: (schedules) =>
            request.chargeTenant?.(listReadCost(schedules) + schedules * REQUEST_UNIT_COSTS.audit),
        }),
      );
      const unexplained = audit.counts.UNEXPLAINED ?? 0;
      if (unexplained > 0) onUnexplained?.(request.principal!.tenant_id, unexplained);
      return audit;
    },
  );

/** In this order in the OpenAPI document. */
const ROUTES: Route[] = [
  createSchedule,
  listSchedules,
  readSchedule,
  describeSchedule,
  patchSchedule,
  pauseSchedule,
  resumeSchedule,
  triggerOccurrence,
  backfillSlots,
  cancelSchedule,
  deleteSchedule,
  listOccurrences,
  auditOne,
  auditAll,
  recomputeSchedule,
  recomputeSchedules,
  applySchedules,
  bulkOperation,
];

export const scheduleRoutes: FastifyPluginAsyncZod<ScheduleRouteOptions> = async (app, options) => {
  for (const route of ROUTES) route(app, options);
};
