// What a signal or an event carries to its target, and how it gets there: an occurrence's envelope or a
// failure hook's notice, signalled to a workflow or POSTed as a CloudEvent. The policy was checked by the
// caller (./handoff.ts); a failure that retrying cannot fix is PERMANENT_HANDOFF_ERROR.
import { ApplicationFailure, Context, log } from '@temporalio/activity';
import { type Client, WorkflowNotFoundError } from '@temporalio/client';
import {
  NOTICE_EVENT_TYPES,
  type OccurrenceEnvelope,
  type ScheduleNotice,
  type Target,
} from '../model/contracts.js';
import { PERMANENT_HANDOFF_ERROR } from '../model/handoff-failures.js';
import { redactUrl } from '../model/network-address.js';
import { type EventDelivery, EventDeliveryError } from './event-delivery.js';

/** What a signal or an event hand-off answers. */
export interface MessageResult {
  /** What was signalled or published (workflow ID, or the sink URL). */
  targetRef: string;
  /** The target said it already had this occurrence (HTTP 208 from a deduplicating sink). */
  duplicate: boolean;
  attempt: number;
}

export function permanent(message: string): ApplicationFailure {
  return ApplicationFailure.nonRetryable(message, PERMANENT_HANDOFF_ERROR);
}

/** Signals `message` (an occurrence's envelope, or a failure hook's notice) to the target workflow. */
export async function signalTarget(
  client: Client,
  target: Pick<Extract<Target, { type: 'WORKFLOW_SIGNAL' }>, 'workflow_id' | 'signal_name' | 'start'>,
  message: OccurrenceEnvelope | ScheduleNotice,
): Promise<MessageResult> {
  const { attempt } = Context.current().info;
  if (target.start) {
    const handle = await client.workflow.signalWithStart(target.start.workflow_type, {
      workflowId: target.workflow_id,
      taskQueue: target.start.task_queue,
      signal: target.signal_name,
      signalArgs: [message],
      args: [],
    });
    return { targetRef: handle.workflowId, duplicate: false, attempt };
  }
  try {
    await client.workflow.getHandle(target.workflow_id).signal(target.signal_name, message);
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) {
      throw permanent(`workflow ${target.workflow_id} is not running and the target has no start options`);
    }
    throw err;
  }
  return { targetRef: target.workflow_id, duplicate: false, attempt };
}

/** A CloudEvent POSTed to a sink, with the key a sink deduplicates on. */
export interface EventPost {
  tenant: string;
  sinkUrl: string;
  idempotencyKey: string;
  cloudEvent: Record<string, unknown>;
}

export async function publishEvent(
  delivery: EventDelivery,
  post: EventPost,
  sinkMayBePrivate: boolean,
): Promise<MessageResult> {
  const attempt = Context.current().info.attempt;
  const sink = redactUrl(post.sinkUrl);
  let status: number;
  try {
    ({ status } = await delivery.deliver({
      tenant: post.tenant,
      url: post.sinkUrl,
      headers: { 'content-type': 'application/cloudevents+json', 'idempotency-key': post.idempotencyKey },
      body: JSON.stringify(post.cloudEvent),
      allowPrivate: sinkMayBePrivate,
      timeoutMs: 15_000,
    }));
  } catch (err) {
    if (!(err instanceof EventDeliveryError)) throw err;
    // The tenant reads `message` (coarse); the raw cause is for the operator's log only.
    log.warn('event sink not reached', { sink, kind: err.kind, detail: err.detail });
    if (err.kind === 'address-refused' || err.kind === 'invalid-url')
      throw permanent(`POST ${sink}: ${err.message}`);
    throw new Error(`POST ${sink}: ${err.message}`);
  }
  if (status >= 200 && status < 300) return { targetRef: sink, duplicate: status === 208, attempt };
  // A redirect is never followed: the URL it names was checked by nobody.
  if (status >= 300 && status < 400)
    throw permanent(`POST ${sink} answered ${status} (a redirect: not followed)`);
  const message = `POST ${sink} answered ${status}`;
  if (status >= 500 || status === 408 || status === 429) throw new Error(message);
  throw permanent(message);
}

/** CloudEvents 1.0, structured JSON mode; `id` is the occurrence ID, so a sink can deduplicate retries. */
export function cloudEventOf(target: Extract<Target, { type: 'EVENT' }>, occ: OccurrenceEnvelope) {
  return {
    specversion: '1.0',
    id: occ.occurrence_id,
    source: `durable-scheduler/${occ.tenant_id}/${occ.schedule_id}`,
    type: target.event_type,
    time: occ.emitted_at,
    datacontenttype: 'application/json',
    subject: occ.scheduled_for,
    data: {
      schedule_id: occ.schedule_id,
      schedule_version: occ.schedule_version,
      scheduled_for: occ.scheduled_for,
      idempotency_key: occ.idempotency_key,
      trigger: occ.trigger,
      payload_ref: occ.payload_ref,
      payload: occ.payload,
    },
  };
}

/** A failure hook's notice as a CloudEvent: its ID is the notice's, its type says failing or recovered. */
export function noticeEventOf(notice: ScheduleNotice) {
  return {
    specversion: '1.0',
    id: notice.notice_id,
    source: `durable-scheduler/${notice.tenant_id}/${notice.schedule_id}`,
    type: NOTICE_EVENT_TYPES[notice.kind],
    time: notice.at,
    datacontenttype: 'application/json',
    subject: notice.schedule_id,
    data: notice,
  };
}
