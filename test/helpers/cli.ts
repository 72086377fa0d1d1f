// The CLI run in-process: `main(argv, io)` with its output captured, as every CLI test reads it.
import { main } from '../../src/cli/main.js';
import type { CliIo } from '../../src/cli/schedules.js';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `scheduler <argv>` with `io` (stdout and stderr captured); resolves with its exit code and output. */
export async function runCli(
  argv: string[],
  io: Partial<Omit<CliIo, 'stdout' | 'stderr'>> = {},
): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const code = await main(argv, {
    ...io,
    stdout: (s) => {
      stdout += s;
    },
    stderr: (s) => {
      stderr += s;
    },
  });
  return { code, stdout, stderr };
}
