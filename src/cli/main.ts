#!/usr/bin/env node
/** `scheduler` CLI. Commands register themselves from their own modules. */
import { Command, CommanderError } from 'commander';
import { describeError, registerPreview } from './preview.js';

export function buildProgram(): Command {
  const program = new Command('scheduler')
    .description('durable-scheduler command line')
    .showHelpAfterError(false)
    .exitOverride();
  registerPreview(program);
  return program;
}

export async function main(argv: string[]): Promise<number> {
  const program = buildProgram();
  program.configureOutput({ writeErr: (s) => process.stderr.write(s) });
  for (const cmd of program.commands) cmd.exitOverride();
  try {
    await program.parseAsync(argv, { from: 'user' });
    return 0;
  } catch (e) {
    if (e instanceof CommanderError) {
      // help / version are not errors; usage errors exit 2 (commander already printed one line)
      return e.exitCode === 0 ? 0 : 2;
    }
    const line = describeError(e);
    if (line !== undefined) {
      process.stderr.write(`${line}\n`);
      return 2;
    }
    process.stderr.write(`error: ${(e as Error)?.message ?? String(e)}\n`);
    return 1;
  }
}

const invoked =
  process.argv[1] !== undefined && import.meta.url === new URL(`file://${process.argv[1]}`).href;
if (invoked) {
  main(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}
