import { createServer, type Server } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { assertPortFree, freePort, PortTakenError } from '../../src/runtime/ports.js';

const EPHEMERAL_FROM = 32_768;
const servers: Server[] = [];

async function hold(port: number): Promise<void> {
  const server = createServer();
  servers.push(server);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
}

afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

describe('ports for test servers', () => {
  it('are outside the ephemeral range outgoing connections draw from, never handed out twice, and bindable', async () => {
    const ports: number[] = [];
    for (let i = 0; i < 40; i++) ports.push(await freePort());
    expect(new Set(ports).size).toBe(ports.length);
    for (const port of ports) {
      expect(port).toBeLessThan(EPHEMERAL_FROM);
      expect(port).toBeGreaterThanOrEqual(1024);
    }
    for (const port of ports.slice(0, 5)) await hold(port);
  });

  it('a port something else holds is reported as taken, with the variable to change', async () => {
    const port = await freePort();
    await hold(port);
    const err = await assertPortFree(port, '127.0.0.1', 'SCHEDULER_API_PORT').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PortTakenError);
    expect(String(err)).toContain('SCHEDULER_API_PORT');
  });
});
