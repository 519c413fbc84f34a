import { assertThreadAccess, HttpError, type Principal, quote, type ServerContext } from '@agentlane/server';
import type { ThreadRecord } from '@agentlane/store';
import { protocolThread } from '../protocol-thread.js';
import { assertChatIdParam, type ChatRequest } from './chat-request.js';

/**
 * The chat a prompt posts to: the chat id's thread, or a new one on the engine the body names (`beforeCreate`
 * may refuse the request first, once the principal may start a chat).
 */
export function promptedChat(
  ctx: ServerContext,
  principal: Principal,
  request: Extract<ChatRequest, { kind: 'prompt' }>,
  defaultEngine: string | undefined,
  beforeCreate: () => void = () => {},
): Promise<ThreadRecord> {
  return protocolThread(ctx, principal, {
    threadId: request.chatId,
    engine: () => {
      beforeCreate();
      return request.engine;
    },
    defaultEngine,
    noun: 'chat',
    field: 'body',
  });
}

/** An existing chat the principal may read. */
export async function loadChat(
  ctx: ServerContext,
  principal: Principal,
  chatId: string,
): Promise<ThreadRecord> {
  assertChatIdParam(chatId);
  assertThreadAccess(principal, chatId);
  const thread = await ctx.store.getThread(chatId);
  if (!thread) throw new HttpError('not_found', `chat ${quote(chatId)} not found`, 'params.id');
  return thread;
}
