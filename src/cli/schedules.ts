/**
 * The schedule commands of the `scheduler` CLI: every schedule operation over the HTTP API.
 *
 *   create | edit                                         ./define-commands.ts
 *   apply                                                 ./apply-command.ts
 *   list | get | describe | occurrences                   ./read-commands.ts
 *   pause | resume | trigger | backfill | cancel | delete | recompute | bulk   ./lifecycle-commands.ts
 *
 * Each command builds its request with ./requests.ts (checked locally against the model's contracts),
 * sends it with ./connection.ts, and prints a table (./format.ts) or, with --json, the API's JSON; the
 * options and their --help groups are in ./command-options.ts, what the commands share in ./command-context.ts.
 */
import type { Command } from 'commander';
import { applyCommand } from './apply-command.js';
import { auditCommand } from './audit-command.js';
import { type CliIo, cliOf } from './command-context.js';
import { createCommand, editCommand } from './define-commands.js';
import {
  backfillCommand,
  bulkCommand,
  cancelCommand,
  deleteCommand,
  pauseCommand,
  recomputeCommand,
  resumeCommand,
  triggerCommand,
} from './lifecycle-commands.js';
import { describeCommand, getCommand, listCommand, occurrencesCommand } from './read-commands.js';

export { type CliIo, processIo } from './command-context.js';

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
  auditCommand,
  recomputeCommand,
  bulkCommand,
  applyCommand,
];

export function registerScheduleCommands(program: Command, io: CliIo): void {
  const cli = cliOf(io);
  for (const register of COMMANDS) register(program, cli);
}
