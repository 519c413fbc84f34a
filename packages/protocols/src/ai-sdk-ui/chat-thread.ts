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
    named: request.engine,
    defaultEngine,
    noun: 'chat',
    field: 'body',
  });
}

/**
 * An existing chat the principal may read. `field` is where the request carried the chat id, for the 404:
 * the messages route's path (`params.id`), or a continuation POST's body (`body.id`: that route has no path id).
 */
export async function loadChat(
  ctx: ServerContext,
  principal: Principal,
  chatId: string,
  field: 'params.id' | 'body.id',
): Promise<ThreadRecord> {
  assertChatIdParam(chatId, field);
  assertThreadAccess(principal, chatId);
  const thread = await ctx.store.getThread(chatId);
  if (!thread) throw new HttpError('not_found', `chat ${quote(chatId)} not found`, field);
  return thread;
}
