/**
 * The schedule commands of the `scheduler` CLI: every schedule operation over the HTTP API.
 *
 *   create | list | get | describe | edit | pause | resume | trigger | backfill | cancel | delete | occurrences
 *
 * Each command builds its request with ./requests.ts (checked locally against the model's contracts),
 * sends it with ./connection.ts, and prints a table (./format.ts) or, with --json, the API's JSON.
 */
import { readFile } from 'node:fs/promises';
import { type Command, InvalidArgumentError, Option } from 'commander';
import type { z } from 'zod';
import type { BackfillResult, Occurrence, Schedule, ScheduleDescription } from '../model/contracts.js';
import type { OccurrencePage, SchedulePage } from '../model/http.js';
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
  formatSchedule,
  formatScheduleList,
  occurrenceLine,
  scheduleLine,
} from './format.js';
import { UsageError } from './preview.js';
import {
  buildBackfillRequest,
  buildCancelRequest,
  buildCreateRequest,
  buildListQuery,
  buildOccurrencesQuery,
  buildPatchRequest,
  buildPauseRequest,
  buildTriggerRequest,
  type CreateFlags,
  checkScheduleId,
  type EditFlags,
  type ListFlags,
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

const MISFIRE = ['SKIP', 'FIRE_ONCE', 'CATCH_UP'] as const;
const OVERLAP = ['ALLOW', 'SKIP', 'QUEUE', 'COALESCE', 'REPLACE'] as const;
const STATUS = ['ACTIVE', 'PAUSED', 'COMPLETED', 'FAILED', 'CANCELLED'] as const;
const KINDS = ['ONE_TIME', 'DELAY', 'INTERVAL', 'RECURRENCE', 'CRON', 'DEADLINE'] as const;

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

function connectionOptions(cmd: Command): Command {
  return cmd
    .addOption(new Option('--json', "print the API's JSON response (for scripts)"))
    .addOption(
      new Option(
        '--url <url>',
        `scheduler API base URL (env SCHEDULER_URL; default ${DEFAULT_URL})`,
      ).helpGroup(CONNECTION),
    )
    .addOption(
      new Option(
        '--api-key-file <path>',
        'file holding the API key (or env SCHEDULER_API_KEY; default: the development key `npm start` wrote to .data/dev-api-key, or $SCHEDULER_DATA_DIR/dev-api-key)',
      ).helpGroup(CONNECTION),
    )
    .addOption(
      new Option(
        '--api-key <key>',
        'API key on the command line (visible in `ps` and shell history: prefer the file or the environment)',
      ).helpGroup(CONNECTION),
    )
    .addOption(
      new Option(
        '--timeout <ms>',
        `give up after this many milliseconds (default ${DEFAULT_TIMEOUT_MS})`,
      ).helpGroup(CONNECTION),
    );
}

/** The definition options `create` and `edit` share. */
function definitionOptions(cmd: Command): Command {
  const timing = 'Timing (one of):';
  const target = 'Target (one of):';
  const policy = 'Policies:';
  return cmd
    .addOption(
      new Option(
        '--cron <expr>',
        "cron expression, 5 fields (or 6, seconds first), e.g. '0 9 * * 1-5'",
      ).helpGroup(timing),
    )
    .addOption(
      new Option(
        '--rule <rrule>',
        "RFC 5545 RRULE, e.g. 'FREQ=WEEKLY;BYDAY=MO;BYHOUR=9;BYMINUTE=0'",
      ).helpGroup(timing),
    )
    .addOption(new Option('--every <duration>', 'fixed interval, ISO 8601, e.g. PT10M').helpGroup(timing))
    .addOption(
      new Option(
        '--at <time>',
        'once, at a local time (with --timezone, e.g. 2026-09-05T14:00) or an instant (…Z / +02:00)',
      ).helpGroup(timing),
    )
    .addOption(
      new Option('--delay <duration>', 'once, this long after creation (or --anchor), e.g. PT20M').helpGroup(
        timing,
      ),
    )
    .addOption(
      new Option(
        '--deadline <time>',
        'at a deadline (local with --timezone, or an instant), with --reminder',
      ).helpGroup(timing),
    )
    .addOption(
      new Option(
        '--reminder <duration>',
        'with --deadline: also run this long before it, e.g. PT1H (repeat it, or separate with commas)',
      )
        .argParser(collect)
        .helpGroup(timing),
    )
    .addOption(
      new Option(
        '--anchor <instant>',
        'with --every / --delay: the instant counted from (default: creation)',
      ).helpGroup(timing),
    )
    .addOption(
      new Option(
        '--timezone <zone>',
        "IANA zone (e.g. Europe/Riga): required with --cron and --rule; for --at/--deadline the zone of a local time; with --every/--delay the schedule's zone",
      ).helpGroup(timing),
    )
    .addOption(
      new Option('--job <job_type>', 'start a workflow of this type per occurrence').helpGroup(target),
    )
    .addOption(
      new Option('--task-queue <queue>', 'with --job: the task queue (default: the server’s)').helpGroup(
        target,
      ),
    )
    .addOption(
      new Option('--event <event_type>', 'POST a CloudEvent of this type per occurrence').helpGroup(target),
    )
    .addOption(new Option('--sink <url>', 'with --event: where to POST it').helpGroup(target))
    .addOption(new Option('--signal <name>', 'signal a workflow per occurrence').helpGroup(target))
    .addOption(new Option('--workflow-id <id>', 'with --signal: the workflow to signal').helpGroup(target))
    .addOption(new Option('--payload <json>', 'inline JSON object handed to the target').helpGroup(target))
    .addOption(
      new Option('--payload-ref <ref>', 'a reference to the payload, e.g. state://reports/daily').helpGroup(
        target,
      ),
    )
    .addOption(
      new Option('--misfire <policy>', `slots found late on wake: ${MISFIRE.join(' | ')}`)
        .argParser(oneOf(MISFIRE))
        .helpGroup(policy),
    )
    .addOption(
      new Option('--overlap <policy>', `previous run still running: ${OVERLAP.join(' | ')}`)
        .argParser(oneOf(OVERLAP))
        .helpGroup(policy),
    )
    .addOption(
      new Option(
        '--max-lateness <seconds|duration>',
        'a slot later than this is a misfire (e.g. 60 or PT5M)',
      ).helpGroup(policy),
    );
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

export function registerScheduleCommands(program: Command, io: CliIo): void {
  const client = (flags: CommonFlags) => {
    const connection = resolveConnection(flags, io.env);
    for (const warning of connection.warnings) io.stderr(`${warning}\n`);
    return new ApiClient(connection, io.fetch);
  };
  const print = (text: string) => io.stdout(`${text}\n`);
  const printJson = (body: unknown) => print(JSON.stringify(body, null, 2));

  // create
  const create = serverCommand(program, 'create', 'create a schedule (idempotent on --id)', [
    "scheduler create --id weekday-sync --cron '0 9 * * 1-5' --timezone Europe/Riga --job source.sync --task-queue jobs --overlap SKIP",
    'scheduler create --id heartbeat --every PT10M --event heartbeat.tick --sink http://127.0.0.1:9999/events',
    'scheduler create --id contract-42 --deadline 2026-12-01T17:00 --timezone Europe/Berlin --reminder PT24H --reminder PT1H --signal remind --workflow-id contract-42',
    'scheduler create --file schedule.json      # the whole CreateScheduleRequest; - reads stdin',
  ]).option(
    '--id <schedule_id>',
    'your id for the schedule (default: a new UUID); the same body again is a no-op',
  );
  definitionOptions(create).option(
    '--file <path>',
    'JSON file with the whole CreateScheduleRequest (- = stdin)',
  );
  connectionOptions(create).action(async (flags: CreateFlags & CommonFlags) => {
    const body = buildCreateRequest(flags, await readFileArg(io, flags.file), io.now());
    const res = await client(flags).request<Schedule>('POST', '/v1/schedules', { body });
    if (flags.json) printJson(res.body);
    else print(scheduleLine(res.status === 201 ? 'created' : 'already exists, unchanged:', res.body));
  });

  // list
  connectionOptions(
    serverCommand(program, 'list', "list your tenant's schedules (newest first)", [
      'scheduler list --status ACTIVE --kind CRON',
      'scheduler list --all --json | jq -r ".items[].schedule_id"',
    ])
      .addOption(new Option('--status <status>', STATUS.join(' | ')).argParser(oneOf(STATUS)))
      .addOption(new Option('--kind <kind>', `timing kind: ${KINDS.join(' | ')}`).argParser(oneOf(KINDS)))
      .option('--limit <n>', 'schedules per page, 1 to 100 (default 20)')
      .option('--cursor <cursor>', 'continue from the `next_cursor` of a previous page')
      .option('--all', 'follow the cursors to the last page (with --json: one page object with every item)')
      .option('--include-deleted', 'also list deleted schedules'),
  ).action(async (flags: ListFlags & CommonFlags & { all?: boolean }) => {
    const query = buildListQuery(flags);
    const api = client(flags);
    let page = (await api.request<z.infer<typeof SchedulePage>>('GET', '/v1/schedules', { query })).body;
    if (flags.all) {
      const items = [...page.items];
      for (let pages = 1; page.next_cursor && pages < 10_000; pages++) {
        page = (
          await api.request<z.infer<typeof SchedulePage>>('GET', '/v1/schedules', {
            query: { ...query, cursor: page.next_cursor },
          })
        ).body;
        items.push(...page.items);
      }
      page = { items, next_cursor: null };
    }
    if (flags.json) return printJson(page);
    print(formatScheduleList(page.items));
    if (page.next_cursor) print(`(more: scheduler list --cursor ${page.next_cursor}, or --all)`);
  });

  // get
  connectionOptions(
    serverCommand(program, 'get <id>', 'show a schedule (schedule.v1)', [
      'scheduler get weekday-sync',
      'scheduler get weekday-sync --json | jq .version',
    ]),
  ).action(async (id: string, flags: CommonFlags) => {
    const res = await client(flags).request<Schedule>('GET', schedulePath(id));
    if (flags.json) printJson(res.body);
    else print(formatSchedule(res.body));
  });

  // describe
  connectionOptions(
    serverCommand(
      program,
      'describe <id>',
      'a schedule with its next runs (local time, DST and window notes), counters and recent occurrences',
      ['scheduler describe weekday-sync'],
    ),
  ).action(async (id: string, flags: CommonFlags) => {
    const res = await client(flags).request<ScheduleDescription>('GET', schedulePath(id, '/describe'));
    if (flags.json) printJson(res.body);
    else print(formatDescription(res.body));
  });

  // edit
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
    const body = buildPatchRequest(flags, await readFileArg(io, flags.file), io.now());
    const res = await client(flags).request<Schedule>('PATCH', path, { body });
    if (flags.json) printJson(res.body);
    else print(scheduleLine('edited', res.body));
  });

  // pause
  connectionOptions(
    serverCommand(program, 'pause <id>', 'pause: no occurrences until resumed', [
      "scheduler pause weekday-sync --note 'quarter close'",
    ]).option('--note <text>', 'why (shown with the schedule)'),
  ).action(async (id: string, flags: CommonFlags & { note?: string }) => {
    const path = schedulePath(id, '/pause');
    const res = await client(flags).request<Schedule>('POST', path, { body: buildPauseRequest(flags) });
    if (flags.json) printJson(res.body);
    else print(scheduleLine('paused', res.body));
  });

  // resume
  connectionOptions(
    serverCommand(
      program,
      'resume <id>',
      'resume a paused schedule (missed slots go through its misfire policy); takes over one whose owner was revoked',
      ['scheduler resume weekday-sync'],
    ),
  ).action(async (id: string, flags: CommonFlags) => {
    const res = await client(flags).request<Schedule>('POST', schedulePath(id, '/resume'), { body: {} });
    if (flags.json) printJson(res.body);
    else print(scheduleLine('resumed', res.body));
  });

  // trigger
  connectionOptions(
    serverCommand(program, 'trigger <id>', 'run one occurrence now (idempotent on --at)', [
      'scheduler trigger weekday-sync',
      "scheduler trigger weekday-sync --at 2026-11-02T07:00:00Z --reason 'support ticket 42'",
    ])
      .option('--at <instant>', 'the slot this run stands for, an instant with Z or an offset (default: now)')
      .option('--reason <text>', 'recorded with the occurrence'),
  ).action(async (id: string, flags: CommonFlags & { at?: string; reason?: string }) => {
    const path = schedulePath(id, '/trigger');
    const res = await client(flags).request<Occurrence>('POST', path, { body: buildTriggerRequest(flags) });
    if (flags.json) printJson(res.body);
    else print(occurrenceLine('triggered', res.body));
  });

  // backfill
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
    const res = await client(flags).request<BackfillResult>('POST', path, { body });
    if (flags.json) printJson(res.body);
    else print(formatBackfill(id, body.from, body.to, res.body));
  });

  // cancel
  connectionOptions(
    serverCommand(program, 'cancel <id>', 'cancel: no future runs; the schedule stays readable (CANCELLED)', [
      "scheduler cancel heartbeat --note 'replaced by heartbeat-2'",
      'scheduler cancel weekday-sync --cancel-running',
    ])
      .option('--note <text>', 'why')
      .option('--cancel-running', 'also cancel target workflows still running (default: keep them)'),
  ).action(async (id: string, flags: CommonFlags & { note?: string; cancelRunning?: boolean }) => {
    const path = schedulePath(id, '/cancel');
    const res = await client(flags).request<Schedule>('POST', path, { body: buildCancelRequest(flags) });
    if (flags.json) printJson(res.body);
    else print(scheduleLine('cancelled', res.body));
  });

  // delete
  connectionOptions(
    serverCommand(
      program,
      'delete <id>',
      'delete: cancel and leave out of listings (still readable by id); an ended schedule is purged',
      ['scheduler delete weekday-sync'],
    ),
  ).action(async (id: string, flags: CommonFlags) => {
    await client(flags).request<undefined>('DELETE', schedulePath(id));
    // 204: no body, so --json prints nothing.
    if (!flags.json) print(`deleted ${id}`);
  });

  // occurrences
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
    const res = await client(flags).request<z.infer<typeof OccurrencePage>>('GET', path, { query });
    if (flags.json) return printJson(res.body);
    print(formatOccurrences(res.body.items));
    if (res.body.next_cursor) {
      print(`(more: scheduler occurrences ${id} --cursor ${res.body.next_cursor})`);
    }
  });
}
