import type { ServerContext } from '@agentlane/server';
import type { FastifyPluginAsync } from 'fastify';
import { lazyModule } from '../lazy-module.js';
import type { StreamRegistry } from '../sse-out.js';
import type { AiSdkChatOptions } from './chat-post.js';
import type { ReconnectRoute } from './chat-reconnect.js';

const handlers = lazyModule(() => import('./chat-handlers.js'));

export type { AiSdkChatOptions } from './chat-post.js';

export const AI_SDK_CHAT_PATH = '/protocols/ai-sdk/chat';

/**
 * The AI SDK UI message stream over the canonical lane: `POST …/chat` (what `DefaultChatTransport` posts),
 * `GET …/chat/:id/stream` (its reconnect; 204 when no run is active) and `GET …/chat/:id/messages` (the
 * chat's messages to start useChat with).
 */
export const aiSdkChatRoutes =
  (options: AiSdkChatOptions, registry: StreamRegistry) =>
  (ctx: ServerContext): FastifyPluginAsync =>
  async (app) => {
    app.post(AI_SDK_CHAT_PATH, { schema: { hide: true } }, async (request, reply) =>
      (await handlers()).handleChatPost(request, reply, { ctx, registry, options }),
    );
    app.get<ReconnectRoute>(
      `${AI_SDK_CHAT_PATH}/:id/stream`,
      // GET only: a HEAD would hold an open stream with no body to read.
      { exposeHeadRoute: false, schema: { hide: true } },
      async (request, reply) => (await handlers()).handleChatReconnect(request, reply, ctx, registry),
    );
    app.get<{ Params: { id: string } }>(
      `${AI_SDK_CHAT_PATH}/:id/messages`,
      { schema: { hide: true } },
      async (request) => {
        const { chatMessages, loadChat } = await handlers();
        const thread = await loadChat(ctx, request.principal, request.params.id);
        return { messages: await chatMessages(ctx.store, thread.threadId) };
      },
    );
  };
