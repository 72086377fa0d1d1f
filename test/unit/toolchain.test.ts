import { spawnSync } from 'node:child_process';
import { symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../../scripts/toolchain.mjs';
import { tempDir } from '../helpers/servers.js';

// Runs the real bootstrap on a PATH that holds node and nothing else, with an empty cache: what a
// machine without Go or Java sees. The SDK-download fallback is switched off so the answer does not
// depend on whether this machine reaches the internet.
function bootstrapWithBarePath(flag: string, extraEnv: Record<string, string> = {}) {
  const bin = tempDir('bin');
  symlinkSync(process.execPath, join(bin, 'node'));
  const { TEMPORAL_CLI_PATH: _a, TEMPORAL_TEST_SERVER_PATH: _b, ...env } = process.env;
  return spawnSync(join(bin, 'node'), [join(repoRoot, 'scripts/bootstrap.mjs'), flag], {
    env: {
      ...env,
      PATH: bin,
      DURABLE_SCHEDULER_CACHE: tempDir('cache'),
      DURABLE_SCHEDULER_NO_SDK_DOWNLOAD: '1',
      ...extraEnv,
    },
    encoding: 'utf8',
  });
}

describe('bootstrap errors say what to do', () => {
  it('without Go', () => {
    const r = bootstrapWithBarePath('--dev-server');
    expect(r.status).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/^error: Go is not installed .*install Go/);
    expect(r.stderr).toContain('TEMPORAL_CLI_PATH');
  });

  it('without Go, for the Temporal server (--temporal-server)', () => {
    const r = bootstrapWithBarePath('--temporal-server');
    expect(r.status).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(
      /^error: Go is not installed: install Go .*the Temporal server is built from the Go module proxy/,
    );
  });

  it('without Java', () => {
    const r = bootstrapWithBarePath('--test-server');
    expect(r.status).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/^error: Java 17\+ is not installed.*install a JDK and Maven/);
  });

  it('with a TEMPORAL_CLI_PATH that does not exist', () => {
    const r = bootstrapWithBarePath('--dev-server', { TEMPORAL_CLI_PATH: '/nonexistent/temporal' });
    expect(r.status).toBe(1);
    expect(r.stderr.trim()).toBe(
      'error: TEMPORAL_CLI_PATH=/nonexistent/temporal does not exist: fix or unset it',
    );
  });
});
