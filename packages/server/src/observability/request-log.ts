import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';

/** A caller's X-Request-ID is kept when it is a plain token (no log injection, bounded); else a new UUID. */
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export function requestId(request: { headers: Record<string, string | string[] | undefined> }): string {
  const given = request.headers['x-request-id'];
  return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
}

/** Which log field a route's `:id` is, by the collection the route is under. */
function idField(routeUrl: string | undefined): 'threadId' | 'runId' | undefined {
  if (!routeUrl) return undefined;
  if (/\/(sessions|threads)\/:id\b/.test(routeUrl)) return 'threadId';
  if (/\/runs\/:id\b/.test(routeUrl)) return 'runId';
  return undefined;
}

/**
 * Every log line of a request carries its request id (Fastify's reqId, echoed as X-Request-ID) and the
 * thread and run it is about when its route names them, so one grep follows a thread through the log.
 */
export function requestLog(app: FastifyInstance): void {
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  app.addHook('preHandler', async (request: FastifyRequest, reply) => {
    const field = idField(request.routeOptions.url);
    const id = (request.params as Record<string, unknown> | undefined)?.id;
    if (field === undefined || typeof id !== 'string') return;
    request.log = request.log.child({ [field]: id });
    reply.log = request.log;
  });
}

/** Query parameters whose value may be a credential (a browser EventSource cannot send a header). */
const SECRET_PARAM = /token|key|auth|pass|secret|sig|code|session_id|jwt|bearer|credential|cookie/i;

/**
 * `url` with the value of every credential-like query parameter replaced by `[redacted]`. Pairs are divided
 * by `&` and by `;` (which some servers and proxies also take), so `a=1;token=…` hides its token too.
 */
export function redactedUrl(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const query = url.slice(q + 1).replace(/(^|[&;])([^=&;]*)=([^&;]*)/g, (pair, sep: string, name: string) => {
    let decoded = name;
    try {
      decoded = decodeURIComponent(name);
    } catch {}
    return SECRET_PARAM.test(decoded) ? `${sep}${name}=[redacted]` : pair;
  });
  return `${url.slice(0, q)}?${query}`;
}

interface LoggedRequest {
  method: string;
  url: string;
  host?: string;
  ip?: string;
  socket?: { remotePort?: number };
}

/**
 * The request as every log line shows it (Fastify's own fields), its URL redacted: a token a client put in
 * the query string is refused (only the Authorization header authenticates) but was logged verbatim.
 */
export const requestSerializers = {
  req: (req: LoggedRequest) => ({
    method: req.method,
    url: redactedUrl(req.url),
    host: req.host,
    remoteAddress: req.ip,
    remotePort: req.socket?.remotePort,
  }),
};
