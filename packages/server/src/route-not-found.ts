import type { FastifyInstance, FastifyRequest, HTTPMethods } from 'fastify';
import { HttpError, quote } from './errors.js';

const METHODS: readonly HTTPMethods[] = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'];

/**
 * The 404 of a request no route answers (404 for a wrong method too, as Fastify answers it). A path that
 * some route answers with another method names `method` and the methods it takes, since the URL is right;
 * any other path names `url`.
 */
export function routeNotFound(app: FastifyInstance, request: FastifyRequest): HttpError {
  const path = request.url.split('?')[0] ?? '';
  const allowed = METHODS.filter(
    (method) => method !== request.method && app.findRoute({ method, url: path }) !== null,
  );
  if (allowed.length > 0)
    return new HttpError(
      'not_found',
      `${quote(path)} does not answer ${request.method}; it answers ${allowed.join(', ')}`,
      'method',
    );
  return new HttpError('not_found', `no route ${request.method} ${quote(path)}`, 'url');
}
