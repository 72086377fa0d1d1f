// Where the CLI takes its key from, and what it says about how the key travels (security review L9): a key
// on the command line is visible in `ps` and shell history, a key over plain http to another machine is
// readable on the way. `main` runs in-process with a fake `fetch`.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveConnection } from '../../src/cli/connection.js';
import { main } from '../../src/cli/main.js';
import { tempDir } from '../helpers/servers.js';

const noKeyFile = () => undefined;
const KEY_WARNING = /^warning: --api-key is visible to other users in `ps` and stays in shell history/;
const HTTP_WARNING = /^warning: the API key goes in clear text over http to /;

/** Runs one command line against a fake API that answers an empty page and records the key it got. */
async function run(argv: string[], env: NodeJS.ProcessEnv) {
  let stdout = '';
  let stderr = '';
  const keys: string[] = [];
  const fetchImpl = async (_input: string | URL | Request, init?: RequestInit) => {
    keys.push((init?.headers as Record<string, string> | undefined)?.authorization ?? '');
    return new Response(JSON.stringify({ items: [], next_cursor: null }), {
      status: 200,
      headers: { 'content-type': 'application/json' },
    });
  };
  const code = await main(argv, {
    stdout: (s) => {
      stdout += s;
    },
    stderr: (s) => {
      stderr += s;
    },
    env,
    fetch: fetchImpl as typeof fetch,
    now: () => new Date('2026-11-30T12:00:00Z'),
  });
  return { code, stdout, stderr, keys };
}

function keyFile(text: string): string {
  const file = join(tempDir('cli-key'), 'api-key');
  writeFileSync(file, text, { mode: 0o600 });
  return file;
}

describe('CLI: where the key comes from', () => {
  it('--api-key-file: the first line of the file (over SCHEDULER_API_KEY), no warning', async () => {
    const file = keyFile('sk_from_a_file_0123456789abcdef\nthe second line is not sent\n');
    const conn = resolveConnection({ apiKeyFile: file }, { SCHEDULER_API_KEY: 'env-key' });
    expect(conn).toMatchObject({ apiKey: 'sk_from_a_file_0123456789abcdef', keySource: file, warnings: [] });

    const r = await run(['list', '--api-key-file', file, '--json'], {
      SCHEDULER_URL: 'http://127.0.0.1:8080',
    });
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(r.keys).toEqual(['Bearer sk_from_a_file_0123456789abcdef']);
  });

  it('SCHEDULER_API_KEY: no warning', async () => {
    const r = await run(['list', '--json'], {
      SCHEDULER_URL: 'http://127.0.0.1:8080',
      SCHEDULER_API_KEY: 'sk_env_0123456789abcdefghij',
    });
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(r.keys).toEqual(['Bearer sk_env_0123456789abcdefghij']);
  });

  it('--api-key still works, with one line on stderr saying it is visible in ps and shell history', async () => {
    const r = await run(['list', '--api-key', 'sk_flag_0123456789abcdefghi', '--json'], {
      SCHEDULER_URL: 'http://127.0.0.1:8080',
    });
    expect(r.code).toBe(0);
    expect(r.keys).toEqual(['Bearer sk_flag_0123456789abcdefghi']);
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(KEY_WARNING);
    expect(lines[0]).toMatch(/SCHEDULER_API_KEY or --api-key-file/);
    expect(r.stderr).not.toContain('sk_flag_');
    expect(JSON.parse(r.stdout)).toEqual({ items: [], next_cursor: null });
  });

  it.each([
    [
      'a missing file',
      join(tempDir('cli-key'), 'absent'),
      /^error: --api-key-file: .*absent is missing or empty/,
    ],
    ['an empty file', '', /^error: --api-key-file: .* is missing or empty/],
  ])('--api-key-file naming %s → exit 2, one line, no request', async (_what, path, line) => {
    const file = path === '' ? keyFile('\n') : path;
    const r = await run(['list', '--api-key-file', file], {});
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(line);
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(r.keys).toEqual([]);
  });

  it('--api-key and --api-key-file together → exit 2', async () => {
    const r = await run(['list', '--api-key', 'a', '--api-key-file', keyFile('b\n')], {});
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^error: --api-key: give the key once/);
    expect(r.keys).toEqual([]);
  });
});

describe('CLI: plain http to another machine', () => {
  it.each([
    'http://sched.example.com:8080',
    'http://10.0.0.5:8080',
    'http://[2001:db8::1]:8080',
    'http://127.example.com',
  ])('%s → a warning that the key travels in clear text', async (url) => {
    const conn = resolveConnection({ url }, { SCHEDULER_API_KEY: 'k' }, noKeyFile);
    expect(conn.warnings).toHaveLength(1);
    expect(conn.warnings[0]).toMatch(HTTP_WARNING);
    expect(conn.warnings[0]).toContain(new URL(url).host);
    const r = await run(['list', '--json'], { SCHEDULER_URL: url, SCHEDULER_API_KEY: 'k' });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(HTTP_WARNING);
  });

  it.each([
    'http://127.0.0.1:8080',
    'http://127.1.2.3:8080',
    'http://localhost:8080',
    'http://api.localhost:8080',
    'http://[::1]:8080',
    'https://sched.example.com',
  ])('%s → no warning (this machine, or TLS)', (url) => {
    expect(resolveConnection({ url }, { SCHEDULER_API_KEY: 'k' }, noKeyFile).warnings).toEqual([]);
  });

  it('no key, no warning about sending one', () => {
    expect(resolveConnection({ url: 'http://sched.example.com' }, {}, noKeyFile).warnings).toEqual([]);
  });

  it('--api-key over http to another machine: both warnings', () => {
    const conn = resolveConnection({ url: 'http://sched.example.com', apiKey: 'k' }, {}, noKeyFile);
    expect(conn.warnings).toEqual([expect.stringMatching(KEY_WARNING), expect.stringMatching(HTTP_WARNING)]);
  });
});
