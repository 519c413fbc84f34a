import type { ApprovalOptionKind, CanonicalEvent } from '@agentlane/contract';
import type { Principal } from '@agentlane/server';
import {
  assertAllThreads,
  assertThreadAccess,
  createThreadSession,
  HttpError,
  type ServerContext,
} from '@agentlane/server';
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import type { StreamRegistry } from '../sse-out.js';
import { chatMessages, USER_MESSAGE_OPTION } from './chat-history.js';
import { type ChatRequest, parseChatRequest } from './chat-request.js';
import { streamRunAsUiMessages } from './chat-stream.js';

export interface AiSdkChatOptions {
  /** The engine of a chat id seen for the first time when the body names none; else the only configured one. */
  defaultEngine?: string;
}

export const AI_SDK_CHAT_PATH = '/protocols/ai-sdk/chat';

const ACTIVE = new Set(['queued', 'running']);
const PREFERENCE: Record<'approve' | 'deny', ApprovalOptionKind[]> = {
  approve: ['allow_once', 'allow_always'],
  deny: ['reject_once', 'reject_always'],
};

/**
 * The AI SDK UI message stream over the canonical lane: `POST …/chat` (what `DefaultChatTransport` posts),
 * `GET …/chat/:id/stream` (its reconnect; 204 when no run is active) and `GET …/chat/:id/messages` (the
 * chat's messages to start useChat with).
 */
export const aiSdkChatRoutes =
  (options: AiSdkChatOptions, registry: StreamRegistry) =>
  (ctx: ServerContext): FastifyPluginAsync =>
  async (app) => {
    const { store, lane } = ctx;

    const threadFor = async (principal: Principal, request: Extract<ChatRequest, { kind: 'prompt' }>) => {
      const existing = await store.getThread(request.chatId);
      if (existing) {
        assertThreadAccess(principal, existing.threadId);
        return existing;
      }
      assertAllThreads(principal, 'starting a chat');
      const engines = ctx.engines.list();
      const engine =
        request.engine ?? options.defaultEngine ?? (engines.length === 1 ? engines[0]?.name : undefined);
      if (!engine) {
        const known = engines.map((e) => e.name).join(', ') || 'none';
        throw new HttpError(
          'invalid_request',
          `a new chat needs an engine (configured: ${known})`,
          'body.engine',
        );
      }
      return (await createThreadSession(ctx, { threadId: request.chatId, engine })).thread;
    };

    /** useChat's yes/no → the approval's own option of that kind (the first allow or reject option). */
    const answerApprovals = async (
      principal: Principal,
      runId: string,
      threadId: string,
      approvals: Extract<ChatRequest, { kind: 'continue' }>['approvals'],
    ) => {
      if (approvals.length === 0) return;
      const asked = new Map<string, CanonicalEvent & { kind: 'approval.requested' }>();
      for (const row of await store.latestEvents({ threadId, runId })) {
        if (row.event.kind === 'approval.requested') asked.set(row.event.payload.approvalId, row.event);
      }
      for (const answer of approvals) {
        const request = asked.get(answer.approvalId);
        if (!request) continue;
        const kinds = PREFERENCE[answer.approved ? 'approve' : 'deny'];
        const option = kinds
          .map((kind) => request.payload.options.find((o) => o.kind === kind))
          .find((o) => o !== undefined);
        await lane.answerApproval({
          runId,
          approvalId: answer.approvalId,
          answer: option
            ? { outcome: 'selected', optionId: option.optionId, answeredBy: principal.name }
            : { outcome: 'cancelled', answeredBy: principal.name },
        });
      }
    };

    const loadChat = async (principal: Principal, chatId: string) => {
      assertThreadAccess(principal, chatId);
      const thread = await store.getThread(chatId);
      if (!thread) throw new HttpError('not_found', `chat ${chatId} not found`, 'params.id');
      return thread;
    };

    app.post(AI_SDK_CHAT_PATH, { schema: { hide: true } }, async (request, reply: FastifyReply) => {
      const chat = await parseChatRequest(request.body);
      if (chat.kind === 'prompt') {
        const thread = await threadFor(request.principal, chat);
        const head = await store.headDeliverySeq(thread.threadId);
        const { run, created } = await lane.createRun({
          threadId: thread.threadId,
          prompt: chat.prompt,
          // A retried POST of the same user message is the same run (streamed again from its start).
          idempotencyKey: chat.retry ? `ai-sdk-ui:${chat.userMessageId}` : null,
          options: { [USER_MESSAGE_OPTION]: chat.userMessageId },
        });
        await streamRunAsUiMessages(ctx, registry, reply, {
          threadId: thread.threadId,
          runId: run.runId,
          after: created ? head : 0,
        });
        return reply;
      }
      const thread = await loadChat(request.principal, chat.chatId);
      const run = await store.getRun(chat.runId);
      if (!run || run.threadId !== thread.threadId) {
        throw new HttpError(
          'invalid_request',
          `run ${chat.runId} is not a run of chat ${chat.chatId}`,
          'body.messages.metadata.agentlane.runId',
        );
      }
      if (ACTIVE.has(run.status))
        await answerApprovals(request.principal, run.runId, thread.threadId, chat.approvals);
      await streamRunAsUiMessages(ctx, registry, reply, {
        threadId: thread.threadId,
        runId: run.runId,
        after: chat.after,
        seed: chat.after,
      });
      return reply;
    });

    app.get<{ Params: { id: string }; Querystring: { after?: string } }>(
      `${AI_SDK_CHAT_PATH}/:id/stream`,
      { schema: { hide: true } },
      async (request, reply) => {
        assertThreadAccess(request.principal, request.params.id);
        const rawAfter = request.query.after;
        const after = rawAfter === undefined ? 0 : Number(rawAfter);
        if (!Number.isSafeInteger(after) || after < 0)
          throw new HttpError('invalid_request', 'after must be a non-negative integer', 'query.after');
        // useChat's `resume: true` asks on mount, also for a chat id nothing was sent to yet: no run is active.
        const thread = await store.getThread(request.params.id);
        if (!thread) return reply.code(204).send();
        const active = (await store.listRuns(thread.threadId)).filter((r) => ACTIVE.has(r.status)).pop();
        if (!active) return reply.code(204).send();
        await streamRunAsUiMessages(ctx, registry, reply, {
          threadId: thread.threadId,
          runId: active.runId,
          after,
          seed: after,
        });
        return reply;
      },
    );

    app.get<{ Params: { id: string } }>(
      `${AI_SDK_CHAT_PATH}/:id/messages`,
      { schema: { hide: true } },
      async (request) => {
        const thread = await loadChat(request.principal, request.params.id);
        return { messages: await chatMessages(store, thread.threadId) };
      },
    );
  };
