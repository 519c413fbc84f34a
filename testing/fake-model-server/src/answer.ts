import type { ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import type { EncodeContext } from './chunks';
import { anthropicError, anthropicJson, anthropicStream } from './encode-anthropic';
import { geminiError, geminiJson, geminiStream } from './encode-gemini';
import { chatJson, chatStream } from './encode-openai-chat';
import { openaiError, responsesJson, responsesStream } from './encode-openai-responses';
import type { FakeProviderError, ModelApi, ModelReply, RecordedRequest } from './types';

/** A model request's answer in its API's dialect: the reply's error, its JSON body or its event stream. */
export async function answerModel(
  res: ServerResponse,
  recorded: RecordedRequest,
  reply: ModelReply,
): Promise<void> {
  const api = recorded.api;
  const ctx: EncodeContext = { index: recorded.index, model: recorded.model ?? 'fake-model' };
  if (reply.error) {
    const retryAfter: Record<string, string> = reply.error.retryAfter
      ? { 'retry-after': reply.error.retryAfter }
      : {};
    return json(res, reply.error.status ?? 400, encodeError(api, reply.error), retryAfter);
  }
  if (!recorded.stream) return json(res, 200, encodeJson(api, reply, ctx));
  return writeStream(res, recorded, reply, ctx);
}

/** Streams the reply's frames, misbehaving as it asks: late headers, slow chunks, a cut or a stalled stream. */
async function writeStream(
  res: ServerResponse,
  recorded: RecordedRequest,
  reply: ModelReply,
  ctx: EncodeContext,
): Promise<void> {
  const api = recorded.api;
  const bad = reply.misbehave ?? {};
  if (bad.headersDelayMs) await sleep(bad.headersDelayMs);
  const includeUsage = isIncludeUsage(recorded.body) && !bad.omitUsage;
  const frames = encodeStream(api, reply, ctx, includeUsage);
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

function encodeError(api: ModelApi, error: FakeProviderError): unknown {
  if (api === 'anthropic-messages') return anthropicError(error);
  if (api === 'gemini') return geminiError(error);
  return openaiError(error);
}

function encodeJson(api: ModelApi, reply: ModelReply, ctx: EncodeContext): unknown {
  if (api === 'anthropic-messages') return anthropicJson(reply, ctx);
  if (api === 'openai-responses') return responsesJson(reply, ctx);
  if (api === 'openai-chat') return chatJson(reply, ctx);
  return geminiJson(reply, ctx);
}

function encodeStream(api: ModelApi, reply: ModelReply, ctx: EncodeContext, includeUsage: boolean): string[] {
  if (api === 'anthropic-messages') return anthropicStream(reply, ctx);
  if (api === 'openai-responses') return responsesStream(reply, ctx);
  if (api === 'openai-chat') return chatStream(reply, ctx, includeUsage);
  return geminiStream(reply, ctx);
}

function isIncludeUsage(body: unknown): boolean {
  if (typeof body !== 'object' || body === null) return false;
  const so = (body as Record<string, unknown>).stream_options;
  return typeof so === 'object' && so !== null && (so as Record<string, unknown>).include_usage === true;
}

/** Side routes some clients touch (token counting, model lists); everything else is a clear 404. */
export function answerAuxiliary(res: ServerResponse, method: string, path: string): void {
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

export function json(
  res: ServerResponse,
  status: number,
  payload: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(payload));
}
