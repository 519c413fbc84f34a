import { FramePageSchema, type RawFrameView } from '@agentlane/contract';
import type { RawFrameRecord } from '@agentlane/store';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { assertThreadAccess } from '../auth.js';
import type { ServerContext } from '../context.js';
import { notFound } from '../errors.js';
import { ErrorSchema } from '../schemas.js';

const FramesParams = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 200 }),
  runId: Type.String({ minLength: 1, maxLength: 200 }),
});

const FramesQuery = Type.Object({
  after: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: Number.MAX_SAFE_INTEGER,
      default: 0,
      description: 'Frames with nativeSeq > after',
    }),
  ),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 500 })),
});

const utf8 = new TextDecoder('utf-8', { fatal: true });

function rawView(raw: RawFrameRecord): RawFrameView {
  const view: RawFrameView = { bytes: raw.bytes, sha256: raw.sha256, storage: raw.storage };
  if (raw.content) {
    try {
      view.text = utf8.decode(raw.content);
    } catch {
      view.base64 = Buffer.from(raw.content).toString('base64');
    }
  }
  if (raw.artifactId) view.artifactId = raw.artifactId;
  return view;
}

/**
 * GET /sessions/:id/runs/:runId/frames: a run's native frames (its source lane) with their raw sidecar, in
 * nativeSeq order, read-only, so a user can see exactly what the engine said. A canonical event names the
 * engine's own ids in its `identity`; the frames carry the same ids.
 */
export const frameRoutes =
  (ctx: ServerContext): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get(
      '/sessions/:id/runs/:runId/frames',
      {
        schema: {
          summary: "A run's native frames and their raw sidecar, in nativeSeq order (read-only)",
          params: FramesParams,
          querystring: FramesQuery,
          response: { 200: FramePageSchema, 400: ErrorSchema, 403: ErrorSchema, 404: ErrorSchema },
        },
      },
      async (request) => {
        const { id, runId } = request.params;
        assertThreadAccess(request.principal, id);
        const run = await ctx.store.getRun(runId);
        // A run of another thread is not found here: the thread's scope says nothing about other runs.
        if (!run || run.threadId !== id) throw notFound('run', runId, 'params.runId');
        const after = request.query.after ?? 0;
        const limit = request.query.limit ?? 500;
        const [frames, raws] = await Promise.all([
          ctx.store.readFrames(runId, after),
          ctx.store.readRawFrames(runId, after),
        ]);
        const page = frames.slice(0, limit);
        const rawBySeq = new Map(raws.map((r) => [r.nativeSeq, r]));
        return {
          frames: page.map((f) => {
            const raw = rawBySeq.get(f.nativeSeq);
            return {
              nativeSeq: f.nativeSeq,
              receivedAt: f.receivedAt,
              frame: f.frame,
              raw: raw ? rawView(raw) : null,
            };
          }),
          nextAfter: frames.length > limit ? page.at(-1)!.nativeSeq : null,
        };
      },
    );
  };
