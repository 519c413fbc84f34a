import { Readable } from 'node:stream';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { ServerContext } from '../context.js';
import { HttpError, notFound, quote } from '../errors.js';
import { ArtifactParams, ErrorSchema } from '../schemas.js';
import { artifactHeaders } from '../security-headers.js';

/** Parses a single `bytes=` range against a length; null for "whole content", HttpError when unsatisfiable. */
export function parseRange(
  header: string | undefined,
  length: number,
): { start: number; end: number } | null {
  if (header === undefined) return null;
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  // Multi-range and other units are allowed to be ignored (RFC 9110): serve the whole content.
  if (!match || (match[1] === '' && match[2] === '')) return null;
  let start: number;
  let end: number;
  if (match[1] === '') {
    const suffix = Number(match[2]);
    start = Math.max(0, length - suffix);
    end = length - 1;
  } else {
    start = Number(match[1]);
    // A last position before the first makes the range invalid, not unsatisfiable: it is ignored (RFC 9110).
    if (match[2] !== '' && Number(match[2]) < start) return null;
    end = match[2] === '' ? length - 1 : Math.min(Number(match[2]), length - 1);
  }
  if (start >= length || start > end) {
    throw new HttpError(
      'range_not_satisfiable',
      `range ${quote(header)} is outside 0-${Math.max(0, length - 1)}`,
      'headers.range',
    );
  }
  return { start, end };
}

export const artifactRoutes =
  (ctx: ServerContext): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get(
      '/artifacts/:id',
      {
        schema: {
          summary: 'The full content of an artifact: its content type, ETag = sha256, Range requests',
          params: ArtifactParams,
          response: {
            200: Type.Unknown({ description: 'the content' }),
            206: Type.Unknown({ description: 'the requested range' }),
            304: Type.Null(),
            404: ErrorSchema,
            416: ErrorSchema,
          },
        },
      },
      async (request, reply) => {
        const { id } = request.params;
        const scope = request.principal.threads;
        // Content-addressed ids are not secret-proof (a hash of guessable content): a scoped token reads only
        // what its threads' events or raw frames name, and learns nothing (404) about the rest.
        if (scope !== '*' && !(await ctx.store.artifactInThreads(id, [...scope])))
          throw notFound('artifact', id, 'params.id');
        const found = await ctx.store.openArtifact(id);
        if (!found) throw notFound('artifact', id, 'params.id');
        const { ref } = found;
        const etag = `"${ref.sha256}"`;
        reply.header('ETag', etag);
        reply.header('Accept-Ranges', 'bytes');
        // Content-addressed: the bytes behind an id never change.
        reply.header('Cache-Control', 'private, max-age=31536000, immutable');
        reply.type(ref.contentType);
        artifactHeaders(reply);
        const inm = request.headers['if-none-match'];
        // If-None-Match compares weakly: W/"x" matches "x" (RFC 9110).
        const weak = (t: string) => t.trim().replace(/^W\//, '');
        if (inm?.split(',').some((t) => weak(t) === etag || weak(t) === '*')) {
          return reply.code(304).send(null);
        }
        const ifRange = request.headers['if-range'];
        let range: { start: number; end: number } | null;
        try {
          range =
            ifRange === undefined || ifRange === etag ? parseRange(request.headers.range, ref.bytes) : null;
        } catch (error) {
          // A 416 says how long the representation is (RFC 9110 §15.5.17), so the client can ask again.
          reply.header('Content-Range', `bytes */${ref.bytes}`);
          throw error;
        }
        const start = range?.start ?? 0;
        const end = range?.end ?? ref.bytes - 1;
        if (range) {
          reply.code(206);
          reply.header('Content-Range', `bytes ${start}-${end}/${ref.bytes}`);
        }
        reply.header('Content-Length', String(end - start + 1));
        // Streamed a chunk at a time: a large artifact (an overflow file) is never held in memory whole.
        return reply.send(Readable.from(found.read(start, end), { objectMode: false }));
      },
    );
  };
