import type { CanonicalEvent } from '@agentlane/contract';
import type { EventStore, RunStore } from '@agentlane/store';
import { isToolUIPart, readUIMessageStream, type UIMessage } from 'ai';
import { readRowsByRun } from '../run-rows.js';
import { type UiChunk, UiMessageTranslator } from './ui-message-translator.js';

/** Chunks → the message useChat would hold after reading them, by the AI SDK's own reader. */
export async function chunksToMessage(chunks: UiChunk[]): Promise<UIMessage | undefined> {
  const stream = new ReadableStream<UiChunk>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
  let last: UIMessage | undefined;
  for await (const message of readUIMessageStream({ stream, terminateOnError: true })) last = message;
  return last ? structuredClone(last) : undefined;
}

/**
 * A chat's messages as useChat holds them: per run the user's prompt and, once the run settled, the assistant
 * message its stream builds. A run still active has only its prompt here: `GET …/stream` replays its message
 * from the start, so a page that loads these and resumes ends with what an uninterrupted run shows.
 */
export async function chatMessages(store: RunStore & EventStore, threadId: string): Promise<UIMessage[]> {
  const rowsByRun = await readRowsByRun(store, threadId);
  const messages: UIMessage[] = [];
  for (const run of await store.listRuns(threadId)) {
    // The id useChat gave the user message, kept in the run's options by the chat route.
    const clientId = run.options[USER_MESSAGE_OPTION];
    const userId = typeof clientId === 'string' ? clientId : `user-${run.runId}`;
    // useChat's regenerate, and an edit of a user message (sendMessage with its messageId), drop the message
    // (or the answer) they replace and what followed, and post the rest ending with that user message id:
    // this run's prompt and answer take the place of that message and what followed. Ids are unique in a
    // chat, so an id seen before is always such a replacement.
    const replaced = messages.findLastIndex((m) => m.role === 'user' && m.id === userId);
    if (replaced >= 0) messages.length = replaced;
    messages.push({
      id: userId,
      role: 'user',
      parts: [{ type: 'text', text: run.prompt }],
    });
    if (run.status !== 'completed' && run.status !== 'failed') continue;
    const rows = rowsByRun.get(run.runId) ?? [];
    const translator = new UiMessageTranslator({ threadId, runId: run.runId });
    const chunks = translator.start();
    for (const row of rows) chunks.push(...translator.push(row));
    chunks.push(...translator.finish(run.status === 'failed' ? (run.error ?? 'the run failed') : undefined));
    const message = await chunksToMessage(chunks.filter((c) => c.type !== 'error'));
    if (message) messages.push(withApprovalAnswers(message, rows));
  }
  return messages;
}

/** The run option the chat route records the id of the user message that started the run in (engines read only model and mode). */
export const USER_MESSAGE_OPTION = 'aiSdkUserMessageId';

/** The run option the chat route marks a run started by useChat's `regenerate` (trigger `regenerate-message`) with. */
export const REGENERATE_OPTION = 'aiSdkRegenerate';

/**
 * The stream has no chunk for an approval's answer (useChat writes `approval.approved` itself when the user
 * answers): a rebuilt message takes it from the run's `approval.resolved` rows, so it equals the live one.
 */
function withApprovalAnswers(message: UIMessage, rows: readonly { event: CanonicalEvent }[]): UIMessage {
  const approved = new Map<string, boolean>();
  for (const { event } of rows) {
    if (event.kind !== 'approval.resolved') continue;
    const p = event.payload;
    approved.set(p.approvalId, p.outcome === 'selected' && p.decision?.startsWith('allow') === true);
  }
  for (const part of message.parts) {
    if (!isToolUIPart(part) || !part.approval) continue;
    const answer = approved.get(part.approval.id);
    if (answer !== undefined) Object.assign(part, { approval: { ...part.approval, approved: answer } });
  }
  return message;
}
