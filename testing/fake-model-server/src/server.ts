import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { EncodeContext } from './chunks';
import { anthropicError, anthropicJson, anthropicStream } from './encode-anthropic';
import { geminiError, geminiJson, geminiStream } from './encode-gemini';
import { chatJson, chatStream } from './encode-openai-chat';
import { openaiError, responsesJson, responsesStream } from './encode-openai-responses';
import { classifyApi, modelOf, toolNamesOf, viewHistory, wantsStream } from './request-view';
import { toolThenAnswer, writeFileTool } from './scenarios';
import type { ModelApi, ModelReply, RecordedRequest, Scenario } from './types';

export interface FakeModelServerOptions {
  /** 0 (default) picks a free port. */
  port?: number;
  /** Decides each reply; defaults to "call one tool (write hello.txt in the cwd), then answer". */
  scenario?: Scenario;
  /** Replies in order instead of a scenario; the last one repeats. */
  script?: ModelReply[];
}

export interface FakeModelServer {
  /** Base URL without a trailing slash, e.g. http://127.0.0.1:40123 (append /v1 for OpenAI clients). */
  url: string;
  port: number;
  /** Every request received, in order. */
  requests: RecordedRequest[];
  /** Model requests only (the four provider APIs), in order. */
  modelRequests(): RecordedRequest[];
  setScenario(scenario: Scenario | ModelReply[]): void;
  close(): Promise<void>;
}

const SECRET_HEADERS = /^(authorization|x-api-key|x-goog-api-key|api-key|cookie)$/i;

export async function startFakeModelServer(options: FakeModelServerOptions = {}): Promise<FakeModelServer> {
  let scenario: Scenario = options.script
    ? scriptScenario(options.script)
    : (options.scenario ?? toolThenAnswer({ tool: writeFileTool(`${process.cwd()}/hello.txt`, 'hello\n') }));
  const requests: RecordedRequest[] = [];
  const sockets = new Set<import('node:net').Socket>();

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: String(error) } }));
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const method = req.method ?? 'GET';
    const raw = await readBody(req);
    let body: unknown = null;
    if (raw.length > 0) {
      try {
        body = JSON.parse(raw);
      } catch {
        return json(res, 400, {
          error: { message: 'request body is not JSON', type: 'invalid_request_error' },
        });
      }
    }
    const query = Object.fromEntries(url.searchParams.entries());
    const api = classifyApi(method, url.pathname);
    const history = viewHistory(api, body);
    const recorded: RecordedRequest = {
      index: requests.length + 1,
      api,
      method,
      path: url.pathname,
      query,
      headers: Object.fromEntries(
        Object.entries(req.headers).map(([k, v]) => [k, SECRET_HEADERS.test(k) ? '[redacted]' : String(v)]),
      ),
      body,
      stream: wantsStream(api, url.pathname, query, body),
      model: modelOf(api, url.pathname, body),
      toolNames: toolNamesOf(api, body),
      ...history,
    };
    requests.push(recorded);

    if (api === 'unknown') return answerAuxiliary(res, method, url.pathname);
    const reply = scenario(recorded);
    const ctx: EncodeContext = { index: recorded.index, model: recorded.model ?? 'fake-model' };
    if (reply.error) {
      const status = reply.error.status ?? 400;
      const payload =
        api === 'anthropic-messages'
          ? anthropicError(reply.error)
          : api === 'gemini'
            ? geminiError(reply.error)
            : openaiError(reply.error);
      return json(
        res,
        status,
        payload,
        reply.error.retryAfter ? { 'retry-after': reply.error.retryAfter } : {},
      );
    }
    if (!recorded.stream) return json(res, 200, encodeJson(api, reply, ctx));
    const bad = reply.misbehave ?? {};
    if (bad.headersDelayMs) await sleep(bad.headersDelayMs);
    const includeUsage = isIncludeUsage(body) && !bad.omitUsage;
    const frames =
      api === 'anthropic-messages'
        ? anthropicStream(reply, ctx)
        : api === 'openai-responses'
          ? responsesStream(reply, ctx)
          : api === 'openai-chat'
            ? chatStream(reply, ctx, includeUsage)
            : geminiStream(reply, ctx);
    res.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
      ...(api === 'anthropic-messages' ? { 'request-id': `req_fake_${recorded.index}` } : {}),
    });
    const stallAt = bad.stallAfter ?? Number.POSITIVE_INFINITY;
    const sent = frames.slice(0, Math.min(bad.truncateAfter ?? frames.length, stallAt));
    for (const frame of sent) {
      if (res.destroyed || res.writableEnded) return;
      res.write(frame);
      if (reply.chunkDelayMs) await sleep(reply.chunkDelayMs);
    }
    if (stallAt < frames.length) return stall(res, api, bad.keepAliveMs);
    res.end();
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    modelRequests: () => requests.filter((r) => r.api !== 'unknown'),
    setScenario(next) {
      scenario = Array.isArray(next) ? scriptScenario(next) : next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

function scriptScenario(replies: ModelReply[]): Scenario {
  let next = 0;
  return () => {
    const reply = replies[Math.min(next, replies.length - 1)] ?? { text: '' };
    next += 1;
    return reply;
  };
}

function encodeJson(api: ModelApi, reply: ModelReply, ctx: EncodeContext): unknown {
  if (api === 'anthropic-messages') return anthropicJson(reply, ctx);
  if (api === 'openai-responses') return responsesJson(reply, ctx);
  if (api === 'openai-chat') return chatJson(reply, ctx);
  return geminiJson(reply, ctx);
}

function isIncludeUsage(body: unknown): boolean {
  if (typeof body !== 'object' || body === null) return false;
  const so = (body as Record<string, unknown>).stream_options;
  return typeof so === 'object' && so !== null && (so as Record<string, unknown>).include_usage === true;
}

/** Side routes some clients touch (token counting, model lists); everything else is a clear 404. */
function answerAuxiliary(res: ServerResponse, method: string, path: string): void {
  if (method === 'POST' && path.endsWith('/messages/count_tokens')) {
    json(res, 200, { input_tokens: 100 });
  } else if (method === 'POST' && /:countTokens$/.test(path)) {
    json(res, 200, { totalTokens: 100 });
  } else if (method === 'GET' && /\/models$/.test(path)) {
    json(res, 200, { object: 'list', data: [{ id: 'fake-model', object: 'model', owned_by: 'fake' }] });
  } else
    json(res, 404, {
      error: { message: `fake model server: no route for ${method} ${path}`, type: 'not_found' },
    });
}

/** A stalled stream: nothing but keep-alives (if asked) until the client or the server closes it. */
async function stall(res: ServerResponse, api: ModelApi, keepAliveMs: number | undefined): Promise<void> {
  const closed = new Promise<void>((resolve) => res.once('close', () => resolve()));
  if (!keepAliveMs) return closed;
  const ping = api === 'anthropic-messages' ? 'event: ping\ndata: {"type": "ping"}\n\n' : ': keep-alive\n\n';
  let open = true;
  void closed.then(() => {
    open = false;
  });
  while (open && !res.destroyed) {
    res.write(ping);
    await Promise.race([sleep(keepAliveMs), closed]);
  }
}

function json(
  res: ServerResponse,
  status: number,
  payload: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(payload));
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
