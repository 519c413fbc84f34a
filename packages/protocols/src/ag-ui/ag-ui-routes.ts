import type { ServerContext } from '@agentlane/server';
import type { FastifyPluginAsync } from 'fastify';
import { lazyModule } from '../lazy-module.js';
import type { StreamRegistry } from '../sse-out.js';
import type { AgUiOptions } from './ag-ui-post.js';

const post = lazyModule(() => import('./ag-ui-post.js'));

export type { AgUiOptions } from './ag-ui-post.js';

export const AG_UI_PATH = '/protocols/ag-ui';

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
    app.post(AG_UI_PATH, { schema: { hide: true } }, async (request, reply) =>
      (await post()).handleAgUiPost(request, reply, { ctx, registry, options }),
    );
  };
