import { createHash } from 'node:crypto';
import { HttpError, quote, type ServerContext } from '@agentlane/server';
import type { RunRecord } from '@agentlane/store';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { isActive } from '../active-run.js';
import { holdStreamSlot, type StreamRegistry } from '../sse-out.js';
import { answerApprovals } from './chat-approvals.js';
import { REGENERATE_OPTION, USER_MESSAGE_OPTION } from './chat-history.js';
import { type ChatRequest, parseChatRequest } from './chat-request.js';
import { streamRunAsUiMessages } from './chat-stream.js';
import { loadChat, promptedChat } from './chat-thread.js';
import { UiMessageTranslator } from './ui-message-translator.js';

export interface AiSdkChatOptions {
  /** The engine of a chat id seen for the first time when the body names none; else the only configured one. */
  defaultEngine?: string;
}

export interface ChatDeps {
  ctx: ServerContext;
  registry: StreamRegistry;
  options: AiSdkChatOptions;
}

/** `POST …/chat` (what `DefaultChatTransport` posts): a prompt starts a run, a continuation answers approvals. */
export async function handleChatPost(
  request: FastifyRequest,
  reply: FastifyReply,
  deps: ChatDeps,
): Promise<FastifyReply> {
  const chat = await parseChatRequest(request.body);
  holdStreamSlot(deps.ctx, reply);
  if (chat.kind === 'prompt') await postPrompt(request, reply, deps, chat);
  else await postContinue(request, reply, deps, chat);
  return reply;
}

/** A new user message: a run of its text, streamed from its start. */
async function postPrompt(
  request: FastifyRequest,
  reply: FastifyReply,
  { ctx, registry, options }: ChatDeps,
  chat: Extract<ChatRequest, { kind: 'prompt' }>,
): Promise<void> {
  // A regenerate naming no message of the chat is refused before anything is created for it.
  const thread = await promptedChat(ctx, request.principal, chat, options.defaultEngine, () =>
    assertRegenerated(chat, []),
  );
  if (chat.regenerates !== undefined) assertRegenerated(chat, await ctx.store.listRuns(thread.threadId));
  const head = await ctx.store.headDeliverySeq(thread.threadId);
  const { run, created } = await ctx.lane.createRun({
    threadId: thread.threadId,
    prompt: chat.prompt,
    // A retried POST of the same user message is the same run (streamed again from its start). Message ids
    // are the client's and unique only within its chat, hence the thread in the key; and its text, for an
    // edited message (useChat's sendMessage with its messageId) is a new prompt under the same id.
    idempotencyKey: chat.retry
      ? `ai-sdk-ui:${thread.threadId}:${chat.userMessageId}:${promptDigest(chat.prompt)}`
      : null,
    // A regenerate is recorded so the chat's messages show its answer in place of the one it replaced.
    options: {
      [USER_MESSAGE_OPTION]: chat.userMessageId,
      ...(chat.retry ? {} : { [REGENERATE_OPTION]: true }),
    },
  });
  await streamRunAsUiMessages(ctx, registry, reply, {
    threadId: thread.threadId,
    runId: run.runId,
    after: created ? head : 0,
  });
}

/** The assistant message's approvals answered (while its run is active), its stream continued after it. */
async function postContinue(
  request: FastifyRequest,
  reply: FastifyReply,
  { ctx, registry }: ChatDeps,
  chat: Extract<ChatRequest, { kind: 'continue' }>,
): Promise<void> {
  const thread = await loadChat(ctx, request.principal, chat.chatId, 'body.id');
  const run = await ctx.store.getRun(chat.runId);
  if (!run || run.threadId !== thread.threadId) {
    throw new HttpError(
      'invalid_request',
      `run ${quote(chat.runId)} is not a run of chat ${quote(chat.chatId)}`,
      chat.runIdField,
    );
  }
  // Also for a run that ended: an answer contradicting how an approval was resolved is refused (409).
  await answerApprovals(ctx, request.principal, { ...run, active: isActive(run) }, chat.approvals);
  await streamRunAsUiMessages(ctx, registry, reply, {
    threadId: thread.threadId,
    runId: run.runId,
    after: chat.after,
    seed: chat.after,
  });
}

/**
 * useChat's `regenerate({ messageId })` names the message it regenerates: one the request carries (a user
 * message), or one of the chat's (its answer, `msg-<runId>`, which useChat drops from the request).
 */
function assertRegenerated(chat: Extract<ChatRequest, { kind: 'prompt' }>, runs: RunRecord[]): void {
  const id = chat.regenerates;
  if (id === undefined || chat.messageIds.includes(id)) return;
  const known = runs.some(
    (run) =>
      id === UiMessageTranslator.messageId(run.runId) ||
      id === run.options[USER_MESSAGE_OPTION] ||
      id === `user-${run.runId}`,
  );
  if (!known)
    throw new HttpError(
      'invalid_request',
      `messageId ${quote(id)} names no message of chat ${quote(chat.chatId)} to regenerate`,
      'body.messageId',
    );
}

/** A short digest of a prompt's text, for the idempotency key of a chat's user message. */
function promptDigest(prompt: string): string {
  return createHash('sha256').update(prompt).digest('hex').slice(0, 16);
}
