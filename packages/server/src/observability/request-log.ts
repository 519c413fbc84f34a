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
