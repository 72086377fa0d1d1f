/**
 * The schedule commands of the `scheduler` CLI: every schedule operation over the HTTP API.
 *
 *   create | list | get | describe | edit | pause | resume | trigger | backfill | cancel | delete | occurrences
 *
 * Each command builds its request with ./requests.ts (checked locally against the model's contracts),
 * sends it with ./connection.ts, and prints a table (./format.ts) or, with --json, the API's JSON.
 */
import { readFile } from 'node:fs/promises';
import { createInterface } from 'node:readline/promises';
import { type Command, InvalidArgumentError, Option } from 'commander';
import type { z } from 'zod';
import {
  type BackfillResult,
  MisfirePolicy,
  type Occurrence,
  OverlapPolicy,
  type RecomputeResult,
  type RecomputeSummary,
  type Schedule,
  type ScheduleDescription,
  ScheduleStatus,
} from '../model/contracts.js';
import { ListSchedulesQuery, type OccurrencePage, type SchedulePage } from '../model/http.js';
import {
  ApiClient,
  type ConnectionFlags,
  DEFAULT_TIMEOUT_MS,
  DEFAULT_URL,
  type Fetch,
  resolveConnection,
} from './connection.js';
import { EXIT_CODES_HELP } from './errors.js';
import {
  formatBackfill,
  formatDescription,
  formatOccurrences,
  formatRecompute,
  formatRecomputeSummary,
  formatSchedule,
  formatScheduleList,
  occurrenceLine,
  scheduleLine,
  terminalSafeLines,
} from './format.js';
import { buildInterpretRequest, formatProblem, formatReading, problemError, readWords } from './interpret.js';
import { UsageError } from './preview.js';
import {
  buildBackfillRequest,
  buildCancelRequest,
  buildCreateFromWords,
  buildCreateRequest,
  buildListQuery,
  buildOccurrencesQuery,
  buildPatchRequest,
  buildPauseRequest,
  buildRecomputeRequest,
  buildTriggerRequest,
  type CreateFlags,
  checkScheduleId,
  type EditFlags,
  type ListFlags,
  type RecomputeFlags,
} from './requests.js';

/** What the commands touch outside themselves; `main` passes the process's, tests their own. */
export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  env: NodeJS.ProcessEnv;
  fetch: Fetch;
  /** Reads a --file; `-` is stdin. */
  readFile: (path: string) => Promise<string>;
  now: () => Date;
  /** Someone is at the terminal to answer a question (standard input is a TTY). */
  isTTY: boolean;
  /** Asks a yes/no question on the terminal; true for yes. */
  confirm: (question: string) => Promise<boolean>;
}

async function askTerminal(question: string): Promise<boolean> {
  const readline = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^(y|yes)$/i.test((await readline.question(question)).trim());
  } finally {
    readline.close();
  }
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export function processIo(): CliIo {
  return {
    stdout: (s) => process.stdout.write(s),
    stderr: (s) => process.stderr.write(s),
    env: process.env,
    fetch: (...args) => fetch(...args),
    readFile: (path) => (path === '-' ? readStdin() : readFile(path, 'utf8')),
    now: () => new Date(),
    isTTY: Boolean(process.stdin.isTTY),
    confirm: askTerminal,
  };
}

interface CommonFlags extends ConnectionFlags {
  json?: boolean;
}

