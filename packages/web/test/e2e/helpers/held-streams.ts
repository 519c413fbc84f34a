import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { StreamEvent } from '@agentlane/contract';
import type { Page } from 'playwright-core';

type Hold = { kind: 'silent' } | { kind: 'behind'; head: number; frames: StreamEvent[] };

/**
 * Thread event streams that stay in one connection state for as long as a screenshot needs: `silent`
 * opens the stream but never says where it stands (the page stays "connecting"), `behind` announces a head it never reaches (the page stays
 * "catching up"). A page's requests for those threads are routed here with `page.route`.
 */
export class HeldStreams {
  private readonly holds = new Map<string, Hold>();
  private readonly open = new Set<ServerResponse>();
  private server?: Server;
  port = 0;

  hold(threadId: string, hold: Hold): void {
    this.holds.set(threadId, hold);
  }

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const match = /\/threads\/([^/]+)\/events/.exec(req.url ?? '');
      const threadId = match ? decodeURIComponent(match[1]!) : '';
      const hold = this.holds.get(threadId);
      this.open.add(res);
      res.on('close', () => this.open.delete(res));
      if (!hold) {
        res.writeHead(404).end();
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.flushHeaders();
      if (hold.kind === 'silent') return;
      res.write(
        `data: ${JSON.stringify({ type: 'stream.opened', threadId, after: 0, headDeliverySeq: hold.head })}\n\n`,
      );
      for (const frame of hold.frames) {
        const seq = 'deliverySeq' in frame && frame.type !== 'run.status' ? frame.deliverySeq : undefined;
        res.write(`${seq !== undefined ? `id: ${seq}\n` : ''}data: ${JSON.stringify(frame)}\n\n`);
      }
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }

  /** Sends the page's event stream requests for the held threads here instead of to its own server. */
  async route(page: Page): Promise<void> {
    for (const threadId of this.holds.keys()) {
      await page.route(`**/api/harness/threads/${encodeURIComponent(threadId)}/events*`, (route) => {
        const url = new URL(route.request().url());
        return route.continue({ url: `http://127.0.0.1:${this.port}${url.pathname}${url.search}` });
      });
    }
  }

  async stop(): Promise<void> {
    for (const res of this.open) res.destroy();
    const server = this.server;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
