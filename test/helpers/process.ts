import { type ChildProcess, spawn } from 'node:child_process';

export interface Spawned {
  child: ChildProcess;
  output: () => string;
  /** Resolves when the combined output matches; rejects if the process exits first or on timeout. */
  waitFor: (pattern: RegExp, timeoutMs?: number) => Promise<void>;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export function spawnProcess(command: string, args: string[], env: NodeJS.ProcessEnv, cwd?: string): Spawned {
  const child = spawn(command, args, { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const listeners = new Set<() => void>();
  const onData = (chunk: Buffer) => {
    out += chunk.toString();
    for (const l of listeners) l();
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => {
      resolve({ code, signal });
      for (const l of listeners) l();
    }),
  );
  const waitFor = (pattern: RegExp, timeoutMs = 60_000) =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => done(new Error(`timed out waiting for ${pattern}; output:\n${out}`)),
        timeoutMs,
      );
      const check = () => {
        if (pattern.test(out)) done();
        else if (child.exitCode !== null || child.signalCode !== null)
          done(new Error(`process exited before ${pattern}; output:\n${out}`));
      };
      const done = (err?: Error) => {
        clearTimeout(timer);
        listeners.delete(check);
        err ? reject(err) : resolve();
      };
      listeners.add(check);
      check();
    });
  return { child, output: () => out, waitFor, exit };
}
