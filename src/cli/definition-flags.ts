// The definition flags of `create` and `edit` → the definition's fields (timing, target, policies), each
// checked against the flags that go with it; the whole body is checked against the contracts in ./requests.ts.
import { Duration } from 'luxon';
import type { Timing } from '../calendar/timing.js';
import type { Target } from '../model/contracts.js';
import { UsageError } from './preview.js';

/** The definition flags `create` and `edit` share (commander's camel-cased option names). */
export interface DefinitionFlags {
  cron?: string;
  rule?: string;
  every?: string;
  at?: string;
  delay?: string;
  deadline?: string;
  reminder?: string[];
  anchor?: string;
  timezone?: string;
  job?: string;
  taskQueue?: string;
  event?: string;
  sink?: string;
  signal?: string;
  workflowId?: string;
  payload?: string;
  payloadRef?: string;
  misfire?: string;
  overlap?: string;
  maxLateness?: string;
  label?: string[];
  onFailure?: string;
  pauseOnFailure?: boolean;
  notifySink?: string;
}

export interface CreateFlags extends DefinitionFlags {
  id?: string;
  file?: string;
  /** The timing in words (docs/words.md), read locally: `create --when`. */
  when?: string;
  /** With --when: create what was understood without asking. */
  yes?: boolean;
}

export interface EditFlags extends DefinitionFlags {
  expectedVersion?: string;
  file?: string;
}

export const TIMING_FLAGS = ['cron', 'rule', 'every', 'at', 'delay', 'deadline'] as const;
const TARGET_FLAGS = ['job', 'event', 'signal'] as const;
const DEFINITION_FLAGS: Array<keyof DefinitionFlags> = [
  ...TIMING_FLAGS,
  'reminder',
  'anchor',
  'timezone',
  ...TARGET_FLAGS,
  'taskQueue',
  'sink',
  'workflowId',
  'payload',
  'payloadRef',
  'misfire',
  'overlap',
  'maxLateness',
  'label',
  'onFailure',
  'pauseOnFailure',
  'notifySink',
];

