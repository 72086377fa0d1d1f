// What a tenant's schedules may reach: the operator's tenant policy (SCHEDULER_TENANTS_FILE). The scheduler
// acts with a namespace-wide Temporal client and a network position inside the deployment, so a target
// is a capability the host grants, never one the tenant names for itself (source spec: the target
// capability is bound by the host). Checked twice against the policy in force at that moment: where a
// definition enters (create, edit) and where its effect happens (the worker's hand-off). Pure: the file is
// read and watched by the process that owns it (src/runtime/tenant-policy-file.ts).
import { z } from 'zod';
import { Identifier, type Target } from './contracts.js';
import { isSchedulerWorkflowId } from './ids.js';
import { classifyHost } from './network-address.js';

/** Exact, or a prefix when it ends in `*` (`*` alone: anything). */
const Pattern = z
  .string()
  .min(1)
  .max(1000)
  .refine((p) => !p.slice(0, -1).includes('*'), {
    message: "a pattern is exact, or a prefix ending in '*'; '*' may only be its last character",
  });

const SinkUrlPrefix = z
  .string()
  .min(1)
  .max(2048)
  .superRefine((entry, ctx) => {
    if (entry === '*') return;
    const reason = sinkPrefixProblem(entry);
    if (reason) ctx.addIssue({ code: 'custom', message: reason });
  });

/**
 * A sink entry: a URL prefix (or `*`: any http(s) URL), optionally marked `private`: only then may a
 * hostname under it resolve to a loopback, private or link-local address. An entry whose host is an IP
 * literal opts that one address in by itself.
 */
const SinkEntry = z.union([
  SinkUrlPrefix,
  z.strictObject({
    url: SinkUrlPrefix,
    private: z
      .boolean()
      .default(false)
      .describe('the sink may be on a private, loopback or link-local address'),
  }),
]);

/**
 * What one tenant may consume of the shared deployment (security review M3: one tenant must not be able to
 * starve the others or turn the scheduler into an amplifier). Enforced by the API (src/api/quotas.ts), where
 * a definition or a backfill enters; `max_handoffs_in_flight` is read by the workflow.
 */
export const TenantQuotas = z
  .strictObject({
    max_schedules: z
      .number()
      .int()
      .min(0)
      .default(1000)
      .describe('live schedules (not ended, not deleted) the tenant may have'),
    min_interval_s: z
      .number()
      .min(0)
      .default(10)
      .describe('smallest gap in seconds between two consecutive runs, measured on the next 50 runs'),
    max_backfill_slots: z.number().int().min(0).default(1000).describe('slots one backfill may cover'),
    max_backfill_slots_per_hour: z
      .number()
      .int()
      .min(0)
      .default(10_000)
      .describe('backfilled slots per sliding hour, counted by each API process'),
    max_handoffs_in_flight: z
      .number()
      .int()
      .min(1)
      .default(50)
      .describe('hand-offs one schedule may have running at once (enforced by the workflow)'),
    api_units_per_minute: z
      .number()
      .int()
      .min(1)
      .optional()
      .describe("the tenant's weighted API budget per minute; default SCHEDULER_API_RATE_LIMIT"),
  })
  .describe("what one tenant's schedules may consume");
export type TenantQuotas = z.infer<typeof TenantQuotas>;

/** The development policies' quotas: no limit (the test suites create schedules firing every second). */
export const UNLIMITED_QUOTAS: TenantQuotas = Object.freeze({
  max_schedules: Number.POSITIVE_INFINITY,
  min_interval_s: 0,
  max_backfill_slots: Number.POSITIVE_INFINITY,
  max_backfill_slots_per_hour: Number.POSITIVE_INFINITY,
  max_handoffs_in_flight: Number.POSITIVE_INFINITY,
});

/** A tenant's quotas when its entry names none (or it has no entry: it then reaches no target anyway). */
export const DEFAULT_QUOTAS: TenantQuotas = Object.freeze(TenantQuotas.parse({}));

export const TenantTargets = z
  .strictObject({
    job_task_queues: z
      .array(Pattern)
      .default([])
      .describe(
        'task queues JOB targets (and signal-with-start) may start on; the first exact name is the default',
      ),
    job_types: z.array(Pattern).default([]).describe('workflow types a JOB (or signal-with-start) may start'),
    signal_workflow_ids: z.array(Pattern).default([]).describe('workflow IDs a WORKFLOW_SIGNAL may signal'),
    event_sinks: z.array(SinkEntry).default([]).describe('URL prefixes an EVENT may POST to'),
    quotas: TenantQuotas.prefault({}).describe('limits on what the tenant consumes; each has a default'),
  })
  .describe("what one tenant's schedules may reach, and how much they may consume");
