#!/usr/bin/env node
/** `scheduler` CLI. Commands register themselves from their own modules. */
import { Command, CommanderError } from 'commander';
import { DEFAULT_URL } from './connection.js';
import { EXIT, EXIT_CODES_HELP, failure } from './errors.js';
import { registerInterpret } from './interpret.js';
import { registerPreview } from './preview.js';
import { type CliIo, processIo, registerScheduleCommands } from './schedules.js';

export type { CliIo } from './schedules.js';

const PROGRAM_HELP = `
Connection (every command but preview and interpret):
  --url <url>            or SCHEDULER_URL      (default ${DEFAULT_URL}; the API \`npm start\` serves;
                                                plain http to another machine: a warning, the key is in clear)
  --api-key-file <path>  or SCHEDULER_API_KEY  (default: the development key \`npm start\` wrote to
                                                .data/dev-api-key, or $SCHEDULER_DATA_DIR/dev-api-key)
  --api-key <key>        the key itself (visible in \`ps\` and shell history: a warning says so)
  --timeout <ms>         how long to wait for an answer
  --json                 print the API's JSON instead of a table

${EXIT_CODES_HELP}

Run \`scheduler <command> --help\` for a command's options and an example.
`;

const PREVIEW_EXAMPLE = `
Example:
  $ scheduler preview --rule 'FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR;BYHOUR=9;BYMINUTE=0' --timezone Europe/Riga --count 3
  $ scheduler preview --timing '{"kind":"CRON","expression":"30 2 * * *","timezone":"Europe/Berlin"}'
`;

const INTERPRET_EXAMPLE = `
Examples:
  $ scheduler interpret "every weekday at 09:00 in Europe/Riga"
  $ scheduler interpret "every day at 9" --timezone Europe/Riga --now 2026-12-01T10:00:00Z --json
  $ scheduler create --id standup --when "every weekday at 09:30 in Europe/Riga" --job standup.remind --yes
`;

export function buildProgram(io: CliIo = processIo()): Command {
  const program = new Command('scheduler')
    .description('durable-scheduler command line: every schedule operation over the HTTP API')
    .showHelpAfterError(false)
    .exitOverride()
    // Set before the commands are added: subcommands inherit it.
    .configureOutput({ writeOut: (s) => io.stdout(s), writeErr: (s) => io.stderr(s) });
  program.addHelpText('after', PROGRAM_HELP);
  registerPreview(program).addHelpText('after', PREVIEW_EXAMPLE);
  registerInterpret(program, io).addHelpText('after', `${INTERPRET_EXAMPLE}\n${EXIT_CODES_HELP}\n`);
  registerScheduleCommands(program, io);
  return program;
}

/** Runs one command line; resolves to the exit code. Errors are one line on stderr, never a stack. */
export async function main(argv: string[], io: Partial<CliIo> = {}): Promise<number> {
  const ctx: CliIo = { ...processIo(), ...io };
  const program = buildProgram(ctx);
  for (const cmd of program.commands) cmd.exitOverride();
  try {
    await program.parseAsync(argv, { from: 'user' });
    return EXIT.OK;
  } catch (e) {
    if (e instanceof CommanderError) {
      // help / version are not errors; usage errors exit 2 (commander already printed one line)
      return e.exitCode === 0 ? EXIT.OK : EXIT.BAD_INPUT;
    }
    const { line, exitCode } = failure(e);
    ctx.stderr(`${line}\n`);
    return exitCode;
  }
}

const invoked =
  process.argv[1] !== undefined && import.meta.url === new URL(`file://${process.argv[1]}`).href;
if (invoked) {
  main(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}