/** `taskQueue` → `--task-queue`. */
export const flagName = (key: string) => `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;

export function parseJsonText(field: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new UsageError(field, `is not valid JSON (${(e as Error).message})`);
  }
}

export function given<K extends keyof DefinitionFlags>(flags: DefinitionFlags, keys: readonly K[]): K[] {
  return keys.filter((k) => flags[k] !== undefined);
}

/** ISO 8601 duration or a number of seconds → seconds. */
export function parseSeconds(flag: string, value: string): number {
  if (/^\d+$/.test(value)) return Number(value);
  const d = Duration.fromISO(value);
  if (!d.isValid || d.years !== 0 || d.months !== 0 || d.weeks !== 0 || d.quarters !== 0) {
    throw new UsageError(
      flag,
      `"${value}" must be seconds or an ISO 8601 duration in days or less (e.g. PT5M)`,
    );
  }
  const seconds = d.as('seconds');
  if (!Number.isInteger(seconds)) throw new UsageError(flag, `"${value}" must be whole seconds`);
  return seconds;
}

/** The one of `keys` given (or none); two given is an error naming both. */
function oneFlagOf<K extends keyof DefinitionFlags>(
  flags: DefinitionFlags,
  keys: readonly K[],
  what: 'timing' | 'target',
): K | undefined {
  const found = given(flags, keys);
  if (found.length > 1) {
    throw new UsageError(
      flagName(found[1]!),
      `give one ${what}, not both ${flagName(found[0]!)} and ${flagName(found[1]!)}`,
    );
  }
  return found[0];
}

/** The one timing flag given (or none), once the flags that go with one timing are checked against it. */
function timingFlagOf(flags: DefinitionFlags): (typeof TIMING_FLAGS)[number] | undefined {
  const kind = oneFlagOf(flags, TIMING_FLAGS, 'timing');
  if (flags.reminder !== undefined && kind !== 'deadline') {
    throw new UsageError('--reminder', 'goes with --deadline');
  }
  if (flags.anchor !== undefined && kind !== 'every' && kind !== 'delay') {
    throw new UsageError('--anchor', 'goes with --every or --delay');
  }
  return kind;
}

/** The timing the flags describe, and the schedule-level zone (for --every / --delay), or nothing. */
function buildTiming(
  flags: DefinitionFlags,
  required: boolean,
): { timing?: Timing; timezone?: string } | undefined {
  const kind = timingFlagOf(flags);
  const zone = flags.timezone;
  switch (kind) {
    case undefined:
      if (required) {
        throw new UsageError(
          'timing',
          'give one of --cron, --rule, --every, --at, --delay or --deadline (or --file with the whole request)',
        );
      }
      if (zone !== undefined) {
        throw new UsageError(
          '--timezone',
          'an edit replaces the timing whole: give --timezone with the timing flag (--cron, --rule, --at, --deadline, --every, --delay)',
        );
      }
      return undefined;
    case 'cron':
    case 'rule': {
      if (zone === undefined) {
        throw new UsageError(
          '--timezone',
          `is required with ${flagName(kind)} (an IANA zone such as Europe/Riga, or UTC)`,
        );
      }
      return {
        timing:
          kind === 'cron'
            ? { kind: 'CRON', expression: flags.cron!, timezone: zone }
            : { kind: 'RECURRENCE', rule: flags.rule!, timezone: zone },
      };
    }
    case 'every':
    case 'delay': {
      const anchor = flags.anchor !== undefined ? { anchor: flags.anchor } : {};
      const timing: Timing =
        kind === 'every'
          ? { kind: 'INTERVAL', every: flags.every!, ...anchor }
          : { kind: 'DELAY', delay: flags.delay!, ...anchor };
      // These timings have no zone of their own: --timezone is the schedule's (windows, exclusions).
      return { timing, ...(zone !== undefined ? { timezone: zone } : {}) };
    }
    case 'at':
      return {
        timing: { kind: 'ONE_TIME', at: flags.at!, ...(zone !== undefined ? { timezone: zone } : {}) },
      };
    case 'deadline': {
      const reminders = (flags.reminder ?? []).flatMap((r) => r.split(',')).filter((r) => r.trim() !== '');
      return {
        timing: {
          kind: 'DEADLINE',
          at: flags.deadline!,
          ...(zone !== undefined ? { timezone: zone } : {}),
          ...(reminders.length > 0 ? { reminders: reminders.map((r) => r.trim()) } : {}),
        },
      };
    }
  }
}

/** The one target flag given (or none, when an edit keeps the target), its companion flags checked. */
function targetFlagOf(flags: DefinitionFlags, required: boolean): (typeof TARGET_FLAGS)[number] | undefined {
  const kind = oneFlagOf(flags, TARGET_FLAGS, 'target');
  const only = (flag: keyof DefinitionFlags, owner: string) => {
    if (flags[flag] !== undefined && kind !== owner) {
      throw new UsageError(flagName(flag), `goes with ${flagName(owner)}`);
    }
  };
  only('taskQueue', 'job');
  only('sink', 'event');
  only('workflowId', 'signal');
  if (kind === undefined) {
    for (const flag of ['payload', 'payloadRef'] as const) {
      if (flags[flag] !== undefined) {
        throw new UsageError(
          flagName(flag),
          required
            ? 'goes with a target: --job, --event or --signal'
            : 'an edit replaces the target whole: give it with the target flag (--job, --event or --signal)',
        );
      }
    }
    if (required) {
      throw new UsageError(
        'target',
        'give one of --job <job_type>, --event <event_type> --sink <url>, --signal <name> --workflow-id <id> (or --file)',
      );
    }
  }
  return kind;
}

/** --payload and --payload-ref as a target's fields (or a trigger's or backfill's override). */
export function payloadFieldsOf(
  flags: Pick<DefinitionFlags, 'payload' | 'payloadRef'>,
): Pick<Target, 'payload' | 'payload_ref'> {
  let payload: Record<string, unknown> | undefined;
  if (flags.payload !== undefined) {
    const value = parseJsonText('--payload', flags.payload);
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw new UsageError('--payload', 'must be a JSON object, e.g. {"region":"eu"}');
    }
    payload = value as Record<string, unknown>;
  }
  return {
    ...(flags.payloadRef !== undefined ? { payload_ref: flags.payloadRef } : {}),
    ...(payload !== undefined ? { payload } : {}),
  };
}

export function buildTarget(flags: DefinitionFlags, required: boolean): Target | undefined {
  const kind = targetFlagOf(flags, required);
  if (kind === undefined) return undefined;
  const extra = payloadFieldsOf(flags);
  switch (kind) {
    case 'job':
      return {
        type: 'JOB',
        job_type: flags.job!,
        ...(flags.taskQueue !== undefined ? { task_queue: flags.taskQueue } : {}),
        ...extra,
      };
    case 'event':
      if (flags.sink === undefined)
        throw new UsageError('--sink', 'is required with --event (the URL to POST to)');
      return { type: 'EVENT', event_type: flags.event!, sink_url: flags.sink, ...extra };
    case 'signal':
      if (flags.workflowId === undefined) {
        throw new UsageError('--workflow-id', 'is required with --signal (the workflow to signal)');
      }
      return { type: 'WORKFLOW_SIGNAL', signal_name: flags.signal!, workflow_id: flags.workflowId, ...extra };
  }
}

/** The definition fields the flags give (no defaults: the server applies them on create). */
export function definitionFromFlags(flags: DefinitionFlags, create: boolean): Record<string, unknown> {
  const timing = buildTiming(flags, create);
  const target = buildTarget(flags, create);
  const body: Record<string, unknown> = {};
  if (timing?.timing) body.timing = timing.timing;
  if (timing?.timezone !== undefined) body.timezone = timing.timezone;
  if (target) body.target = target;
  return { ...body, ...policiesFromFlags(flags) };
}

/** The policy fields the flags give. */
export function policiesFromFlags(flags: DefinitionFlags): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  if (flags.misfire !== undefined) body.misfire = flags.misfire;
  if (flags.overlap !== undefined) body.overlap = flags.overlap;
  if (flags.maxLateness !== undefined)
    body.max_lateness_s = parseSeconds('--max-lateness', flags.maxLateness);
  if (flags.label !== undefined) body.labels = labelsFromFlags(flags.label);
  return { ...body, ...hooksFromFlags(flags) };
}

/**
 * `--on-failure n`, `--pause-on-failure`, `--notify-sink url` → on_failure and on_recovery (the sink hears
 * both). Checked whole with the request; an edit with any of them replaces both hooks.
 */
function hooksFromFlags(flags: DefinitionFlags): Record<string, unknown> {
  const { onFailure, pauseOnFailure, notifySink } = flags;
  if (onFailure === undefined && !pauseOnFailure && notifySink === undefined) return {};
  if (onFailure !== undefined && !pauseOnFailure && notifySink === undefined)
    throw new UsageError('--on-failure', 'goes with --pause-on-failure or --notify-sink (what to do then)');
  const after = onFailure === undefined ? undefined : Number(onFailure);
  if (after !== undefined && !(Number.isInteger(after) && after >= 1))
    throw new UsageError('--on-failure', `"${onFailure}" is not a count of failures (1, 2, 3, …)`);
  const notify = notifySink === undefined ? undefined : { type: 'EVENT', sink_url: notifySink };
  const onFailureHook = {
    ...(after !== undefined ? { after_consecutive: after } : {}),
    ...(pauseOnFailure ? { pause: true } : {}),
    ...(notify ? { notify } : {}),
  };
  return { on_failure: onFailureHook, ...(notify ? { on_recovery: { notify } } : {}) };
}

/** `--label key=value` each → the labels map (their syntax is checked with the whole request). */
function labelsFromFlags(pairs: string[]): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new UsageError('--label', `"${pair}" must be key=value (e.g. team=payments)`);
    const key = pair.slice(0, eq);
    if (Object.hasOwn(labels, key)) throw new UsageError('--label', `"${key}" is given twice`);
    labels[key] = pair.slice(eq + 1);
  }
  return labels;
}

export function rejectMixedFile(flags: DefinitionFlags & { id?: string }, extra: string[] = []): void {
  const mixed = [...given(flags, DEFINITION_FLAGS), ...extra];
  if (mixed.length > 0) {
    throw new UsageError(
      flagName(mixed[0]!),
      '--file holds the whole request: give either --file or the definition flags',
    );
  }
}
