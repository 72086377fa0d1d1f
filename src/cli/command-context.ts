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
