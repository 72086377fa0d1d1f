// The Temporal server `npm start` uses (the one TEMPORAL_ADDRESS or a profile names, else an embedded dev
// server it starts) and the connections it opens to it, each closed at stop and given a rotated API key.
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { findTemporalCli } from '../../scripts/toolchain.mjs';
import type { Environment } from '../config.js';
import { type DevServer, startDevServer } from './dev-server.js';
import { registerSearchAttributes } from './namespace.js';
import type { Stops } from './shutdown.js';
import {
  connectionOptions,
  type KeyedConnection,
  type TemporalConnectionSettings,
  watchApiKeyFile,
} from './temporal-connection.js';

export interface TemporalServer {
  address: string;
  /** The embedded dev server, when no server was named; null otherwise. */
  devServer: DevServer | null;
}

/** The named server, or (none named) the embedded dev server, started now with its data in the data dir. */
export async function reachTemporalServer(
  env: Environment,
  settings: TemporalConnectionSettings,
  stops: Stops,
  log: (line: string) => void,
): Promise<TemporalServer> {
  if (settings.address) return { address: settings.address, devServer: null };
  const cliPath = findTemporalCli();
  if (!cliPath)
    throw new Error('the Temporal CLI is missing: run `npm start` (it builds it) or set TEMPORAL_CLI_PATH');
  log(`starting the Temporal dev server (data: ${env.SCHEDULER_DATA_DIR})…`);
  const devServer = await startDevServer({
    cliPath,
    dbFile: join(env.SCHEDULER_DATA_DIR, 'temporal.db'),
    logFile: join(env.SCHEDULER_DATA_DIR, 'temporal-server.log'),
    port: env.TEMPORAL_PORT,
    uiPort: env.TEMPORAL_UI_PORT,
    namespace: settings.namespace,
  });
  stops.add(() => devServer.stop());
  return { address: devServer.address, devServer };
}

/** The settings of a connection to `server`: the embedded dev server takes none (it is plaintext, open). */
const optionsFor = (settings: TemporalConnectionSettings, server: TemporalServer) =>
  server.devServer ? { address: server.address } : connectionOptions(settings, server.address);

async function connectTo(settings: TemporalConnectionSettings, server: TemporalServer): Promise<Connection> {
  try {
    return await Connection.connect({ ...optionsFor(settings, server), connectTimeout: 5000 });
  } catch (err) {
    throw new Error(
      server.devServer
        ? `could not connect to the embedded dev server at ${server.address}: ${(err as Error).message}`
        : `Temporal server at TEMPORAL_ADDRESS=${server.address} is not reachable (${(err as Error).message}): start it, fix the address, or unset TEMPORAL_ADDRESS to use the embedded dev server`,
    );
  }
}

export interface TemporalConnections {
  client: Client;
  namespace: string;
  /** Opens the worker's connection, which the rotated API key reaches too. */
  connectWorker(): Promise<NativeConnection>;
}

/** The client's connection (the search attributes checked on it) and the API key file's watch. */
export async function connectToTemporal(
  env: Environment,
  settings: TemporalConnectionSettings,
  server: TemporalServer,
  stops: Stops,
  log: (line: string) => void,
): Promise<TemporalConnections> {
  const connection = await connectTo(settings, server);
  stops.add(() => connection.close());
  await registerSearchAttributes(connection, settings.namespace, env.SCHEDULER_SEARCH_ATTRIBUTES);
  const client = new Client({ connection, namespace: settings.namespace });
  const keyed: KeyedConnection[] = [connection];
  const stopKeyWatch = watchApiKeyFile(settings, () => [...keyed], log);
  stops.add(async () => stopKeyWatch());
  return {
    client,
    namespace: settings.namespace,
    async connectWorker() {
      const workerConnection = await NativeConnection.connect(optionsFor(settings, server));
      keyed.push(workerConnection);
      stops.add(() => workerConnection.close());
      return workerConnection;
    },
  };
}
