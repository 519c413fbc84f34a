import {
  checkExternalAudit,
  checkExternalEvent,
  type ExternalFrame,
  externalTurnsOf,
  type FrameIssue,
} from '@agentlane/engine-kit';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { assertThreadAccess } from '../auth.js';
import type { ServerContext } from '../context.js';
import { HttpError, notFound, quote } from '../errors.js';
import { ErrorSchema, ExternalEventsBody, ExternalEventsReply, RunParams } from '../schemas.js';

/**
 * The 400 for an item of the body: `$.payload.text` of a checked frame is the request field
 * `body.events[3].payload.text`, and the message names that field, not only the item (the issue's message,
 * e.g. `is required`, is about its path).
 */
function itemError(prefix: string, issue: FrameIssue): HttpError {
  const field = prefix + issue.path.replace(/^\$/, '');
  return new HttpError('invalid_request', `${field} ${issue.message}`, field);
}

/**
 * `POST /runs/:id/events`: the way a runtime outside this process (an `external` engine, e.g. the Python
 * runtime in python/agentlane) adds its turn to a thread. The run is created as any run (`POST
 * /threads/:id/runs` on a session of that engine); once this process has its turn open, each request appends
 * the runtime's event drafts and audit rows to the run's source lane, and `end` ends the turn. Everything is
 * checked against the contract before anything is appended: one bad item refuses the whole request (400,
 * `field` naming it), so a retry of the corrected request does not repeat half of it.
 */
export const externalEventRoutes =
  (ctx: ServerContext): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.post(
      '/runs/:id/events',
      {
        schema: {
          summary:
            "An external runtime's events and audit rows for its run (engine type external); `end` ends the turn",
          params: RunParams,
          body: ExternalEventsBody,
          response: {
            202: ExternalEventsReply,
            400: ErrorSchema,
            403: ErrorSchema,
            404: ErrorSchema,
            409: ErrorSchema,
            503: ErrorSchema,
          },
        },
      },
      async (request, reply) => {
        const runId = request.params.id;
        const run = await ctx.store.getRun(runId);
        if (!run) throw notFound('run', runId, 'params.id');
        assertThreadAccess(request.principal, run.threadId);
        const thread = await ctx.store.getThread(run.threadId);
        const turns = thread ? externalTurnsOf(ctx.engines.get(thread.engine)) : undefined;
        if (!thread || !turns)
          throw new HttpError(
            'conflict',
            `run ${quote(runId)} is a run of engine "${thread?.engine ?? '?'}", which takes no events from outside (only engines of type external do)`,
            'params.id',
          );
        if (run.status === 'completed' || run.status === 'failed')
          throw new HttpError(
            'conflict',
            `run ${quote(runId)} has ended (${run.outcome ?? run.status})`,
            'params.id',
          );

        const { events = [], audit = [], end } = request.body;
        const frames: ExternalFrame[] = [];
        for (const [i, event] of events.entries()) {
          const issue = checkExternalEvent(event);
          if (issue) throw itemError(`body.events[${i}]`, issue);
          frames.push({ event } as ExternalFrame);
        }
        for (const [i, row] of audit.entries()) {
          const issue = checkExternalAudit(row, { threadId: run.threadId, runId });
          if (issue) throw itemError(`body.audit[${i}]`, issue);
          frames.push({ audit: row } as unknown as ExternalFrame);
        }
        const outcome = end
          ? { outcome: end.outcome, ...(end.error !== undefined ? { error: end.error } : {}) }
          : undefined;
        const result = await turns.accept(runId, frames, outcome);
        if (result === 'not_executing')
          throw new HttpError(
            'conflict',
            `run ${quote(runId)} is not executing in this process (${run.status}); its turn takes no events here`,
            'params.id',
          );
        if (result === 'not_stored')
          throw new HttpError(
            'unavailable',
            `run ${quote(runId)}: its frames could not be stored (the run fails); send nothing more for it`,
          );
        reply.code(202);
        return { accepted: true, frames: frames.length, ended: outcome !== undefined };
      },
    );
  };
