// What an API process remembers of the revocations it told (src/api/owners.ts), and the generation its
// reports carry. Security review 2, N2: a schedule told once must be told again after its owner came back
// and resumed it; N8: a report says when its key configuration was written.
import { mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { keyConfigurationGeneration, RevocationsTold } from '../../src/api/owners.js';

const X = RevocationsTold.key('schedule/acme/x', 'run-1', 'acme/dave');
const Y = RevocationsTold.key('schedule/acme/y', 'run-1', 'acme/erin');

describe('revocations told', () => {
  it('a schedule told is not told again while its owner stays revoked', () => {
    const told = new RevocationsTold(() => new Set(['acme/alice']));
    told.add(X, 'acme/dave');
    expect(told.has(X)).toBe(true);
    told.retain(new Set([X]));
    expect(told.has(X)).toBe(true);
  });

  it('an owner whose key is loaded again is forgotten: removed once more, its schedule is told again', () => {
    let keys = new Set(['acme/alice']);
    const told = new RevocationsTold(() => keys);
    told.add(X, 'acme/dave');
    told.add(Y, 'acme/erin');
    keys = new Set(['acme/alice', 'acme/dave']);
    told.forgetAuthorized();
    expect(told.has(X)).toBe(false);
    expect(told.has(Y)).toBe(true);
  });

  it('a signal answered after the key came back is not remembered (the reload came first)', () => {
    // The reconcile that signals X started on the old keys; dave's key is reloaded while the signal is in
    // flight, so forgetAuthorized ran before the add: the add must not remember X either.
    const told = new RevocationsTold(() => new Set(['acme/alice', 'acme/dave']));
    told.add(X, 'acme/dave');
    expect(told.has(X)).toBe(false);
  });

  it('a reconcile keeps only what it listed again (runs that ended, owners no longer revoked)', () => {
    const told = new RevocationsTold(() => new Set());
    told.add(X, 'acme/dave');
    told.add(Y, 'acme/erin');
    told.retain(new Set([Y]));
    expect([told.has(X), told.has(Y), told.size]).toEqual([false, true, 1]);
  });
});

describe('key configuration generation', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ds-key-generation-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("is the key file's modification time", () => {
    const file = join(dir, 'keys');
    writeFileSync(file, '# keys\n');
    const written = new Date(Math.floor(Date.now() / 1000) * 1000 - 86_400_000);
    utimesSync(file, written, written);
    expect(keyConfigurationGeneration(file, 5)).toBe(written.getTime());
  });

  it('a modification time in the future counts as now', () => {
    const file = join(dir, 'future');
    writeFileSync(file, '# keys\n');
    const future = new Date(Date.now() + 365 * 86_400_000);
    utimesSync(file, future, future);
    const before = Date.now();
    const generation = keyConfigurationGeneration(file, 5);
    expect(generation).toBeGreaterThanOrEqual(before);
    expect(generation).toBeLessThanOrEqual(Date.now());
  });

  it('without a file, when the keys were loaded; a file that cannot be read, the oldest', () => {
    expect(keyConfigurationGeneration(undefined, 1234)).toBe(1234);
    expect(keyConfigurationGeneration(join(dir, 'missing'), 1234)).toBe(0);
  });
});