/** An option value that must be one of `values` (any case). */
function oneOf(values: readonly string[]) {
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
const STATUS = ScheduleStatus.options;
const KINDS = ListSchedulesQuery.shape.timing_kind.unwrap().options;

const CONNECTION = 'Connection options:';

/** A command that talks to the API: connection options, --json, an example and the exit codes in --help. */
function serverCommand(program: Command, nameAndArgs: string, description: string, examples: string[]) {
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

function connectionOptions(cmd: Command): Command {
  cmd.addOption(new Option('--json', "print the API's JSON response (for scripts)"));
  return addGroup(cmd, CONNECTION, CONNECTION_OPTIONS);
}

/** The definition options `create` and `edit` share. */
function definitionOptions(cmd: Command): Command {
  addGroup(cmd, 'Timing (one of):', TIMING_OPTIONS);
  addGroup(cmd, 'Target (one of):', TARGET_OPTIONS);
  return addGroup(cmd, 'Policies:', POLICY_OPTIONS);
}

async function readFileArg(io: CliIo, path: string | undefined): Promise<string | undefined> {
  if (path === undefined) return undefined;
  try {
    return await io.readFile(path);
  } catch (err) {
    throw new UsageError(
      '--file',
      `cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
    );
  }
}

const schedulePath = (id: string, suffix = '') =>
  `/v1/schedules/${encodeURIComponent(checkScheduleId(id))}${suffix}`;

/** What every command's action uses: the process's I/O, an API client for its flags, and stdout. */
interface Cli {
  io: CliIo;
  client: (flags: CommonFlags) => ApiClient;
  print: (text: string) => void;
  /** --json prints the API's body as it came; otherwise `human` renders it. */
  answer: <T>(flags: CommonFlags, body: T, human: (body: T) => string) => void;
}

function cliOf(io: CliIo): Cli {
  // Human output, whatever it quotes, reaches the terminal inert; --json goes out as the API sent it.
  const print = (text: string) => io.stdout(`${terminalSafeLines(text)}\n`);
  return {
    io,
    client: (flags) => {
      const connection = resolveConnection(flags, io.env);
      for (const warning of connection.warnings) io.stderr(`${warning}\n`);
      return new ApiClient(connection, io.fetch);
    },
    print,
    answer: (flags, body, human) =>
      flags.json ? io.stdout(`${JSON.stringify(body, null, 2)}\n`) : print(human(body)),
  };
}

function createCommand(program: Command, cli: Cli): void {
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

type SchedulePageBody = z.infer<typeof SchedulePage>;

/** `first` and every page after it, as one page (bounded, should a server never stop answering a cursor). */
async function allPages(
  api: ApiClient,
  query: Record<string, string>,
  first: SchedulePageBody,
): Promise<SchedulePageBody> {
  const items = [...first.items];
  let page = first;
  for (let pages = 1; page.next_cursor && pages < 10_000; pages++) {
    const next = { ...query, cursor: page.next_cursor };
    page = (await api.request<SchedulePageBody>('GET', '/v1/schedules', { query: next })).body;
    items.push(...page.items);
  }
  return { items, next_cursor: null };
}

function listCommand(program: Command, cli: Cli): void {
  const list = serverCommand(program, 'list', "list your tenant's schedules (newest first)", [
    'scheduler list --status ACTIVE --kind CRON',
    'scheduler list --all --json | jq -r ".items[].schedule_id"',
  ])
    .addOption(new Option('--status <status>', STATUS.join(' | ')).argParser(oneOf(STATUS)))
    .addOption(new Option('--kind <kind>', `timing kind: ${KINDS.join(' | ')}`).argParser(oneOf(KINDS)))
    .option('--limit <n>', 'schedules per page, 1 to 100 (default 20)')
    .option('--cursor <cursor>', 'continue from the `next_cursor` of a previous page')
    .option('--all', 'follow the cursors to the last page (with --json: one page object with every item)')
    .option('--include-deleted', 'also list deleted schedules');
  connectionOptions(list).action(async (flags: ListFlags & CommonFlags & { all?: boolean }) => {
    const query = buildListQuery(flags);
    const api = cli.client(flags);
    const first = (await api.request<SchedulePageBody>('GET', '/v1/schedules', { query })).body;
    const page = flags.all ? await allPages(api, query, first) : first;
    cli.answer(flags, page, ({ items, next_cursor }) =>
      [
        formatScheduleList(items),
        ...(next_cursor ? [`(more: scheduler list --cursor ${next_cursor}, or --all)`] : []),
      ].join('\n'),
    );
  });
}

function getCommand(program: Command, cli: Cli): void {
  connectionOptions(
    serverCommand(program, 'get <id>', 'show a schedule (schedule.v1)', [
      'scheduler get weekday-sync',
      'scheduler get weekday-sync --json | jq .version',
    ]),
  ).action(async (id: string, flags: CommonFlags) => {
    const res = await cli.client(flags).request<Schedule>('GET', schedulePath(id));
    cli.answer(flags, res.body, formatSchedule);
  });
}

function describeCommand(program: Command, cli: Cli): void {
  connectionOptions(
    serverCommand(
      program,
      'describe <id>',
      'a schedule with its next runs (local time, DST and window notes), counters and recent occurrences',
      ['scheduler describe weekday-sync'],
    ),
  ).action(async (id: string, flags: CommonFlags) => {
    const res = await cli.client(flags).request<ScheduleDescription>('GET', schedulePath(id, '/describe'));
    cli.answer(flags, res.body, formatDescription);
  });
}

function editCommand(program: Command, cli: Cli): void {
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

function pauseCommand(program: Command, cli: Cli): void {
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

function resumeCommand(program: Command, cli: Cli): void {
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

function triggerCommand(program: Command, cli: Cli): void {
  connectionOptions(
    serverCommand(program, 'trigger <id>', 'run one occurrence now (idempotent on --at)', [
      'scheduler trigger weekday-sync',
      "scheduler trigger weekday-sync --at 2026-11-02T07:00:00Z --reason 'support ticket 42'",
    ])
      .option('--at <instant>', 'the slot this run stands for, an instant with Z or an offset (default: now)')
      .option('--reason <text>', 'recorded with the occurrence'),
  ).action(async (id: string, flags: CommonFlags & { at?: string; reason?: string }) => {
    const path = schedulePath(id, '/trigger');
    const body = buildTriggerRequest(flags);
    const res = await cli.client(flags).request<Occurrence>('POST', path, { body });
    cli.answer(flags, res.body, (occurrence) => occurrenceLine('triggered', occurrence));
  });
}

function backfillCommand(program: Command, cli: Cli): void {
  connectionOptions(
    serverCommand(program, 'backfill <id>', 'run the slots of a past range (each at most once)', [
      'scheduler backfill weekday-sync --from 2026-11-02T00:00:00Z --to 2026-11-07T00:00:00Z',
    ])
      .option('--from <instant>', 'start of the range (an instant with Z or an offset)')
      .option('--to <instant>', 'end of the range')
      .option('--reason <text>', 'recorded with each occurrence'),
  ).action(async (id: string, flags: CommonFlags & { from?: string; to?: string; reason?: string }) => {
    const path = schedulePath(id, '/backfill');
    const body = buildBackfillRequest(flags);
    const res = await cli.client(flags).request<BackfillResult>('POST', path, { body });
    cli.answer(flags, res.body, (result) => formatBackfill(id, body.from, body.to, result));
  });
}

function cancelCommand(program: Command, cli: Cli): void {
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

function deleteCommand(program: Command, cli: Cli): void {
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

function occurrencesCommand(program: Command, cli: Cli): void {
  connectionOptions(
    serverCommand(program, 'occurrences <id>', "a schedule's occurrences, newest first", [
      'scheduler occurrences heartbeat --limit 5',
      'scheduler occurrences heartbeat --json | jq -r ".items[] | [.scheduled_for, .status] | @tsv"',
    ])
      .option('--limit <n>', 'occurrences per page, 1 to 256 (default 50)')
      .option('--cursor <cursor>', 'continue from the `next_cursor` of a previous page'),
  ).action(async (id: string, flags: CommonFlags & { limit?: string; cursor?: string }) => {
    const path = schedulePath(id, '/occurrences');
    const query = buildOccurrencesQuery(flags);
    const res = await cli.client(flags).request<z.infer<typeof OccurrencePage>>('GET', path, { query });
    cli.answer(flags, res.body, ({ items, next_cursor }) =>
      [
        formatOccurrences(items),
        ...(next_cursor ? [`(more: scheduler occurrences ${id} --cursor ${next_cursor})`] : []),
      ].join('\n'),
    );
  });
}

function recomputeCommand(program: Command, cli: Cli): void {
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

/** In the order `scheduler --help` lists them. */
const COMMANDS = [
  createCommand,
  listCommand,
  getCommand,
  describeCommand,
  editCommand,
  pauseCommand,
  resumeCommand,
  triggerCommand,
  backfillCommand,
  cancelCommand,
  deleteCommand,
  occurrencesCommand,
  recomputeCommand,
];

export function registerScheduleCommands(program: Command, io: CliIo): void {
  const cli = cliOf(io);
  for (const register of COMMANDS) register(program, cli);
}
