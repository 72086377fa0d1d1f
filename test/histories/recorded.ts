// Recorded histories of the schedule workflow (test/histories/vX.Y.Z/*.binpb.gz): how the recorders
// (record*.ts) write them and test/unit/replay.test.ts reads them back. Gzipped binary protobuf: the SDK's
// historyToJSON fails with the protobufjs copies npm installs here, and binary is exactly what the server sent.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import type { Client } from '@temporalio/client';
import proto from '@temporalio/proto';
import { scheduleWorkflowId } from '../../src/model/ids.js';

export const RECORDED_SUFFIX = '.binpb.gz';

export const readRecordedHistory = (file: string): proto.temporal.api.history.v1.History =>
  proto.temporal.api.history.v1.History.decode(gunzipSync(readFileSync(file)));

/**
 * The directory a recorder writes into (its first positional argument, created); without it, prints the
 * usage and exits.
 */
export function recordingDirectory(usage: string, given = process.argv[2]): string {
  if (!given) {
    console.error(`usage: ${usage}`);
    process.exit(2);
  }
  mkdirSync(given, { recursive: true });
  return given;
}

/** Writes `history` as `<name>.binpb.gz` into `dir`. */
export function writeRecordedHistory(
  dir: string,
  name: string,
  history: proto.temporal.api.history.v1.IHistory,
): void {
  writeFileSync(
    join(dir, `${name}${RECORDED_SUFFIX}`),
    gzipSync(proto.temporal.api.history.v1.History.encode(history).finish()),
  );
  console.log(`recorded ${name}: ${history.events?.length} events`);
}

/**
 * A recorder's `save(name, scheduleId = name, runId?)`: the history of tenant acme's schedule (one run of
 * it with `runId`), written as `<prefix><name>.binpb.gz` into `dir`.
 */
export function historySaver(client: Client, dir: string, prefix = '') {
  return async (name: string, scheduleId = name, runId?: string): Promise<void> => {
    const history = await client.workflow
      .getHandle(scheduleWorkflowId('acme', scheduleId), runId)
      .fetchHistory();
    writeRecordedHistory(dir, `${prefix}${name}`, history);
  };
}
