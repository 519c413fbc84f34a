import type { FastifyRequest } from 'fastify';
import { HttpError } from './errors.js';

/**
 * What Node's parser lets through but no honest client sends: an HTTP/1.1 request without a Host header, or
 * with two (RFC 9112 §3.2: 400; Node's own answer to the first is a bare 400, so it lets it through), a body
 * in a content coding this server does not decode (it would be parsed as if plain), and JSON in a charset
 * other than UTF-8 (RFC 8259 §8.1; it would be read as UTF-8 anyway).
 */
export function assertRequestFraming(request: FastifyRequest): void {
  const raw = request.raw.rawHeaders;
  let hosts = 0;
  let authorizations = 0;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]?.toLowerCase();
    if (name === 'host') hosts++;
    else if (name === 'authorization') authorizations++;
  }
  if (hosts > 1) throw new HttpError('invalid_request', 'a request carries one Host header', 'headers.host');
  // Node keeps the first and drops the rest: which credential counted would depend on their order.
  if (authorizations > 1)
    throw new HttpError(
      'invalid_request',
      'a request carries at most one Authorization header',
      'headers.authorization',
    );
  if (hosts === 0 && request.raw.httpVersionMajor === 1 && request.raw.httpVersionMinor >= 1)
    throw new HttpError('invalid_request', 'an HTTP/1.1 request must carry a Host header', 'headers.host');
  const coding = request.headers['content-encoding']?.trim().toLowerCase();
  if (coding !== undefined && coding !== '' && coding !== 'identity')
    throw new HttpError(
      'unsupported_media_type',
      `Content-Encoding ${JSON.stringify(coding)} is not accepted: send the body uncompressed`,
      'headers.content-encoding',
    );
  const type = request.headers['content-type'];
  const charset = type === undefined ? undefined : /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(type)?.[1];
  if (charset !== undefined && charset.toLowerCase() !== 'utf-8' && charset.toLowerCase() !== 'utf8')
    throw new HttpError(
      'unsupported_media_type',
      `charset ${JSON.stringify(charset)} is not accepted: bodies are UTF-8`,
      'headers.content-type',
    );
}
