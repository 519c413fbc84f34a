import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize } from 'node:path';
import type { StreamEvent } from '@agentlane/contract';
import { WEB_CSP_HEADER } from '@agentlane/server';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.wasm': 'application/wasm',
};

interface Thread {
  id: string;
  title: string;
  frames: StreamEvent[];
  released: number;
}

export interface Posted {
  path: string;
  body: Record<string, unknown>;
}

function sessionOf(t: Thread) {
  return {
    id: t.id,
    engine: 'replay',
    title: t.title,
    workDir: '/work/demo',
    metadata: {},
    createdAt: '2026-01-01T09:00:00.000Z',
    updatedAt: '2026-01-01T09:10:00.000Z',
    provider: 'recorded',
    nativeSessionId: null,
    protocolVersion: null,
    capabilities: {},
    generation: 1,
  };
}

/**
 * A stand-in for `agentlane serve` until the browser tests run against the real server: serves the built
 * UI and the routes the UI calls, and streams scripted StreamEvents that a test releases step by step.
 */
export class FakeServer {
  readonly threads = new Map<string, Thread>();
  readonly posted: Posted[] = [];
  /** Extra HTML pages by path (benchmark baselines). */
  readonly pages = new Map<string, string>();
  /** Recorded JSON replies of GET routes by API path (`/sessions/th-1/audit`), query ignored. */
  readonly replies = new Map<string, unknown>();
  /** Artifact contents by id; other ids get a plain-text stand-in. */
  readonly artifacts = new Map<string, { contentType: string; body: Buffer }>();
  onPost?: (posted: Posted) => void;
  private server?: Server;
  private readonly streams = new Set<{ threadId: string; res: ServerResponse }>();
  port = 0;

  constructor(private readonly webRoot: string) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  addThread(id: string, title: string, frames: StreamEvent[], released = frames.length): void {
    this.threads.set(id, { id, title, frames, released });
  }

  /** Delivers the next `count` scripted frames of a thread to every open stream. */
  release(threadId: string, count = Number.POSITIVE_INFINITY): void {
    const thread = this.threads.get(threadId)!;
    const end = Math.min(thread.frames.length, thread.released + count);
    const next = thread.frames.slice(thread.released, end);
    thread.released = end;
    for (const stream of this.streams)
      if (stream.threadId === threadId) for (const f of next) write(stream.res, f);
  }

  /** Appends frames to a thread's script and delivers them. */
  append(threadId: string, frames: StreamEvent[]): void {
    const thread = this.threads.get(threadId)!;
    thread.frames.push(...frames);
    this.release(threadId, frames.length);
  }

