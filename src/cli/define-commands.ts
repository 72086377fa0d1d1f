// The commands that write a definition: create (from flags, a file or words) and edit.
import { type Command, Option } from 'commander';
import type { Schedule } from '../model/contracts.js';
import { type Cli, type CommonFlags, readFileArg, schedulePath } from './command-context.js';
import { connectionOptions, definitionOptions, serverCommand } from './command-options.js';
import { scheduleLine, terminalSafeLines } from './format.js';
import { buildInterpretRequest, formatProblem, formatReading, problemError, readWords } from './interpret.js';
import { UsageError } from './preview.js';
import {
  buildCreateFromWords,
  buildCreateRequest,
  buildPatchRequest,
  type CreateFlags,
  type EditFlags,
} from './requests.js';

export function createCommand(program: Command, cli: Cli): void {
  const create = serverCommand(program, 'create', 'create a schedule (idempotent on --id)', [
    "scheduler create --id weekday-sync --cron '0 9 * * 1-5' --timezone Europe/Riga --job source.sync --task-queue jobs --overlap SKIP",
    'scheduler create --id heartbeat --every PT10M --event heartbeat.tick --sink http://127.0.0.1:9999/events',
    'scheduler create --id contract-42 --deadline 2026-12-01T17:00 --timezone Europe/Berlin --reminder PT24H --reminder PT1H --signal remind --workflow-id contract-42',
    'scheduler create --file schedule.json      # the whole CreateScheduleRequest; - reads stdin',
    'scheduler create --id standup --when "every weekday at 09:30 in Europe/Riga" --job standup.remind --yes',
  ]).option(
    '--id <schedule_id>',
    'your id for the schedule (default: a new UUID); the same body again is a no-op',
  );
  create.addOption(
    new Option(
      '--when <text>',
      'the timing in words, English or Russian (see `scheduler interpret`): read here, shown, confirmed, and kept as authored_from',
    ).helpGroup('Timing (one of):'),
  );
  create.addOption(
    new Option(
      '--yes',
      'with --when: create what was understood without asking (needed when not on a terminal)',
    ).helpGroup('Timing (one of):'),
  );
  definitionOptions(create).option(
    '--file <path>',
    'JSON file with the whole CreateScheduleRequest (- = stdin)',
  );
  connectionOptions(create).action(async (flags: CreateFlags & CommonFlags) => {
    if (flags.when !== undefined) return await createFromWords(flags, cli);
    if (flags.yes)
      throw new UsageError('--yes', 'goes with --when (it confirms what the words were read into)');
    const body = buildCreateRequest(flags, await readFileArg(cli.io, flags.file), cli.io.now());
    const res = await cli.client(flags).request<Schedule>('POST', '/v1/schedules', { body });
    const verb = res.status === 201 ? 'created' : 'already exists, unchanged:';
    cli.answer(flags, res.body, (schedule) => scheduleLine(verb, schedule));
  });
}

/**
 * `create --when`: the words read here (as POST /v1/interpret reads them), what was understood printed
 * (on stderr with --json, whose stdout is the API's answer), confirmed on a terminal unless --yes (never
 * created without one of them), then created with `authored_from`.
 */
async function createFromWords(flags: CreateFlags & CommonFlags, cli: Cli): Promise<void> {
  const say = (text: string) =>
    flags.json ? cli.io.stderr(`${terminalSafeLines(text)}\n`) : cli.print(text);
  const now = cli.io.now();
  const text = flags.when!;
  const answer = readWords(
    buildInterpretRequest(text, flags.timezone !== undefined ? { timezone: flags.timezone } : {}),
    now,
  );
  if (answer.status === 422) {
    const shown = formatProblem(text, answer.body);
    if (shown) say(shown);
    throw problemError(answer.body);
  }
  const body = buildCreateFromWords(flags, answer.body, now);
  const api = cli.client(flags);
  say(`Understood: ${formatReading(answer.body)}\n`);
  if (!flags.yes) {
    if (!cli.io.isTTY) {
      throw new UsageError(
        '--yes',
        'is needed when not on a terminal (nobody can confirm what the words were read into): nothing was created; check what was understood above and pass --yes',
      );
    }
    if (!(await cli.io.confirm('Create this schedule? [y/N] '))) {
      throw new Error('not created: not confirmed');
    }
  }
  const res = await api.request<Schedule>('POST', '/v1/schedules', { body });
  const verb = res.status === 201 ? 'created' : 'already exists, unchanged:';
  cli.answer(flags, res.body, (schedule) => scheduleLine(verb, schedule));
}

export function editCommand(program: Command, cli: Cli): void {
  const edit = serverCommand(
    program,
    'edit <id>',
    'change definition fields under the version you read (a PATCH: only the fields given change, each whole)',
    [
      "scheduler edit weekday-sync --expected-version 3 --cron '30 8 * * 1-5' --timezone Europe/Riga",
      'scheduler edit heartbeat --expected-version 1 --overlap SKIP --max-lateness PT5M',
      'echo \'{"exclusions": null}\' | scheduler edit weekday-sync --expected-version 4 --file -',
    ],
  ).option('--expected-version <n>', 'the version you read; a stale one is refused (exit 4)');
  definitionOptions(edit).option(
    '--file <path>',
    'JSON file with the PATCH body (null clears a field; - = stdin); --expected-version overrides its own',
  );
  connectionOptions(edit).action(async (id: string, flags: EditFlags & CommonFlags) => {
    const path = schedulePath(id);
    const body = buildPatchRequest(flags, await readFileArg(cli.io, flags.file), cli.io.now());
    const res = await cli.client(flags).request<Schedule>('PATCH', path, { body });
    cli.answer(flags, res.body, (schedule) => scheduleLine('edited', schedule));
  });
}
