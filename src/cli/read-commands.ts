// The commands that read: list, get, describe and occurrences.
import { type Command, Option } from 'commander';
import type { z } from 'zod';
import type { Schedule, ScheduleDescription } from '../model/contracts.js';
import type { OccurrencePage, SchedulePage } from '../model/http.js';
import { type Cli, type CommonFlags, schedulePath } from './command-context.js';
import { connectionOptions, KINDS, oneOf, STATUS, serverCommand } from './command-options.js';
import type { ApiClient } from './connection.js';
import { formatDescription, formatOccurrences, formatSchedule, formatScheduleList } from './format.js';
import { buildListQuery, buildOccurrencesQuery, type ListFlags } from './requests.js';

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

export function listCommand(program: Command, cli: Cli): void {
  const list = serverCommand(program, 'list', "list your tenant's schedules (newest first)", [
    'scheduler list --status ACTIVE --kind CRON',
    "scheduler list --selector 'team=payments,env!=dev'",
    'scheduler list --all --json | jq -r ".items[].schedule_id"',
  ])
    .addOption(new Option('--status <status>', STATUS.join(' | ')).argParser(oneOf(STATUS)))
    .addOption(new Option('--kind <kind>', `timing kind: ${KINDS.join(' | ')}`).argParser(oneOf(KINDS)))
    .option('--limit <n>', 'schedules per page, 1 to 100 (default 20)')
    .option('--cursor <cursor>', 'continue from the `next_cursor` of a previous page')
    .option('--all', 'follow the cursors to the last page (with --json: one page object with every item)')
    .option('--include-deleted', 'also list deleted schedules')
    .option('--selector <selector>', "only schedules whose labels it picks, e.g. 'team=payments,env!=dev'");
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

export function getCommand(program: Command, cli: Cli): void {
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

export function describeCommand(program: Command, cli: Cli): void {
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

export function occurrencesCommand(program: Command, cli: Cli): void {
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
