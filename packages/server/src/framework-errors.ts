import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import {
  codeForStatus,
  ERROR_STATUS,
  type ErrorCode,
  HttpError,
  quote,
  RETRY_AFTER_SECONDS,
  toHttpError,
} from './errors.js';
import { validationField } from './validation-field.js';

// Every answer is `{error:{code,message,field?}}` with a code of the status table, including the ones Fastify
// and Node's HTTP parser produce on their own (bad URL, a too long path parameter, parser errors, timeouts).

/**
 * A body in a media type no parser reads (only JSON is: json-body.ts): the header is what to change, so it
 * is the field, not the body.
 */
function unsupportedMediaType(type: string | undefined): HttpError {
  const sent = type === undefined ? 'a body without Content-Type' : `Content-Type ${quote(type)}`;
  return new HttpError(
    'unsupported_media_type',
    `${sent} is not accepted: send the body as JSON with Content-Type: application/json`,
    'headers.content-type',
  );
}

/** Fastify's own client errors that name an input: bad JSON, wrong media type, empty body. */
function fastifyClientError(err: FastifyError, request: FastifyRequest): HttpError {
  if (err.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE')
    return unsupportedMediaType(request.headers['content-type']);
  const code = codeForStatus(err.statusCode ?? 400);
  const field = err.code?.startsWith('FST_ERR_CTP') || code === 'payload_too_large' ? 'body' : undefined;
  // Fastify reads a body as UTF-8 text and compares its re-encoded length with Content-Length: bytes that
  // are not UTF-8 become U+FFFD and fail that check, so its message would blame only the length.
  const message =
    err.code === 'FST_ERR_CTP_INVALID_CONTENT_LENGTH'
      ? 'the request body is not valid UTF-8, or its size does not match Content-Length'
      : err.message;
  return new HttpError(code, message, field);
}

/** The route error handler: validation → 400 with the field, known errors → their status, the rest → 500. */
export function handleRouteError(err: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  if (err.validation) {
    const field = validationField(err);
    const message = `${field}: ${err.validation[0]?.message ?? 'is invalid'}`;
    return reply.code(400).send(new HttpError('invalid_request', message, field).toBody());
  }
  const known = toHttpError(err);
  if (known) {
    const retryAfter = known.retryAfterSeconds ?? (known.status === 503 ? RETRY_AFTER_SECONDS : undefined);
    if (retryAfter !== undefined) reply.header('Retry-After', String(retryAfter));
    return reply.code(known.status).send(known.toBody());
  }
  if (typeof err.statusCode === 'number' && err.statusCode >= 400 && err.statusCode < 500) {
    const known4xx = fastifyClientError(err, request);
    return reply.code(known4xx.status).send(known4xx.toBody());
  }
  request.log.error({ err }, 'request failed');
  return reply.code(500).send(new HttpError('internal', 'internal error').toBody());
}

/** `frameworkErrors`: a URL that does not decode, a path parameter longer than the router accepts. */
export function handleFrameworkError(err: FastifyError, _request: FastifyRequest, reply: FastifyReply) {
  const body =
    err.code === 'FST_ERR_MAX_PARAM_LENGTH'
      ? new HttpError('uri_too_long', 'a path parameter is too long', 'url')
      : new HttpError('invalid_request', 'the URL is not valid (a path segment does not decode)', 'url');
  return reply.code(body.status).send(body.toBody());
}

const PARSER_ERRORS: Record<string, { code: ErrorCode; message: string }> = {
  ERR_HTTP_REQUEST_TIMEOUT: { code: 'request_timeout', message: 'the request was not received in time' },
  HPE_HEADER_OVERFLOW: { code: 'headers_too_large', message: 'the request headers are too large' },
};

/** `clientErrorHandler`: what Node's HTTP parser refuses before Fastify sees a request. Ends the socket. */
export function handleClientError(err: NodeJS.ErrnoException, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const known = PARSER_ERRORS[err.code ?? ''] ?? {
    code: 'invalid_request' as const,
    message: 'the request is not valid HTTP',
  };
  const status = ERROR_STATUS[known.code];
  const body = JSON.stringify(new HttpError(known.code, known.message).toBody());
  // As Node does: answer only when no response has started on this socket.
  const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (socket.writable && !inFlight?.headersSent) {
    socket.write(
      // The standard reason phrase (`Request Header Fields Too Large`), not the error code.
      `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? known.code}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}
