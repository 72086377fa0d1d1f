// The options of the schedule commands, in --help groups, and the frame every command that talks to the API has.
import { type Command, InvalidArgumentError, Option } from 'commander';
import { MisfirePolicy, OverlapPolicy, ScheduleStatus } from '../model/contracts.js';
import { ListSchedulesQuery } from '../model/http.js';
import { DEFAULT_TIMEOUT_MS, DEFAULT_URL } from './connection.js';
import { EXIT_CODES_HELP } from './errors.js';

/** An option value that must be one of `values` (any case). */
export function oneOf(values: readonly string[]) {
  return (value: string) => {
    const upper = value.toUpperCase();
    if (!values.includes(upper)) throw new InvalidArgumentError(`expected one of ${values.join(', ')}.`);
    return upper;
  };
}

const collect = (value: string, previous: string[] | undefined) => [...(previous ?? []), value];

// The values the API accepts, from its contracts: a policy or status added there is offered here too.
const MISFIRE = MisfirePolicy.options;
const OVERLAP = OverlapPolicy.options;
export const STATUS = ScheduleStatus.options;
export const KINDS = ListSchedulesQuery.shape.timing_kind.unwrap().options;

const CONNECTION = 'Connection options:';

/** A command that talks to the API: connection options, --json, an example and the exit codes in --help. */
export function serverCommand(
  program: Command,
  nameAndArgs: string,
  description: string,
  examples: string[],
) {
  const cmd = program.command(nameAndArgs).description(description);
  cmd.addHelpText(
    'after',
    `\nExample${examples.length > 1 ? 's' : ''}:\n${examples.map((e) => `  $ ${e}`).join('\n')}\n\n${EXIT_CODES_HELP}\n`,
  );
  return cmd;
}

/** One option of a help group: its flags, its help line and, for some, how its value is read. */
type OptionRow = [flags: string, help: string, reads?: (option: Option) => Option];

const TIMING_OPTIONS: OptionRow[] = [
  ['--cron <expr>', "cron expression, 5 fields (or 6, seconds first), e.g. '0 9 * * 1-5'"],
  ['--rule <rrule>', "RFC 5545 RRULE, e.g. 'FREQ=WEEKLY;BYDAY=MO;BYHOUR=9;BYMINUTE=0'"],
  ['--every <duration>', 'fixed interval, ISO 8601, e.g. PT10M'],
  [
    '--at <time>',
    'once, at a local time (with --timezone, e.g. 2026-09-05T14:00) or an instant (…Z / +02:00)',
  ],
  ['--delay <duration>', 'once, this long after creation (or --anchor), e.g. PT20M'],
  ['--deadline <time>', 'at a deadline (local with --timezone, or an instant), with --reminder'],
  [
    '--reminder <duration>',
    'with --deadline: also run this long before it, e.g. PT1H (repeat it, or separate with commas)',
    (option) => option.argParser(collect),
  ],
  ['--anchor <instant>', 'with --every / --delay: the instant counted from (default: creation)'],
  [
    '--timezone <zone>',
    "IANA zone (e.g. Europe/Riga): required with --cron and --rule; for --at/--deadline the zone of a local time; with --every/--delay the schedule's zone",
  ],
];

const TARGET_OPTIONS: OptionRow[] = [
  ['--job <job_type>', 'start a workflow of this type per occurrence'],
  ['--task-queue <queue>', 'with --job: the task queue (default: the server’s)'],
  ['--event <event_type>', 'POST a CloudEvent of this type per occurrence'],
  ['--sink <url>', 'with --event: where to POST it'],
  ['--signal <name>', 'signal a workflow per occurrence'],
  ['--workflow-id <id>', 'with --signal: the workflow to signal'],
  ['--payload <json>', 'inline JSON object handed to the target'],
  ['--payload-ref <ref>', 'a reference to the payload, e.g. state://reports/daily'],
];

const POLICY_OPTIONS: OptionRow[] = [
  [
    '--misfire <policy>',
    `slots found late on wake: ${MISFIRE.join(' | ')}`,
    (option) => option.argParser(oneOf(MISFIRE)),
  ],
  [
    '--overlap <policy>',
    `previous run still running: ${OVERLAP.join(' | ')}`,
    (option) => option.argParser(oneOf(OVERLAP)),
  ],
  ['--max-lateness <seconds|duration>', 'a slot later than this is a misfire (e.g. 60 or PT5M)'],
  [
    '--label <key=value>',
    'a label to select the schedule by (repeat it); an edit with --label replaces the labels whole',
    (option) => option.argParser(collect),
  ],
  ['--on-failure <n>', 'after n failed occurrences in a row: --pause-on-failure and/or --notify-sink'],
  ['--pause-on-failure', 'pause the schedule then (n: --on-failure, default 3)'],
  [
    '--notify-sink <url>',
    'POST a CloudEvent there when it starts failing (--on-failure) and when it recovers',
  ],
];

const CONNECTION_OPTIONS: OptionRow[] = [
  ['--url <url>', `scheduler API base URL (env SCHEDULER_URL; default ${DEFAULT_URL})`],
  [
    '--api-key-file <path>',
    'file holding the API key (or env SCHEDULER_API_KEY; default: the development key `npm start` wrote to .data/dev-api-key, or $SCHEDULER_DATA_DIR/dev-api-key)',
  ],
  [
    '--api-key <key>',
    'API key on the command line (visible in `ps` and shell history: prefer the file or the environment)',
  ],
  ['--timeout <ms>', `give up after this many milliseconds (default ${DEFAULT_TIMEOUT_MS})`],
];

function addGroup(cmd: Command, group: string, rows: OptionRow[]): Command {
  for (const [flags, help, reads] of rows) {
    const option = new Option(flags, help).helpGroup(group);
    cmd.addOption(reads ? reads(option) : option);
  }
  return cmd;
}

export function connectionOptions(cmd: Command): Command {
  cmd.addOption(new Option('--json', "print the API's JSON response (for scripts)"));
  return addGroup(cmd, CONNECTION, CONNECTION_OPTIONS);
}

/** The definition options `create` and `edit` share. */
export function definitionOptions(cmd: Command): Command {
  addGroup(cmd, 'Timing (one of):', TIMING_OPTIONS);
  addGroup(cmd, 'Target (one of):', TARGET_OPTIONS);
  return addGroup(cmd, 'Policies:', POLICY_OPTIONS);
}
