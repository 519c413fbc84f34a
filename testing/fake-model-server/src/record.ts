import type { IncomingMessage } from 'node:http';
import { classifyApi, modelOf, toolNamesOf, viewHistory, wantsStream } from './request-view';
import type { RecordedRequest } from './types';

const SECRET_HEADERS = /^(authorization|x-api-key|x-goog-api-key|api-key|cookie)$/i;

/** A request's body read whole: null when empty, `invalid` when it is not JSON. */
export async function readJsonBody(req: IncomingMessage): Promise<{ body: unknown } | 'invalid'> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const raw = Buffer.concat(chunks).toString('utf8');
  if (raw.length === 0) return { body: null };
  try {
    return { body: JSON.parse(raw) };
  } catch {
    return 'invalid';
  }
}

/** What a test sees of one request: which API it speaks, what it asks for, its headers with secrets redacted. */
export function recordRequest(req: IncomingMessage, url: URL, body: unknown, index: number): RecordedRequest {
  const method = req.method ?? 'GET';
  const query = Object.fromEntries(url.searchParams.entries());
  const api = classifyApi(method, url.pathname);
  const history = viewHistory(api, body);
  return {
    index,
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
}
