import type { Store } from '@agentlane/store';
import { readUIMessageStream, type UIMessage } from 'ai';
import { readRowsByRun } from '../run-rows';
import { type UiChunk, UiMessageTranslator } from './ui-message-translator';

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
export async function chatMessages(store: Store, threadId: string): Promise<UIMessage[]> {
  const rowsByRun = await readRowsByRun(store, threadId);
  const messages: UIMessage[] = [];
  for (const run of await store.listRuns(threadId)) {
    messages.push({ id: `user-${run.runId}`, role: 'user', parts: [{ type: 'text', text: run.prompt }] });
    if (run.status !== 'completed' && run.status !== 'failed') continue;
    const translator = new UiMessageTranslator({ threadId, runId: run.runId });
    const chunks = translator.start();
    for (const row of rowsByRun.get(run.runId) ?? []) chunks.push(...translator.push(row));
    chunks.push(...translator.finish(run.status === 'failed' ? (run.error ?? 'the run failed') : undefined));
    const message = await chunksToMessage(chunks.filter((c) => c.type !== 'error'));
    if (message) messages.push(message);
  }
  return messages;
}
