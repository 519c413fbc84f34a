import { ErrorSchema, type ServerContext, sseResponse } from '@agentlane/server';
import type { FastifyPluginAsync } from 'fastify';
import { lazyModule } from '../lazy-module.js';
import { HISTORY_POST } from '../protocol-thread.js';
import type { StreamRegistry } from '../sse-out.js';
import type { AgUiOptions } from './ag-ui-post.js';

const post = lazyModule(() => import('./ag-ui-post.js'));

export type { AgUiOptions } from './ag-ui-post.js';

export const AG_UI_PATH = '/protocols/ag-ui';

// Documentation only: the body is checked with AG-UI's own RunAgentInput schema by the handler.
const AG_UI_POST = {
  tags: ['protocols: AG-UI'],
  summary:
    'AG-UI RunAgentInput: a last user message starts a run, resume answers interrupts, neither follows the active run; streams AG-UI events (SSE)',
  body: { type: 'object' },
  headers: { type: 'object', properties: { 'last-event-id': { type: 'string' } } },
  response: {
    200: sseResponse('AG-UI events, each `id:` a resume position for Last-Event-ID'),
    400: ErrorSchema,
    404: ErrorSchema,
    409: ErrorSchema,
  },
};

/**
 * AG-UI over the canonical lane: `POST /protocols/ag-ui` takes a RunAgentInput (checked with AG-UI's own
 * schema). A last user message starts a run (its text is the prompt; the AG-UI runId is the idempotency key),
 * `resume` answers the interrupts of a paused run and continues it, and neither follows the thread's active
 * run. The AG-UI threadId is the agentlane thread.
 */
export const agUiRoutes =
  (options: AgUiOptions, registry: StreamRegistry) =>
  (ctx: ServerContext): FastifyPluginAsync =>
  async (app) => {
    app.post(AG_UI_PATH, { ...HISTORY_POST, schema: AG_UI_POST }, async (request, reply) =>
      (await post()).handleAgUiPost(request, reply, { ctx, registry, options }),
    );
  };
