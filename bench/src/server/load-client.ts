/**
 * The SSE load client, run as a separate process so the server under test does not share its CPU time
 * with the readers. Driven over IPC by the benchmark: open N streams, wait for a goal, report, close.
 */
import { type IncomingMessage, request } from 'node:http';
import { createParser } from 'eventsource-parser';

export type ClientCommand =
  | {
      type: 'open';
      url: string;
      n: number;
      /** Last-Event-ID per connection (reconnect storm); none means from the live head. */
      lastEventIds?: number[];
      /** count: wait for m message.delta frames per connection; seq: until deliverySeq >= head. */
      goal: { kind: 'count'; m: number } | { kind: 'seq'; head: number };
    }
  | { type: 'close' };

export type ClientReport =
  | { type: 'opened'; at: number }
  | { type: 'done'; received: number; lastAt: number; p50: number; p99: number; errors: number }
  | { type: 'closed' }
  | { type: 'error'; message: string };

const now = () => performance.timeOrigin + performance.now();
const send = (r: ClientReport) => process.send?.(r);

let sockets: IncomingMessage[] = [];

function quantile(sorted: Float64Array, q: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
}

async function open(cmd: Extract<ClientCommand, { type: 'open' }>): Promise<void> {
  const goalCount = cmd.goal.kind === 'count' ? cmd.goal.m : 0;
  const head = cmd.goal.kind === 'seq' ? cmd.goal.head : 0;
  const latencies = new Float64Array(cmd.goal.kind === 'count' ? cmd.n * goalCount : 0);
  let li = 0;
  let received = 0;
  let openedCount = 0;
  let doneCount = 0;
  let errors = 0;
  let lastAt = 0;
  const finishOne = () => {
    doneCount++;
    if (doneCount === cmd.n) {
      const sorted = latencies.slice(0, li).sort();
      send({
        type: 'done',
        received,
        lastAt,
        p50: quantile(sorted, 0.5),
        p99: quantile(sorted, 0.99),
        errors,
      });
    }
  };
  const openOne = (i: number) =>
    new Promise<void>((resolve) => {
      const headers: Record<string, string> = { accept: 'text/event-stream' };
      const last = cmd.lastEventIds?.[i];
      if (last !== undefined) headers['last-event-id'] = String(last);
      let count = 0;
      let finished = false;
      let first = true;
      const parser = createParser({
        onEvent: (e) => {
          if (first) {
            first = false;
            openedCount++;
            if (openedCount === cmd.n) send({ type: 'opened', at: now() });
            resolve();
          }
          if (finished) return;
          if (e.event === 'message.delta') {
            received++;
            count++;
            const t = now();
            lastAt = t;
            if (goalCount > 0) {
              const data = JSON.parse(e.data) as { event: { payload: { delta: string } } };
              latencies[li++] = t - Number(data.event.payload.delta);
              if (count >= goalCount) {
                finished = true;
                finishOne();
              }
            } else if (Number(e.id) >= head) {
              finished = true;
              finishOne();
            }
          }
        },
      });
      const req = request(cmd.url, { headers, agent: false }, (res) => {
        sockets.push(res);
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => parser.feed(chunk));
        res.on('error', () => {});
        res.on('end', () => {
          // The server ended the stream before the goal (e.g. dropped as slow): count it as an error.
          if (!finished) {
            finished = true;
            errors++;
            finishOne();
          }
        });
      });
      req.on('error', (err) => {
        errors++;
        if (errors <= 3) console.error(`load client: connection ${i}: ${err.message}`);
        // A failed connection counts as opened and done, so the run still ends (with errors reported).
        if (first) {
          first = false;
          openedCount++;
          if (openedCount === cmd.n) send({ type: 'opened', at: now() });
        }
        if (!finished) {
          finished = true;
          finishOne();
        }
        resolve();
      });
      req.end();
    });
  // Connect in waves: a burst of thousands of SYNs overflows the listen backlog and adds retransmit delays.
  const wave = 250;
  for (let i = 0; i < cmd.n; i += wave) {
    await Promise.all(Array.from({ length: Math.min(wave, cmd.n - i) }, (_, k) => openOne(i + k)));
  }
}

process.on('message', (msg: ClientCommand) => {
  if (msg.type === 'open') {
    open(msg).catch((err) => send({ type: 'error', message: String(err) }));
  } else if (msg.type === 'close') {
    for (const s of sockets) s.destroy();
    sockets = [];
    setTimeout(() => send({ type: 'closed' }), 200);
  }
});