export type TenantTargets = z.infer<typeof TenantTargets>;

export const TenantPolicyFile = z.strictObject({
  tenants: z.record(Identifier, TenantTargets),
});
export type TenantPolicyFile = z.infer<typeof TenantPolicyFile>;

/** The target fields a refusal names (closed: also a metric label). */
export type TargetField =
  | 'target.job_type'
  | 'target.task_queue'
  | 'target.workflow_id'
  | 'target.start.workflow_type'
  | 'target.start.task_queue'
  | 'target.sink_url';

export type TargetVerdict =
  | {
      allowed: true;
      /** For an EVENT: whether the sink may be on a non-public address (the worker checks at connect). */
      sinkMayBePrivate: boolean;
    }
  | {
      allowed: false;
      field: TargetField;
      reason: string;
      /** The tenant has no entry at all (not one target refused): a file that lost an entry mid-edit. */
      tenantUnlisted?: true;
    };

export interface TargetContext {
  /** The scheduler's own task queue: never a target's (its workers run schedules, not jobs). */
  schedulerTaskQueue: string;
  /** Where a JOB without `task_queue` starts (what the workflow was given at create). */
  defaultJobTaskQueue: string;
}

const matches = (patterns: readonly string[], value: string) =>
  patterns.some((p) => (p.endsWith('*') ? value.startsWith(p.slice(0, -1)) : p === value));

/** Percent-encoded `/`, `\` or `.` in a path, which a receiving server may decode into another path. */
const ENCODED_SEPARATOR = /%(2f|5c|2e)/i;

/** Why a sink URL can never be used, whatever the policy; null when it is a usable http(s) URL. */
export function sinkUrlProblem(url: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'the event sink URL is not an absolute URL (like https://host/path)';
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    return `the event sink URL must use http or https, not ${parsed.protocol.slice(0, -1)}`;
  if (parsed.username || parsed.password)
    return 'the event sink URL must not contain a user name or password (user:password@); send credentials another way';
  if (ENCODED_SEPARATOR.test(parsed.pathname))
    return "the event sink URL path must not contain an encoded '/', '\\' or '.' (%2F, %5C, %2E)";
  return null;
}

