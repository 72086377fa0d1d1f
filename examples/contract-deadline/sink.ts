// A CloudEvents sink: the EVENT target of the contract-deadline schedule. The scheduler POSTs each
// occurrence as a CloudEvents 1.0 structured JSON event whose `id` is the occurrence ID, at least once:
// a lost answer makes it POST the same event again, so the sink deduplicates on `id`. New events are
// answered 204 No Content.
//
//   node --import tsx examples/contract-deadline/sink.ts [--lose-first-ack]
//
// --lose-first-ack: take each new event, then drop the connection without answering, as a crash right
// after the work would. The scheduler retries and the sink prints "duplicate ignored".
import { createServer } from 'node:http';

const PORT = Number(process.env.SINK_PORT || 9999);
const HOST = process.env.SINK_HOST || '127.0.0.1';
const loseFirstAck = process.argv.includes('--lose-first-ack');

interface CloudEvent {
  specversion: string;
  id: string;
  type: string;
  source: string;
  subject?: string;
  data?: { scheduled_for?: string; payload?: Record<string, unknown> | null; trigger?: string };
}

// In memory for the example; a real consumer keeps the IDs it processed where it keeps the effect.
const seen = new Set<string>();

/** "reminder, 1h before the deadline" or "DEADLINE", from the payload's deadline. */
function what(event: CloudEvent): string {
  const deadline = event.data?.payload?.deadline;
  const at = event.data?.scheduled_for;
  if (typeof deadline !== 'string' || !at) return '';
  const before = Date.parse(deadline) - Date.parse(at);
  if (before <= 0) return 'DEADLINE';
  const minutes = Math.round(before / 60_000);
  const human =
    minutes % 1440 === 0 ? `${minutes / 1440}d` : minutes % 60 === 0 ? `${minutes / 60}h` : `${minutes}m`;
  return `reminder, ${human} before the deadline`;
}

const server = createServer((req, res) => {
  if (req.method !== 'POST') {
    res.writeHead(405, { allow: 'POST' }).end();
    return;
  }
  let raw = '';
  req.setEncoding('utf8');
  req.on('data', (chunk: string) => {
    raw += chunk;
  });
  req.on('end', () => {
    let event: CloudEvent;
    try {
      event = JSON.parse(raw) as CloudEvent;
    } catch {
      // 4xx is permanent for the scheduler: it records the occurrence as FAILED and does not retry.
      res.writeHead(400, { 'content-type': 'text/plain' }).end('not JSON');
      return;
    }
    const stamp = new Date().toISOString();
    if (seen.has(event.id)) {
      console.log(`${stamp} duplicate ignored: ${event.id}`);
      // Still a success (2xx); 208 Already Reported also tells the scheduler it was a re-delivery, which it
      // records on the occurrence (duplicate_prevented) and counts.
      res.writeHead(208).end();
      return;
    }
    seen.add(event.id);
    console.log(`${stamp} ${event.type}  ${what(event)}`);
    console.log(`  id:            ${event.id}`);
    console.log(`  scheduled_for: ${event.data?.scheduled_for}`);
    console.log(`  payload:       ${JSON.stringify(event.data?.payload)}`);
    if (loseFirstAck) {
      console.log('  (--lose-first-ack: dropping the connection without an answer; expect a retry)');
      req.socket.destroy();
      return;
    }
    res.writeHead(204).end();
  });
});

server.listen(PORT, HOST, () => {
  console.log(
    `CloudEvents sink on http://${HOST}:${PORT}/events${loseFirstAck ? ' (--lose-first-ack)' : ''}`,
  );
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    server.close();
    process.exit(0);
  });
}
