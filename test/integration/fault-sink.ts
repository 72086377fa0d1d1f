// A real HTTP sink for EVENT targets, in the test's own process, that records every CloudEvent delivered
// to it and answers each as the test decides: 200, a status (500, 429, 400…), or never (holds the request
// open past the hand-off's POST timeout). Used by the sink-fault tests and as the chaos run's ledger.
import { once } from 'node:events';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Delivery {
  /** The request path: tests give each schedule its own. */
  path: string;
  /** CloudEvent id (the occurrence ID). */
  id: string;
  /** The Idempotency-Key header. */
  key: string;
  scheduleId: string;
  scheduledFor: string;
  /** The CloudEvent's `time`: when the occurrence was emitted. */
  time: string;
  /** The CloudEvent's `data` (the occurrence envelope: schedule_version, payload, …). */
  data: { schedule_version: number; payload: unknown; [field: string]: unknown };
  at: number;
}

/**
 * 'hang': never answered (the connection is dropped when the sink closes); `afterMs`: a slow sink; `until`:
 * answered once the test lets it (a gate).
 */
export type Answer =
  | number
  | 'hang'
  | { status: number; afterMs: number }
  | { status: number; until: Promise<unknown> };

export interface FaultSink {
  url: (path: string) => string;
  port: number;
  deliveries: Delivery[];
  /** The most deliveries that were in the sink at once (received, not yet answered; held ones count). */
  maxConcurrent: () => number;
  /** Deliveries of one occurrence (by CloudEvent id), in order. */
  of: (id: string) => Delivery[];
  close: () => Promise<void>;
}

/**
 * `answer` sees the delivery and the earlier deliveries of the same occurrence. `port`: listen on this one
 * (a sink that "comes back" on the port a schedule was refused on).
 */
export async function startFaultSink(
  answer: (delivery: Delivery, earlier: Delivery[]) => Answer = () => 200,
  port = 0,
): Promise<FaultSink> {
  const deliveries: Delivery[] = [];
  const held: ServerResponse[] = [];
  let concurrent = 0;
  let maxConcurrent = 0;
  const of = (id: string) => deliveries.filter((d) => d.id === id);
  const server: Server = createServer(async (req, res) => {
    let body = '';
    for await (const chunk of req) body += chunk;
    let delivery: Delivery;
    try {
      const event = JSON.parse(body) as {
        id: string;
        time: string;
        data: Delivery['data'] & { schedule_id: string; scheduled_for: string };
      };
      delivery = {
        path: req.url ?? '/',
        id: event.id,
        key: String(req.headers['idempotency-key'] ?? ''),
        scheduleId: event.data.schedule_id,
        scheduledFor: event.data.scheduled_for,
        time: event.time,
        data: event.data,
        at: Date.now(),
      };
    } catch {
      res.writeHead(400).end();
      return;
    }
    const earlier = of(delivery.id);
    deliveries.push(delivery);
    concurrent += 1;
    maxConcurrent = Math.max(maxConcurrent, concurrent);
    const a = answer(delivery, earlier);
    if (a === 'hang') {
      held.push(res);
      return;
    }
    if (typeof a === 'object') await ('until' in a ? a.until : new Promise((r) => setTimeout(r, a.afterMs)));
    concurrent -= 1;
    res.writeHead(typeof a === 'object' ? a.status : a).end();
  });
  server.listen(port, '127.0.0.1');
  await once(server, 'listening');
  const bound = (server.address() as AddressInfo).port;
  return {
    url: (path) => `http://127.0.0.1:${bound}${path}`,
    port: bound,
    deliveries,
    maxConcurrent: () => maxConcurrent,
    of,
    close: async () => {
      for (const res of held) res.destroy();
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}
