import { createServer } from 'node:net';

export class PortTakenError extends Error {
  override name = 'PortTakenError';
}

/** Fails with an actionable message when something already listens on host:port. */
export async function assertPortFree(port: number, host: string, envVar: string): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const probe = createServer();
    probe.once('error', (err: NodeJS.ErrnoException) => {
      reject(
        err.code === 'EADDRINUSE'
          ? new PortTakenError(
              `port ${port} on ${host} is taken: stop what uses it or set ${envVar} to another port`,
            )
          : err,
      );
    });
    probe.listen(port, host, () => probe.close(() => resolve()));
  });
}

/** A port that was free a moment ago (for tests that start their own servers). */
export async function freePort(host = '127.0.0.1'): Promise<number> {
  return await new Promise<number>((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, host, () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}
