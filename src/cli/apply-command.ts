// `scheduler apply -f <file>`: schedules as code. The file's schedules are sent as one plan (POST /v1/apply);
// on a terminal the plan is shown first (what is created, updated, deleted, with the next runs before and
// after each change) and applied once confirmed; elsewhere `--yes` applies and `--dry-run` only shows.
import type { Command } from 'commander';
import type { ApplyResult } from '../model/http.js';
import { buildApplyRequest } from './apply-file.js';
import { type Cli, type CommonFlags, readFileArg, showThenChange } from './command-context.js';
import { connectionOptions, serverCommand } from './command-options.js';
import { formatApply } from './format.js';
import { UsageError } from './preview.js';

type ApplyFlags = CommonFlags & {
  file?: string;
  prune?: string;
  dryRun?: boolean;
  yes?: boolean;
  force?: boolean;
  count?: string;
};

export function applyCommand(program: Command, cli: Cli): void {
  connectionOptions(
    serverCommand(
      program,
      'apply',
      'apply the schedules a YAML or JSON file declares: create, update, leave alone, and with --prune delete (shown, then confirmed)',
      [
        'scheduler apply -f schedules.yaml --dry-run',
        "scheduler apply -f schedules.yaml --prune 'managed-by=payments-repo' --yes",
      ],
    )
      .option(
        '-f, --file <path>',
        'the file: a list of schedule.v1 documents, each with its schedule_id (- = stdin)',
      )
      .option(
        '--prune <selector>',
        "also delete the schedules this label selector picks that the file does not have, e.g. 'managed-by=payments-repo'",
      )
      .option('--dry-run', 'show the plan, change nothing')
      .option('--yes', 'apply without showing and asking first (needed when not on a terminal)')
      .option(
        '--force',
        'overwrite schedules edited by other means since the last apply (default: a conflict)',
      )
      .option('--count <n>', 'next runs shown before and after each change, 0 to 10 (default 3)'),
  ).action(async (flags: ApplyFlags) => {
    if (flags.file === undefined)
      throw new UsageError('--file', 'is required: the file to apply (- = stdin)');
    const body = buildApplyRequest((await readFileArg(cli.io, flags.file))!, flags, cli.io.now());
    const api = cli.client(flags);
    await showThenChange(cli, flags, {
      send: async (dryRun) =>
        (await api.request<ApplyResult>('POST', '/v1/apply', { body: { ...body, dry_run: dryRun } })).body,
      format: formatApply,
      what: 'the plan',
      question: 'Apply this plan? [y/N] ',
      changes: (plan) => plan.changes.some((c) => c.action !== 'UNCHANGED'),
      refusal: (plan) =>
        plan.changes.some((c) => c.action === 'CONFLICT')
          ? 'nothing applied: the plan has conflicts (take the edits into the file, or --force)'
          : null,
    });
  });
}
