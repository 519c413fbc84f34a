import type { FastifyInstance, RouteOptions } from 'fastify';
import { ErrorSchema } from './schemas.js';

/**
 * A stream route's 200 in the OpenAPI document: Server-Sent Events, each `data:` a JSON StreamEvent (or the
 * protocol's own frame), `id:` the resume position. Only documentation: a stream reply is hijacked, nothing
 * serializes it.
 */
export const sseResponse = (description: string) => ({
  description,
  content: { 'text/event-stream': { schema: { type: 'string' } } },
});

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const OPEN_PATHS = ['/health', '/openapi.json'];

/**
 * Answers every route can give whatever it does, which route schemas left out: request framing and
 * validation (400), bearer tokens (401), Host and thread scope (403), body size and media type (413, 415,
 * routes that take a body), an over-long path id (414), headers past the limit (431), the rate limits (429:
 * a token's request rate, or an address refused for wrong bearer tokens) and shutting down (503). Added to the schema only where the
 * route does not declare the status itself, so a route's own, richer body (a cursor error's head) stays.
 */
export function documentCommonErrors(app: FastifyInstance): void {
  app.addHook('onRoute', (route: RouteOptions) => {
    const schema = route.schema as (Record<string, unknown> & { hide?: boolean }) | undefined;
    if (!schema || schema.hide) return;
    schema.response ??= {};
    const response = schema.response as Record<string, unknown>;
    const methods = [route.method].flat();
    const open = OPEN_PATHS.some((p) => route.url.endsWith(p));
    // 431 (headers past the limit) can meet any route; 414 any route with a path id (one past 512 characters).
    const codes = [400, ...(open ? [] : [401, 403, 429]), 431, 503];
    if (route.url.includes(':')) codes.push(414);
    if (methods.some((m) => BODY_METHODS.has(m)) && schema.body) codes.push(413, 415);
    for (const code of codes)
      if (!(code in response) && !(String(code) in response)) response[code] = ErrorSchema;
  });
}
