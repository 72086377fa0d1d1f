// The commands that act on a schedule: pause, resume, trigger, backfill, cancel, delete and recompute.
import type { Command } from 'commander';
import type {
  BackfillResult,
  BulkResult,
  Occurrence,
  RecomputeResult,
  RecomputeSummary,
  Schedule,
} from '../model/contracts.js';
import { BulkAction } from '../model/contracts.js';
import { type Cli, type CommonFlags, schedulePath, showThenChange } from './command-context.js';
import { connectionOptions, serverCommand } from './command-options.js';
import {
  formatBackfill,
  formatBulk,
  formatRecompute,
  formatRecomputeSummary,
  occurrenceLine,
  scheduleLine,
} from './format.js';
import {
  buildBackfillRequest,
  buildBulkRequest,
  buildCancelRequest,
  buildPauseRequest,
  buildRecomputeRequest,
  buildTriggerRequest,
  type OverrideFlags,
  type RecomputeFlags,
} from './requests.js';

export function pauseCommand(program: Command, cli: Cli): void {
  connectionOptions(
    serverCommand(program, 'pause <id>', 'pause: no occurrences until resumed', [
      "scheduler pause weekday-sync --note 'quarter close'",
    ]).option('--note <text>', 'why (shown with the schedule)'),
  ).action(async (id: string, flags: CommonFlags & { note?: string }) => {
    const path = schedulePath(id, '/pause');
    const res = await cli.client(flags).request<Schedule>('POST', path, { body: buildPauseRequest(flags) });
    cli.answer(flags, res.body, (schedule) => scheduleLine('paused', schedule));
  });
}

export function resumeCommand(program: Command, cli: Cli): void {
  connectionOptions(
    serverCommand(
      program,
      'resume <id>',
      'resume a paused schedule (missed slots go through its misfire policy); takes over one whose owner was revoked',
      ['scheduler resume weekday-sync'],
    ),
  ).action(async (id: string, flags: CommonFlags) => {
    const res = await cli.client(flags).request<Schedule>('POST', schedulePath(id, '/resume'), { body: {} });
    cli.answer(flags, res.body, (schedule) => scheduleLine('resumed', schedule));
  });
}

export function triggerCommand(program: Command, cli: Cli): void {
  connectionOptions(
    serverCommand(program, 'trigger <id>', 'run one occurrence now (idempotent on --at)', [
      'scheduler trigger weekday-sync',
      "scheduler trigger weekday-sync --at 2026-11-02T07:00:00Z --reason 'support ticket 42'",
      `scheduler trigger weekday-sync --payload '{"region":"eu","full":true}'`,
    ])
      .option('--at <instant>', 'the slot this run stands for, an instant with Z or an offset (default: now)')
      .option('--reason <text>', 'recorded with the occurrence')
      .option('--payload <json>', "run with this JSON object instead of the target's payload")
      .option('--payload-ref <ref>', "run with this payload_ref instead of the target's"),
  ).action(async (id: string, flags: CommonFlags & { at?: string; reason?: string } & OverrideFlags) => {
    const path = schedulePath(id, '/trigger');
    const body = buildTriggerRequest(flags);
    const res = await cli.client(flags).request<Occurrence>('POST', path, { body });
    cli.answer(flags, res.body, (occurrence) => occurrenceLine('triggered', occurrence));
  });
}

export function backfillCommand(program: Command, cli: Cli): void {
  connectionOptions(
    serverCommand(program, 'backfill <id>', 'run the slots of a past range (each at most once)', [
      'scheduler backfill weekday-sync --from 2026-11-02T00:00:00Z --to 2026-11-07T00:00:00Z',
    ])
      .option('--from <instant>', 'start of the range (an instant with Z or an offset)')
      .option('--to <instant>', 'end of the range')
      .option('--reason <text>', 'recorded with each occurrence')
      .option('--payload <json>', "every slot runs with this JSON object instead of the target's payload")
      .option('--payload-ref <ref>', "every slot runs with this payload_ref instead of the target's"),
  ).action(
    async (
      id: string,
      flags: CommonFlags & { from?: string; to?: string; reason?: string } & OverrideFlags,
    ) => {
      const path = schedulePath(id, '/backfill');
      const body = buildBackfillRequest(flags);
      const res = await cli.client(flags).request<BackfillResult>('POST', path, { body });
      cli.answer(flags, res.body, (result) => formatBackfill(id, body.from, body.to, result));
    },
  );
}

