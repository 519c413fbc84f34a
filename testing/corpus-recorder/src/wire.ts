import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { canonicalJson, type JsonValue } from '@agentlane/contract';

/**
 * One HTTP exchange with the model provider as the runtime saw it on the wire. The request keeps method,
 * path and JSON body only (headers carry the API key and are never recorded); the response keeps the
 * status, the content type and the body as the server sent it: one entry per SSE frame (`data: …\n\n`,
 * verbatim) for an event stream, or the whole text otherwise.
 */
export interface WireExchange {
  request: { method: string; path: string; body: JsonValue };
  response: { status: number; contentType: string; chunks: string[] };
}

/** SSE frames end with a blank line; splitting there is deterministic, unlike TCP chunk boundaries. */
export function splitSse(text: string): string[] {
  const out: string[] = [];
  let at = 0;
  for (;;) {
    const end = text.indexOf('\n\n', at);
    if (end < 0) break;
    out.push(text.slice(at, end + 2));
    at = end + 2;
  }
  if (at < text.length) out.push(text.slice(at));
  return out;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function parseBody(raw: string): JsonValue {
  if (raw.length === 0) return null;
  try {
    return JSON.parse(raw) as JsonValue;
  } catch {
    return raw;
  }
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function closer(server: Server): () => Promise<void> {
  return () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
}

export interface WireRecorder {
  /** Base URL to give the provider instead of the upstream's (same paths). */
  url: string;
  exchanges: WireExchange[];
  close(): Promise<void>;
}

/** A pass-through proxy in front of a model server that records every exchange. */
export async function startWireRecorder(upstream: string): Promise<WireRecorder> {
  const exchanges: WireExchange[] = [];
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const raw = await readBody(req);
    const method = req.method ?? 'GET';
    const path = req.url ?? '/';
    const answer = await fetch(`${upstream}${path}`, {
      method,
      headers: { 'content-type': req.headers['content-type'] ?? 'application/json' },
      ...(raw.length > 0 ? { body: raw } : {}),
    });
    const contentType = answer.headers.get('content-type') ?? 'application/octet-stream';
    const text = await answer.text();
    const chunks = contentType.startsWith('text/event-stream') ? splitSse(text) : [text];
    exchanges.push({
      request: { method, path, body: parseBody(raw) },
      response: { status: answer.status, contentType, chunks },
    });
    res.writeHead(answer.status, { 'content-type': contentType });
    for (const chunk of chunks) res.write(chunk);
    res.end();
  };
  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `recorder: ${String(err)}` } }));
    });
  });
  return { url: await listen(server), exchanges, close: closer(server) };
}

export interface WireReplayer {
  url: string;
  /** Requests that differed from the recording (or came after it ended), as readable descriptions. */
  mismatches: string[];
  /** How many requests arrived. */
  served(): number;
  close(): Promise<void>;
}

/**
 * Serves recorded exchanges in order over real HTTP. Each request must match the recorded one (method,
 * path and canonical JSON body); a difference is noted in `mismatches` and the recorded answer is still
 * sent, so the turn runs to its end and every later difference shows too.
 */
export async function startWireReplayer(exchanges: readonly WireExchange[]): Promise<WireReplayer> {
  const mismatches: string[] = [];
  let next = 0;
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const raw = await readBody(req);
    const index = next++;
    const recorded = exchanges[index];
    const method = req.method ?? 'GET';
    const path = req.url ?? '/';
    if (!recorded) {
      mismatches.push(`request ${index + 1} (${method} ${path}) was not in the recording`);
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: 'replay: no recorded response left' } }));
      return;
    }
    const body = parseBody(raw);
    if (method !== recorded.request.method || path !== recorded.request.path)
      mismatches.push(
        `request ${index + 1}: ${method} ${path}, recorded ${recorded.request.method} ${recorded.request.path}`,
      );
    else if (canonicalJson(body) !== canonicalJson(recorded.request.body))
      mismatches.push(
        `request ${index + 1}: body differs\n  got      ${canonicalJson(body)}\n  recorded ${canonicalJson(recorded.request.body)}`,
      );
    res.writeHead(recorded.response.status, { 'content-type': recorded.response.contentType });
    for (const chunk of recorded.response.chunks) res.write(chunk);
    res.end();
  };
  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      mismatches.push(`replay server error: ${String(err)}`);
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  return { url: await listen(server), mismatches, served: () => next, close: closer(server) };
}
