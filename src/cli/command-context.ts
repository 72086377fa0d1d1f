// What every schedule command shares: the process's I/O, an API client for its flags, and how it answers.
import { readFile } from 'node:fs/promises';
import { createInterface } from 'node:readline/promises';
import { ApiClient, type ConnectionFlags, type Fetch, resolveConnection } from './connection.js';
import { terminalSafeLines } from './format.js';
import { UsageError } from './preview.js';
import { checkScheduleId } from './requests.js';

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

export interface CommonFlags extends ConnectionFlags {
  json?: boolean;
}

export async function readFileArg(io: CliIo, path: string | undefined): Promise<string | undefined> {
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

export const schedulePath = (id: string, suffix = '') =>
  `/v1/schedules/${encodeURIComponent(checkScheduleId(id))}${suffix}`;

/** What every command's action uses: the process's I/O, an API client for its flags, and stdout. */
export interface Cli {
  io: CliIo;
  client: (flags: CommonFlags) => ApiClient;
  print: (text: string) => void;
  /** --json prints the API's body as it came; otherwise `human` renders it. */
  answer: <T>(flags: CommonFlags, body: T, human: (body: T) => string) => void;
}

export function cliOf(io: CliIo): Cli {
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

/** How a command that changes many schedules shows what it will do (bulk, apply). */
export interface ShownChange<T> {
  /** The request, as a dry run or for real. */
  send: (dryRun: boolean) => Promise<T>;
  format: (answer: T) => string;
  /** What nobody could confirm off a terminal, for the refusal: "what the selector picked", "the plan". */
  what: string;
  question: string;
  /** Whether the dry run would change anything (nothing to confirm otherwise). */
  changes: (plan: T) => boolean;
  /** Why the change may not be made as shown, or null. */
  refusal?: (plan: T) => string | null;
}

/**
 * `--dry-run` shows, `--yes` changes without asking; otherwise on a terminal the dry run is shown and the
 * change made once confirmed, and off a terminal nothing is changed (nobody could confirm it).
 */
export async function showThenChange<T>(
  cli: Cli,
  flags: CommonFlags & { dryRun?: boolean; yes?: boolean },
  c: ShownChange<T>,
): Promise<void> {
  if (flags.dryRun || flags.yes) return cli.answer(flags, await c.send(!!flags.dryRun), c.format);
  if (!cli.io.isTTY)
    throw new UsageError(
      '--yes',
      `is needed when not on a terminal (nobody can confirm ${c.what}): nothing was changed; look first with --dry-run`,
    );
  const plan = await c.send(true);
  cli.print(c.format(plan));
  const refused = c.refusal?.(plan);
  if (refused) throw new Error(refused);
  if (!c.changes(plan)) return;
  if (!(await cli.io.confirm(c.question))) throw new Error('nothing changed: not confirmed');
  cli.answer(flags, await c.send(false), c.format);
}