export function cancelCommand(program: Command, cli: Cli): void {
  connectionOptions(
    serverCommand(program, 'cancel <id>', 'cancel: no future runs; the schedule stays readable (CANCELLED)', [
      "scheduler cancel heartbeat --note 'replaced by heartbeat-2'",
      'scheduler cancel weekday-sync --cancel-running',
    ])
      .option('--note <text>', 'why')
      .option('--cancel-running', 'also cancel target workflows still running (default: keep them)'),
  ).action(async (id: string, flags: CommonFlags & { note?: string; cancelRunning?: boolean }) => {
    const path = schedulePath(id, '/cancel');
    const res = await cli.client(flags).request<Schedule>('POST', path, { body: buildCancelRequest(flags) });
    cli.answer(flags, res.body, (schedule) => scheduleLine('cancelled', schedule));
  });
}

export function deleteCommand(program: Command, cli: Cli): void {
  connectionOptions(
    serverCommand(
      program,
      'delete <id>',
      'delete: cancel and leave out of listings (still readable by id); an ended schedule is purged',
      ['scheduler delete weekday-sync'],
    ),
  ).action(async (id: string, flags: CommonFlags) => {
    await cli.client(flags).request<undefined>('DELETE', schedulePath(id));
    // 204: no body, so --json prints nothing.
    if (!flags.json) cli.print(`deleted ${id}`);
  });
}

export function recomputeCommand(program: Command, cli: Cli): void {
  connectionOptions(
    serverCommand(
      program,
      'recompute [id]',
      "compute buffered future slots again with the worker's tz database (after a tz upgrade); all your running schedules without an id",
      [
        'scheduler recompute --zone America/Mexico_City',
        "scheduler recompute weekday-sync --reason 'tzdata 2026a'",
        'scheduler recompute --if-older-than 2026a --json',
      ],
    )
      .option('--zone <IANA>', 'only schedules whose instants depend on this zone')
      .option(
        '--if-older-than <release>',
        'only schedules with a slot computed by an older tz release (e.g. 2026a)',
      )
      .option('--reason <text>', 'recorded with the recompute'),
  ).action(async (id: string | undefined, flags: CommonFlags & RecomputeFlags) => {
    const body = buildRecomputeRequest(flags);
    const client = cli.client(flags);
    if (id) {
      const res = await client.request<RecomputeResult>('POST', schedulePath(id, '/recompute'), { body });
      cli.answer(flags, res.body, (result) => formatRecompute(id, result));
    } else {
      const res = await client.request<RecomputeSummary>('POST', '/v1/recompute', { body });
      cli.answer(flags, res.body, formatRecomputeSummary);
    }
  });
}

type BulkFlags = CommonFlags & {
  selector?: string;
  dryRun?: boolean;
  yes?: boolean;
  note?: string;
  cancelRunning?: boolean;
};

export function bulkCommand(program: Command, cli: Cli): void {
  connectionOptions(
    serverCommand(
      program,
      'bulk <action>',
      `${BulkAction.options.join(' | ')} every schedule whose labels the selector picks (on a terminal: shown, then confirmed)`,
      [
        "scheduler bulk pause --selector 'team=payments,env!=dev' --note 'payments freeze'",
        "scheduler bulk resume --selector 'team=payments' --dry-run",
        "scheduler bulk delete --selector 'app=legacy-billing' --yes",
      ],
    )
      .option(
        '--selector <selector>',
        "label selector, e.g. 'team=payments,env!=dev' or 'tier in (gold,silver)'",
      )
      .option('--dry-run', 'show what would be done, change nothing')
      .option('--yes', 'act without showing and asking first (needed when not on a terminal)')
      .option('--note <text>', 'pause, cancel, delete: why (shown with each schedule)')
      .option('--cancel-running', 'cancel, delete: also cancel target workflows still running'),
  ).action(async (action: string, flags: BulkFlags) => {
    const body = buildBulkRequest(action.toLowerCase(), flags);
    const api = cli.client(flags);
    await showThenChange(cli, flags, {
      send: async (dryRun) =>
        (await api.request<BulkResult>('POST', '/v1/bulk', { body: { ...body, dry_run: dryRun } })).body,
      format: formatBulk,
      what: 'what the selector picked',
      question: `${action} these schedules? [y/N] `,
      changes: (plan) => plan.results.some((r) => r.outcome === 'WOULD_DO'),
    });
  });
}