function sinkPrefixProblem(entry: string): string | null {
  const problem = sinkUrlProblem(entry);
  if (problem) return problem.replace('the event sink URL', 'a sink prefix');
  if (/[?#]/.test(entry)) return 'a sink prefix must not contain a query (?) or fragment (#)';
  return null;
}

interface SinkRule {
  /** null: any http(s) URL. */
  prefix: { protocol: string; host: string; path: string } | null;
  mayBePrivate: boolean;
  shown: string;
}

function sinkRule(entry: TenantTargets['event_sinks'][number]): SinkRule {
  const { url, private: marked } = typeof entry === 'string' ? { url: entry, private: false } : entry;
  if (url === '*') return { prefix: null, mayBePrivate: marked, shown: marked ? '* (private)' : '*' };
  const parsed = new URL(url);
  // An IP-literal entry names the one address it opts in; a hostname entry opts nothing in by itself
  // (whoever controls that name's DNS could point it inside at any time).
  const literal = classifyHost(parsed.hostname).kind === 'ip';
  return {
    prefix: { protocol: parsed.protocol, host: parsed.host, path: parsed.pathname },
    mayBePrivate: marked || literal,
    shown: marked ? `${parsed.href} (private)` : parsed.href,
  };
}

function underPrefix(prefix: NonNullable<SinkRule['prefix']>, url: URL): boolean {
  if (url.protocol !== prefix.protocol || url.host !== prefix.host) return false;
  if (prefix.path.endsWith('/')) return url.pathname.startsWith(prefix.path);
  // `https://a.example/hooks` admits `/hooks`, `/hooks/…`, `/hooks?…` but not `/hooks-evil`.
  return url.pathname === prefix.path || url.pathname.startsWith(`${prefix.path}/`);
}

const listed = (entries: readonly string[]) => (entries.length ? entries.join(', ') : 'none');

/**
 * The operator's tenant policy, immutable: a reload makes a new one. A tenant without an entry reaches
 * nothing (deny by default).
 */
export class TenantPolicy {
  private constructor(
    private readonly tenants: ReadonlyMap<string, TenantTargets>,
    /** Every tenant reaches everything (development and the testing kit only). */
    private readonly openToAll: boolean,
    /** Where the policy came from (the file's path): for the operator's log only, never in a verdict. */
    readonly source: string,
  ) {}

  /** Parses the policy file's JSON text; errors name the tenant and field (`source` says where). */
  static parse(text: string, source = 'SCHEDULER_TENANTS_FILE'): TenantPolicy {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (err) {
      throw new TenantPolicyError(`${source} is not JSON: ${(err as Error).message}`);
    }
    const parsed = TenantPolicyFile.safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      const where = issue.path.map(String).join('.') || '(top level)';
      throw new TenantPolicyError(`${source}: ${where}: ${issue.message}`);
    }
    return new TenantPolicy(new Map(Object.entries(parsed.data.tenants)), false, source);
  }

  static fromTenants(
    tenants: Record<string, z.input<typeof TenantTargets>>,
    source = 'policy',
  ): TenantPolicy {
    return TenantPolicy.parse(JSON.stringify({ tenants }), source);
  }

  /** The development policy: every tenant may reach every queue, workflow and sink (private ones too). */
  static openToAll(source = 'development: open to every tenant'): TenantPolicy {
    return new TenantPolicy(new Map(), true, source);
  }

  /** An open policy for the named tenants only (the development tenant of `npm start`). */
  static openFor(tenantIds: readonly string[], source = 'development'): TenantPolicy {
    const open: TenantTargets = {
      job_task_queues: ['*'],
      job_types: ['*'],
      signal_workflow_ids: ['*'],
      event_sinks: [{ url: '*', private: true }],
      quotas: UNLIMITED_QUOTAS,
    };
    return new TenantPolicy(new Map(tenantIds.map((t) => [t, open])), false, source);
  }

  get isOpenToAll(): boolean {
    return this.openToAll;
  }

  /** What `tenant` may consume: unlimited in the development policies, else its entry's (defaults filled in). */
  quotas(tenant: string): TenantQuotas {
    if (this.openToAll) return UNLIMITED_QUOTAS;
    return this.tenants.get(tenant)?.quotas ?? DEFAULT_QUOTAS;
  }

  tenantIds(): string[] {
    return [...this.tenants.keys()];
  }

  /** One line for the logs: which tenants have an entry. */
  describe(): string {
    if (this.openToAll) return `tenant policy (${this.source})`;
    const ids = this.tenantIds();
    return `tenant policy from ${this.source}: ${ids.length} tenant${ids.length === 1 ? '' : 's'} (${ids.join(', ') || 'none: every target is refused'})`;
  }

  /**
   * Where a JOB that names no task_queue starts for `tenant`: the first exact name of its
   * job_task_queues, else the deployment's default (which the policy must then allow).
   */
  defaultJobTaskQueue(tenant: string, deploymentDefault: string): string {
    const exact = this.tenants.get(tenant)?.job_task_queues.find((q) => !q.endsWith('*'));
    return exact ?? deploymentDefault;
  }

  /** Whether `tenant`'s schedule may reach `target`, and if not, which field and which entry would allow it. */
  check(tenant: string, target: Target, context: TargetContext): TargetVerdict {
    const own = schedulerOwnRefusal(target, context);
    if (own) return own;
    if (this.openToAll) return { allowed: true, sinkMayBePrivate: true };
    const policy = this.tenants.get(tenant);
    if (!policy) return unlistedRefusal(tenant, target);
    return checkListed(tenant, policy, target, context);
  }
}

const refuse = (field: TargetField, reason: string): TargetVerdict => ({ allowed: false, field, reason });

/** What no policy allows: signalling a scheduler workflow, or starting on the scheduler's own task queue. */
function schedulerOwnRefusal(target: Target, context: TargetContext): TargetVerdict | null {
  if (target.type === 'WORKFLOW_SIGNAL' && isSchedulerWorkflowId(target.workflow_id)) {
    return refuse(
      'target.workflow_id',
      "names a scheduler workflow (schedule/…, occurrence/… or the owner registry): schedules are managed through the API, never signalled by another schedule, your own tenant's included",
    );
  }
  const queues: Array<[TargetField, string]> =
    target.type === 'JOB'
      ? [['target.task_queue', target.task_queue ?? context.defaultJobTaskQueue]]
      : target.type === 'WORKFLOW_SIGNAL' && target.start
        ? [['target.start.task_queue', target.start.task_queue]]
        : [];
  for (const [field, queue] of queues) {
    if (queue === context.schedulerTaskQueue)
      return refuse(field, `task queue ${queue} is the scheduler's own: name the queue your workers poll`);
  }
  return null;
}

/** A tenant without an entry reaches nothing; the refusal names the target's main field. */
function unlistedRefusal(tenant: string, target: Target): TargetVerdict {
  const field: TargetField =
    target.type === 'JOB'
      ? 'target.job_type'
      : target.type === 'EVENT'
        ? 'target.sink_url'
        : 'target.workflow_id';
  return {
    allowed: false,
    field,
    reason: `tenant ${tenant} has no entry in the tenant policy, so its schedules reach no target: the operator adds "tenants.${tenant}"`,
    tenantUnlisted: true,
  };
}

/** A target checked against the tenant's entry. */
function checkListed(
  tenant: string,
  policy: TenantTargets,
  target: Target,
  context: TargetContext,
): TargetVerdict {
  // A reason reaches the tenant (a 403's detail, an occurrence's reason): "the tenant policy", never
  // `source`, which names a file on the server (security review 2, N9). The operator's log has `source`.
  const entry = (list: keyof TenantTargets) => `tenants.${tenant}.${list} in the tenant policy`;
  switch (target.type) {
    case 'JOB':
      return (
        checkStart(policy, entry, {
          type: target.job_type,
          typeField: 'target.job_type',
          queue: target.task_queue ?? context.defaultJobTaskQueue,
          queueField: 'target.task_queue',
          named: target.task_queue !== undefined,
        }) ?? { allowed: true, sinkMayBePrivate: false }
      );
    case 'WORKFLOW_SIGNAL': {
      if (!matches(policy.signal_workflow_ids, target.workflow_id))
        return refuse(
          'target.workflow_id',
          `workflow ID ${target.workflow_id} is not among the workflows this tenant may signal (${listed(policy.signal_workflow_ids)}): the operator adds it to ${entry('signal_workflow_ids')}`,
        );
      if (target.start) {
        const refused = checkStart(policy, entry, {
          type: target.start.workflow_type,
          typeField: 'target.start.workflow_type',
          queue: target.start.task_queue,
          queueField: 'target.start.task_queue',
          named: true,
        });
        if (refused) return refused;
      }
      return { allowed: true, sinkMayBePrivate: false };
    }
    case 'EVENT':
      return checkSink(policy.event_sinks.map(sinkRule), target.sink_url, entry('event_sinks'));
  }
}

/** A workflow start (a JOB, a signal-with-start): its type and task queue; `named`: the queue was given. */
interface Start {
  type: string;
  typeField: TargetField;
  queue: string;
  queueField: TargetField;
  named: boolean;
}

/** Whether the entry allows the start's workflow type and task queue; null when it does. */
function checkStart(
  policy: TenantTargets,
  entry: (list: keyof TenantTargets) => string,
  { type, typeField, queue, queueField, named }: Start,
): TargetVerdict | null {
  if (!matches(policy.job_types, type))
    return refuse(
      typeField,
      `workflow type ${type} is not among this tenant's job types (${listed(policy.job_types)}): the operator adds it to ${entry('job_types')}`,
    );
  if (!matches(policy.job_task_queues, queue))
    return refuse(
      queueField,
      `${named ? '' : 'the default '}task queue ${queue} is not among this tenant's queues (${listed(policy.job_task_queues)}): ${named ? 'name one of them, or' : 'name one of them in task_queue, or'} the operator adds it to ${entry('job_task_queues')}`,
    );
  return null;
}

function checkSink(rules: readonly SinkRule[], url: string, entry: string): TargetVerdict {
  const refuseSink = (reason: string) => refuse('target.sink_url', reason);
  const problem = sinkUrlProblem(url);
  if (problem) return refuseSink(problem);
  const parsed = new URL(url);
  const rule = rules.find((r) => r.prefix === null || underPrefix(r.prefix, parsed));
  if (!rule)
    return refuseSink(
      `the event sink URL is not under one of this tenant's sink prefixes (${listed(rules.map((r) => r.shown))}): use one of them, or the operator adds it to ${entry}`,
    );
  const host = classifyHost(parsed.hostname);
  if (host.kind === 'ip' && host.range !== 'public' && !rule.mayBePrivate)
    return refuseSink(
      `the event sink is on a ${host.range} address (${host.address}): a tenant reaches a non-public address only where ${entry} lists that address, or an entry marked private`,
    );
  return { allowed: true, sinkMayBePrivate: rule.mayBePrivate };
}

/** The tenant policy file cannot be used; the message names the tenant and field. */
export class TenantPolicyError extends Error {
  override name = 'TenantPolicyError';
}
