import { guardInput, HttpError } from '@agentlane/server';
import { isToolUIPart, safeValidateUIMessages, type UIMessage } from 'ai';
import { assertPromptLength } from '../protocol-thread.js';

/** What a useChat POST asks for, read from DefaultChatTransport's body. */
export type ChatRequest =
  | {
      kind: 'prompt';
      chatId: string;
      engine?: string;
      prompt: string;
      userMessageId: string;
      retry: boolean;
      /** `regenerate-message`: the message useChat regenerates, when it names one. */
      regenerates?: string;
      /** The ids of the messages the request carries. */
      messageIds: string[];
    }
  | {
      kind: 'continue';
      chatId: string;
      runId: string;
      /** Where the run id is in the body, for errors: `body.messages[<last>].metadata.agentlane.runId`. */
      runIdField: string;
      /** The last thread row the client's assistant message holds. */
      after: number;
      /** `field`: where the answer is in the body, for a refusal (`body.messages[i].parts[j].approval`). */
      approvals: { approvalId: string; approved: boolean; reason?: string; field: string }[];
    };

const CHAT_ID = /^[A-Za-z0-9_.:-]{1,128}$/;

/** The triggers of a useChat POST: a new (or edited) user message, or a regenerated answer. */
const TRIGGERS = ['submit-message', 'regenerate-message'];

/** A chat id in a path (or where `field` says): what a POST may name, else 400 (never a lookup of `../..`). */
export function assertChatIdParam(id: string, field = 'params.id'): void {
  if (!CHAT_ID.test(id))
    throw new HttpError('invalid_request', 'id must be a chat id of 1-128 letters, digits or _.:-', field);
}

function bad(message: string, field: string): HttpError {
  return new HttpError('invalid_request', message, field);
}

/**
 * `{ id, messages, trigger, messageId?, engine? }`: the chat id is the thread id. A last user message starts a
 * run with its text; a last assistant message (useChat after `addToolApprovalResponse`) carries the answers
 * and, in its metadata, the run and the cursor the stream continues after. Messages are checked with the AI
 * SDK's own UI message validator.
 */
export async function parseChatRequest(body: unknown): Promise<ChatRequest> {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw bad('expected an object', 'body');
  const b = body as Record<string, unknown>;
  if (typeof b.id !== 'string' || !CHAT_ID.test(b.id))
    throw bad('id must be a chat id of 1-128 letters, digits or _.:-', 'body.id');
  if (b.engine !== undefined && (typeof b.engine !== 'string' || b.engine === ''))
    throw bad('engine must be a non-empty string', 'body.engine');
  // What DefaultChatTransport posts: `resume-stream` is its GET …/stream, never a POST.
  if (b.trigger !== undefined && !TRIGGERS.includes(b.trigger as string))
    throw bad(`trigger must be one of ${TRIGGERS.join(', ')}`, 'body.trigger');
  if (b.messageId !== undefined && b.messageId !== null && typeof b.messageId !== 'string')
    throw bad('messageId must be a string', 'body.messageId');
  const checked = await safeValidateUIMessages({ messages: b.messages });
  if (!checked.success) throw bad(`messages: ${checked.error.message.split('\n')[0]}`, 'body.messages');
  const messages: UIMessage[] = checked.data;
  const last = messages[messages.length - 1] as UIMessage;
  if (last.role === 'user') {
    const prompt = last.parts
      .flatMap((p) => (p.type === 'text' ? [p.text] : []))
      .join('\n')
      .trim();
    if (prompt === '')
      throw bad('the last user message has no text', `body.messages[${messages.length - 1}]`);
    assertPromptLength(prompt, `body.messages[${messages.length - 1}]`);
    // The route takes the body's text unchecked (GUARDS_OWN_TEXT): only what it keeps is checked.
    guardInput(`body.messages[${messages.length - 1}]`, prompt);
    return {
      kind: 'prompt',
      chatId: b.id,
      ...(typeof b.engine === 'string' ? { engine: b.engine } : {}),
      prompt,
      userMessageId: last.id,
      retry: b.trigger !== 'regenerate-message',
      ...(b.trigger === 'regenerate-message' && typeof b.messageId === 'string'
        ? { regenerates: b.messageId }
        : {}),
      messageIds: messages.map((m) => m.id),
    };
  }
  const field = `body.messages[${messages.length - 1}].metadata.agentlane`;
  const meta = (last.metadata as { agentlane?: { runId?: unknown; deliverySeq?: unknown } } | undefined)
    ?.agentlane;
  if (typeof meta?.runId !== 'string' || !CHAT_ID.test(meta.runId))
    throw bad('the last message is not a user message nor an assistant message of this server', field);
  const after = meta.deliverySeq ?? 0;
  if (typeof after !== 'number' || !Number.isSafeInteger(after) || after < 0)
    throw bad('deliverySeq must be a non-negative integer', `${field}.deliverySeq`);
  const approvals = last.parts.flatMap((p, j) =>
    isToolUIPart(p) && p.state === 'approval-responded'
      ? [
          {
            approvalId: p.approval.id,
            approved: p.approval.approved,
            field: `body.messages[${messages.length - 1}].parts[${j}].approval`,
            ...(p.approval.reason !== undefined ? { reason: p.approval.reason } : {}),
          },
        ]
      : [],
  );
  for (const answer of approvals) guardInput(answer.field, answer);
  return {
    kind: 'continue',
    chatId: b.id,
    runId: meta.runId,
    runIdField: `${field}.runId`,
    after,
    approvals,
  };
}