  async start(port = this.port): Promise<void> {
    this.server = createServer((req, res) => {
      this.handle(req, res).catch((error: unknown) => {
        res.writeHead(500);
        res.end(String(error));
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(port, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }

  /** Stops abruptly, as a crashed or restarted server would: open streams just break. */
  async stop(): Promise<void> {
    for (const stream of this.streams) stream.res.destroy();
    this.streams.clear();
    const server = this.server;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    this.server = undefined;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://x');
    const path = url.pathname;
    const page = this.pages.get(path);
    if (page !== undefined) {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(page);
      return;
    }
    if (!path.startsWith('/api/')) return this.serveStatic(path, res);
    const api = path.slice('/api/harness'.length);
    if (req.method === 'POST') {
      let raw = '';
      for await (const chunk of req) raw += chunk;
      const posted = { path: api, body: raw ? (JSON.parse(raw) as Record<string, unknown>) : {} };
      this.posted.push(posted);
      this.onPost?.(posted);
      const run = /^\/runs\/([^/]+)/.exec(api);
      if (api.endsWith('/runs')) {
        return json(res, 201, {
          run: { runId: 'run-new', threadId: api.split('/')[2], status: 'queued' },
          created: true,
        });
      }
      if (run && api.endsWith('/cancel'))
        return json(res, 200, { run: { runId: run[1], status: 'running' } });
      return json(res, 202, { accepted: true });
    }
    if (api === '/health')
      return json(res, 200, {
        status: 'ok',
        version: 'test',
        store: 'memory',
        checks: {},
        openStreams: this.streams.size,
        engines: [{ name: 'replay', provider: 'replay', label: 'Replay' }],
      });
    if (api === '/sessions') {
      const search = url.searchParams.get('search')?.toLowerCase() ?? '';
      const sessions = [...this.threads.values()]
        .filter((t) => t.title.toLowerCase().includes(search))
        .map(sessionOf);
      return json(res, 200, { sessions, nextCursor: null });
    }
    if (this.replies.has(api)) return json(res, 200, this.replies.get(api));
    const one = /^\/sessions\/([^/]+)$/.exec(api);
    const known = one && this.threads.get(decodeURIComponent(one[1]!));
    if (known) return json(res, 200, { session: sessionOf(known) });
    const events = /^\/threads\/([^/]+)\/events$/.exec(api);
    if (events) {
      const thread = this.threads.get(decodeURIComponent(events[1]!));
      if (!thread)
        return json(res, 404, {
          error: { code: 'not_found', message: 'no such thread', field: 'params.id' },
        });
      const after = Number(url.searchParams.get('after') ?? req.headers['last-event-id'] ?? 0);
      res.writeHead(200, {
        'content-type': 'text/event-stream',
        'cache-control': 'no-cache',
        'x-accel-buffering': 'no',
      });
      const released = thread.frames.slice(0, thread.released);
      const head = Math.max(
        0,
        ...released.map((f) => ('deliverySeq' in f && f.type !== 'run.status' ? (f.deliverySeq ?? 0) : 0)),
      );
      write(res, { type: 'stream.opened', threadId: thread.id, after, headDeliverySeq: head });
      let position = 0;
      for (const frame of released) {
        const seq = 'deliverySeq' in frame && frame.type !== 'run.status' ? frame.deliverySeq : undefined;
        if (seq !== undefined) position = seq;
        if (seq !== undefined ? seq > after : position >= after) write(res, frame);
      }
      const stream = { threadId: thread.id, res };
      this.streams.add(stream);
      const heartbeat = setInterval(() => res.write(': hb\n\n'), 5000);
      res.on('close', () => {
        clearInterval(heartbeat);
        this.streams.delete(stream);
      });
      return;
    }
    const artifactMatch = /^\/artifacts\/(.+)$/.exec(api);
    const stored = artifactMatch && this.artifacts.get(decodeURIComponent(artifactMatch[1]!));
    if (stored) {
      res.writeHead(200, { 'content-type': stored.contentType });
      res.end(stored.body);
      return;
    }
    if (artifactMatch) {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end(`full content of ${artifactMatch[1]}`);
      return;
    }
    json(res, 404, { error: { code: 'not_found', message: `no route ${api}` } });
  }

  private async serveStatic(path: string, res: ServerResponse): Promise<void> {
    const file = normalize(join(this.webRoot, path === '/' ? 'index.html' : path));
    if (!file.startsWith(this.webRoot)) return json(res, 403, {});
    try {
      const body = await readFile(file);
      // The app page under the policy agentlane serve sends, so every surface is rendered as users get it.
      const policy = extname(file) === '.html' ? { 'content-security-policy': WEB_CSP_HEADER } : {};
      res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream', ...policy });
      res.end(body);
    } catch {
      json(res, 404, { error: { code: 'not_found', message: path } });
    }
  }
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

function write(res: ServerResponse, frame: StreamEvent | Record<string, unknown>): void {
  const seq = 'deliverySeq' in frame && frame.type !== 'run.status' ? frame.deliverySeq : undefined;
  res.write(`${seq !== undefined ? `id: ${seq}\n` : ''}data: ${JSON.stringify(frame)}\n\n`);
}
