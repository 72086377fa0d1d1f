// A real HTTP sink for EVENT targets and notices: records each POST and answers it from a script.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Delivery {
  headers: IncomingHttpHeaders;
  body: Record<string, unknown>;
}

export interface HttpSink {
  url: string;
  deliveries: Delivery[];
  server: Server;
}

/** Answers each POST with the next status of `script` (then 200). */
export async function startSink(script: number[] = [], path = '/events'): Promise<HttpSink> {
  const deliveries: Delivery[] = [];
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => {
      raw += c;
    });
    req.on('end', () => {
      deliveries.push({ headers: req.headers, body: JSON.parse(raw) });
      res.statusCode = script.shift() ?? 200;
      res.end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`, deliveries, server };
}
