import type { StreamEvent } from '@agentlane/contract';
import { assertThreadAccess } from '../auth.js';
import type { ServerContext } from '../context.js';
import { sseResponse } from '../openapi-responses.js';
import { CreateRunBody, ErrorSchema, IdempotencyHeaders, ThreadParams } from '../schemas.js';
import { openThreadStream } from '../sse/open-stream.js';
import type { RouteApp } from './route-app.js';
import { createRunFor } from './run-access.js';

function runOfEvent(event: StreamEvent): string | undefined {
  if ('event' in event) return event.event.runId;
  if (event.type === 'run.status' || event.type === 'run.canonicalized') return event.runId;
  return undefined;
}

/** POST /sessions/:id/execute: creates a run and streams it until its completion signal. */
export function executeRoute(app: RouteApp, ctx: ServerContext): void {
  const { store } = ctx;
  app.post(
    '/sessions/:id/execute',
    {
      schema: {
        summary:
          'Create a run and stream its StreamEvents (SSE) until it settles, ending with run.canonicalized',
        params: ThreadParams,
        headers: IdempotencyHeaders,
        body: CreateRunBody,
        response: {
          200: sseResponse("The run's StreamEvents until it settles, ending with run.canonicalized"),
          400: ErrorSchema,
          404: ErrorSchema,
          409: ErrorSchema,
        },
      },
    },
    async (request, reply) => {
      const threadId = request.params.id;
      assertThreadAccess(request.principal, threadId);
      // Everything after the head at creation time: the run's rows cannot precede it.
      const after = await store.headDeliverySeq(threadId);
      // The stream cap is checked before the run exists, so a refused stream leaves no run behind.
      ctx.streamSlots.acquire(request)();
      const { run, created } = await createRunFor(
        ctx,
        request.principal,
        threadId,
        request.body,
        request.headers['idempotency-key'],
      );
      const isOurs = (e: StreamEvent) => e.type === 'stream.opened' || runOfEvent(e) === run.runId;
      let done = false;
      const finish = (): void => {
        done = true;
        // Let the completion frame be written before ending; it is the last frame of the stream.
        setImmediate(() => conn.close('run_settled', 0));
      };
      const { conn, subscription } = await openThreadStream(ctx, reply, threadId, created ? after : 0, {
        filter: isOurs,
        onSent: (e) => {
          if (e.type === 'run.canonicalized' && !done) finish();
        },
      });
      if (!subscription || done || conn.closed) return;
      // Settled before the subscription opened: its completion signal was live-only, so repeat it once the
      // replay has delivered the run's rows.
      const completion = await store.getCompletion(run.runId);
      if (!completion) return;
      while (!done && !conn.closed && subscription.cursor < completion.lastDeliverySeq) {
        await new Promise((r) => setTimeout(r, 10));
      }
      if (done || conn.closed) return;
      const settled = await store.getRun(run.runId);
      conn.send({
        type: 'run.canonicalized',
        threadId,
        runId: run.runId,
        status: settled?.status ?? 'completed',
        lastDeliverySeq: completion.lastDeliverySeq,
        completedAt: completion.completedAt,
      });
      finish();
    },
  );
}
