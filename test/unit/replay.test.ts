import { readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import proto from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { describe, expect, it } from 'vitest';
import { workflowsPath } from '../../src/worker.js';
import '../helpers/quiet-sdk.js';

// Every history recorded by test/histories/record.ts, for every release, replayed against today's
// workflow code: a change that would break a running schedule (a new command, a reordered timer, a
// removed handler) fails here. Such a change goes behind `patched()`; old histories are never deleted.
const groupBy = (items: string[], key: (item: string) => string) => {
  const groups = new Map<string, string[]>();
  for (const item of items) groups.set(key(item), [...(groups.get(key(item)) ?? []), item]);
  return groups;
};
const root = join(dirname(fileURLToPath(import.meta.url)), '..', 'histories');
const files = readdirSync(root, { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .flatMap((d) =>
    readdirSync(join(root, d.name))
      .filter((f) => f.endsWith('.binpb.gz'))
      .map((f) => join(root, d.name, f)),
  );

describe('replay of recorded schedule histories', () => {
  it('has recorded histories of every release to replay', () => {
    const releases = groupBy(files, (f) => basename(dirname(f)));
    // v0.1.0: before the small first slot batch and the version memo; v0.2.0: with them (patched()).
    expect(releases.get('v0.1.0')?.length).toBeGreaterThanOrEqual(8);
    expect(releases.get('v0.2.0')?.length).toBeGreaterThanOrEqual(10);
  });

  it('replays every recorded history without nondeterminism', async () => {
    const histories = files.map((file) => ({
      workflowId: `${basename(dirname(file))}/${basename(file, '.binpb.gz')}`,
      history: proto.temporal.api.history.v1.History.decode(gunzipSync(readFileSync(file))),
    }));
    const failures: string[] = [];
    for await (const result of Worker.runReplayHistories({ workflowsPath }, histories)) {
      if (result.error) failures.push(`${result.workflowId}: ${result.error.message}`);
    }
    expect(failures).toEqual([]);
  }, 120_000);
});
