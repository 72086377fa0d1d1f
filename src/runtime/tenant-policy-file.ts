// The tenant policy a process enforces (src/model/tenant-policy.ts), from SCHEDULER_TENANTS_FILE: read at
// start (a bad file stops the start with the tenant and field), re-read when it changes (a bad edit keeps
// the last good policy and logs why). The API and the worker each hold one: the API checks definitions
// against it, the worker every hand-off, so a worker-only process enforces the same file.
import { readFileSync, unwatchFile, watchFile } from 'node:fs';
import { TenantPolicy } from '../model/tenant-policy.js';

/** The tenant `npm start`'s development key belongs to. */
export const DEVELOPMENT_TENANT = 'dev';

export interface TenantPolicySource {
  /** The policy in force now. */
  current(): TenantPolicy;
  /** One line for the start-up log. */
  describe(): string;
  /** Calls `listener` after every reload of the file (a broken edit, kept out, calls none); returns how to stop. */
  onChange(listener: () => void): () => void;
  close(): void;
}

export interface TenantPolicyOptions {
  /** SCHEDULER_TENANTS_FILE. */
  file?: string | undefined;
  /** No API keys are configured (`npm start` makes a development key): the development tenant is open. */
  development: boolean;
  log: (line: string) => void;
  /** How often the file's modification is polled (ms). */
  pollIntervalMs?: number;
}

const read = (file: string) => {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new Error(
      `SCHEDULER_TENANTS_FILE ${file} cannot be read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
    );
  }
  return TenantPolicy.parse(text, `SCHEDULER_TENANTS_FILE ${file}`);
};

/**
 * The policy of this process. Without a file: in development the development tenant reaches everything
 * (a local sink on 127.0.0.1 included, as the README's examples use); otherwise no tenant reaches any target.
 */
export function loadTenantPolicy(options: TenantPolicyOptions): TenantPolicySource {
  const { file } = options;
  if (!file) {
    const policy = options.development
      ? TenantPolicy.openFor([DEVELOPMENT_TENANT], 'development: no SCHEDULER_TENANTS_FILE')
      : TenantPolicy.fromTenants({}, 'no SCHEDULER_TENANTS_FILE');
    return {
      current: () => policy,
      describe: () =>
        options.development
          ? `development tenant '${DEVELOPMENT_TENANT}' reaches every queue, workflow and sink (set SCHEDULER_TENANTS_FILE in production)`
          : 'no SCHEDULER_TENANTS_FILE: every target is refused until the operator writes one',
      onChange: () => () => {},
      close: () => {},
    };
  }
  let policy = read(file);
  const listeners = new Set<() => void>();
  watchFile(file, { interval: options.pollIntervalMs ?? 2000 }, () => {
    try {
      policy = read(file);
      options.log(`tenant policy reloaded: ${policy.describe()}`);
      for (const listener of listeners) listener();
    } catch (err) {
      // A broken edit keeps the previous policy: what last worked stays in force, loudly.
      options.log(`tenant policy not reloaded, keeping the previous one: ${(err as Error).message}`);
    }
  });
  return {
    current: () => policy,
    describe: () => policy.describe(),
    onChange: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    close: () => unwatchFile(file),
  };
}
