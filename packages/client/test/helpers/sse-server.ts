import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { CanonicalStreamEvent, StreamEvent } from '@agentlane/contract';

export interface Connection {
  after: number;
  lastEventIdHeader: string | undefined;
  response: ServerResponse;
}

/**
 * A minimal thread-events SSE server for client tests: replays stored frames after the requested cursor,
 * then pushes live ones. Tests misbehave it on purpose (drops, duplicates, unknown types, closing).
 */
export class TestSseServer {
  readonly frames: CanonicalStreamEvent[] = [];
  readonly connections: Connection[] = [];
  /** Called for each new connection after replay; lets a test script faults. */
  onConnect?: (connection: Connection, index: number) => void;
  /** Refuse connections with this status while set. */
  refuseWith?: number;
  private server: Server = createServer((req, res) => this.handle(req, res));

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    const { port } = this.server.address() as AddressInfo;
    return `http://127.0.0.1:${port}`;
  }

  async stop(): Promise<void> {
    for (const c of this.connections) c.response.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  push(frame: CanonicalStreamEvent): void {
    this.frames.push(frame);
    for (const c of this.connections) if (!c.response.destroyed) send(c.response, frame);
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? '/', 'http://x');
    if (!/^\/api\/harness\/threads\/[^/]+\/events$/.test(url.pathname)) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { code: 'not_found', message: 'unknown thread' } }));
      return;
    }
    if (this.refuseWith) {
      res.writeHead(this.refuseWith, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { code: 'refused', message: 'refused' } }));
      return;
    }
    const header = req.headers['last-event-id'];
    const lastEventIdHeader = typeof header === 'string' ? header : undefined;
    const after = Number(lastEventIdHeader ?? url.searchParams.get('after') ?? 0);
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const head = this.frames[this.frames.length - 1]?.deliverySeq ?? 0;
    send(res, { type: 'stream.opened', threadId: 'th1', after, headDeliverySeq: head });
    for (const frame of this.frames) if (frame.deliverySeq > after) send(res, frame);
    const connection = { after, lastEventIdHeader, response: res };
    this.connections.push(connection);
    this.onConnect?.(connection, this.connections.length - 1);
  }
}

export function send(res: ServerResponse, frame: StreamEvent | Record<string, unknown>): void {
  const id =
    'deliverySeq' in frame && typeof frame.deliverySeq === 'number' ? `id: ${frame.deliverySeq}\n` : '';
  res.write(`${id}data: ${JSON.stringify(frame)}\n\n`);
}
