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

/**
 * Ports handed out below the kernel's ephemeral range (32768–60999 on Linux) and below scripts/stack-prod.ts's
 * 20000–31999 bands. A port from `listen(0)` comes from the ephemeral range, which every outgoing connection
 * on the machine also draws its source port from: between our probe and the child's bind, a gRPC or HTTP
 * client elsewhere could take it (CI lost a run to "port 43021 on 127.0.0.1 is taken"). Here only other
 * callers of this function compete, and each test worker draws from its own slice.
 */
const PORT_RANGE = { from: 10_000, to: 17_000 } as const;
const SLICES = 4;
const handedOut = new Set<number>();

function workerSlice(): { from: number; size: number } {
  const size = Math.floor((PORT_RANGE.to - PORT_RANGE.from) / SLICES);
  const worker = Number(process.env.VITEST_POOL_ID ?? process.pid);
  return { from: PORT_RANGE.from + (Number.isFinite(worker) ? worker % SLICES : 0) * size, size };
}

async function bindable(port: number, host: string): Promise<boolean> {
  return await new Promise<boolean>((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, host, () => probe.close(() => resolve(true)));
  });
}

/** A port that was free a moment ago and that this process has not handed out before (tests, local runs). */
export async function freePort(host = '127.0.0.1'): Promise<number> {
  const slice = workerSlice();
  const start = Math.floor(Math.random() * slice.size);
  for (let i = 0; i < slice.size; i++) {
    const port = slice.from + ((start + i) % slice.size);
    if (handedOut.has(port)) continue;
    if (await bindable(port, host)) {
      handedOut.add(port);
      return port;
    }
  }
  throw new PortTakenError(`no free port in ${slice.from}–${slice.from + slice.size - 1} on ${host}`);
}
