import { CursorErrorBodySchema } from '@agentlane/contract';
import { ErrorSchema, type ServerContext, sseResponse } from '@agentlane/server';
import type { FastifyPluginAsync } from 'fastify';
import { lazyModule } from '../lazy-module.js';
import { HISTORY_POST } from '../protocol-thread.js';
import type { StreamRegistry } from '../sse-out.js';
import type { AiSdkChatOptions } from './chat-post.js';
import type { ReconnectRoute } from './chat-reconnect.js';

const handlers = lazyModule(() => import('./chat-handlers.js'));

export type { AiSdkChatOptions } from './chat-post.js';

export const AI_SDK_CHAT_PATH = '/protocols/ai-sdk/chat';

// Documentation only (no body or params schema: the handlers check the AI SDK's own shapes and answer in
// the server's error contract); the common errors (401, 403, 413, 415, 429, 503) are added by the server.
const tags = ['protocols: AI SDK UI'];
const errors = { 400: ErrorSchema, 404: ErrorSchema, 409: ErrorSchema };
const CHAT_POST = {
  tags,
  summary:
    "useChat's DefaultChatTransport POST: { id, messages, trigger } — the last user message starts a run; streams the AI SDK UI message stream (SSE)",
  body: { type: 'object' },
  response: {
    200: sseResponse('The AI SDK UI message stream (x-vercel-ai-ui-message-stream: v1)'),
    ...errors,
  },
};
const CHAT_RECONNECT = {
  tags,
  summary:
    "useChat's resume: the active run's UI message stream from its start, or with ?after=deliverySeq the rest of that row's run (also once it settled)",
  response: {
    200: sseResponse('The AI SDK UI message stream'),
    // No body: `type: 'null'` documents the status without content.
    204: { type: 'null', description: 'No run to resume: none is active and no ?after names a row of one' },
    ...errors,
    // A cursor beyond the head: the body has the head next to the error (a closed ErrorSchema would drop it).
    409: CursorErrorBodySchema,
  },
};
// The AI SDK's UIMessage, loosely: every object keeps the properties it has (this schema also serializes the
// reply, and a property it does not list must not be dropped).
const UI_MESSAGE = {
  type: 'object',
  required: ['id', 'role', 'parts'],
  properties: {
    id: { type: 'string' },
    role: { type: 'string', enum: ['system', 'user', 'assistant'] },
    metadata: {},
    parts: {
      type: 'array',
      items: {
        type: 'object',
        required: ['type'],
        properties: { type: { type: 'string' } },
        additionalProperties: true,
      },
    },
  },
  additionalProperties: true,
};
const CHAT_MESSAGES = {
  tags,
  summary: "The chat's messages as UIMessage[] ({ messages }), to start useChat with",
  response: {
    200: {
      description: 'The messages useChat holds for the chat (an active run has only its prompt)',
      type: 'object',
      required: ['messages'],
      properties: { messages: { type: 'array', items: UI_MESSAGE } },
    },
    ...errors,
  },
};

/**
 * The AI SDK UI message stream over the canonical lane: `POST …/chat` (what `DefaultChatTransport` posts),
 * `GET …/chat/:id/stream` (its reconnect; 204 when there is nothing to follow) and `GET …/chat/:id/messages` (the
 * chat's messages to start useChat with).
 */
export const aiSdkChatRoutes =
  (options: AiSdkChatOptions, registry: StreamRegistry) =>
  (ctx: ServerContext): FastifyPluginAsync =>
  async (app) => {
    app.post(AI_SDK_CHAT_PATH, { ...HISTORY_POST, schema: CHAT_POST }, async (request, reply) =>
      (await handlers()).handleChatPost(request, reply, { ctx, registry, options }),
    );
    app.get<ReconnectRoute>(
      `${AI_SDK_CHAT_PATH}/:id/stream`,
      // GET only: a HEAD would hold an open stream with no body to read.
      { exposeHeadRoute: false, schema: CHAT_RECONNECT },
      async (request, reply) => (await handlers()).handleChatReconnect(request, reply, ctx, registry),
    );
    app.get<{ Params: { id: string } }>(
      `${AI_SDK_CHAT_PATH}/:id/messages`,
      { schema: CHAT_MESSAGES },
      async (request) => {
        const { chatMessages, loadChat } = await handlers();
        const thread = await loadChat(ctx, request.principal, request.params.id, 'params.id');
        return { messages: await chatMessages(ctx.store, thread.threadId) };
      },
    );
  };
