import type { ServerContext } from '@agentlane/server';
import { UI_MESSAGE_STREAM_HEADERS } from 'ai';
import type { FastifyReply } from 'fastify';
import { followRun, PAUSE_GRACE_MS, type RunFollower } from '../run-follower.js';
import { readRunRows } from '../run-rows.js';
import { SseOut, type StreamRegistry } from '../sse-out.js';
import { type UiChunk, UiMessageTranslator } from './ui-message-translator.js';

const frame = (chunks: UiChunk[]): string => chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`).join('');

/**
 * Streams one run as the AI SDK UI message stream: `start`, the run's chunks after `after`, then `finish`
 * and `[DONE]` when the run settles, or when it waits on an approval once the stream is live and nobody answered
 * it within PAUSE_GRACE_MS (useChat answers it and posts again). With `seed` the rows up to it are translated first without being sent, so the
 * stream continues the message the client holds instead of repeating it.
 */
export async function streamRunAsUiMessages(
  ctx: ServerContext,
  registry: StreamRegistry,
  reply: FastifyReply,
  input: { threadId: string; runId: string; after: number; seed?: number },
): Promise<void> {
  const { threadId, runId, after } = input;
  const translator = new UiMessageTranslator({ threadId, runId });
  if (input.seed !== undefined && input.seed > 0) {
    for (const row of await readRunRows(ctx.store, threadId, runId, input.seed)) translator.push(row);
    translator.forgetOpenParts();
  }
  const out = new SseOut(reply, UI_MESSAGE_STREAM_HEADERS, ctx, registry);
  out.write(frame(translator.start()));
  let follower: RunFollower | undefined;
  let live = false;
  let pauseCheck: NodeJS.Timeout | undefined;
  const end = (chunks: UiChunk[]): void => {
    if (out.closed) return;
    clearTimeout(pauseCheck);
    out.end(`${frame(chunks)}data: [DONE]\n\n`);
  };
  // An approval still unanswered PAUSE_GRACE_MS after the last row pauses the stream.
  const checkPause = (): void => {
    clearTimeout(pauseCheck);
    pauseCheck = setTimeout(() => {
      if (live && translator.pendingApprovals > 0 && !translator.finished) end(translator.pause());
    }, PAUSE_GRACE_MS);
  };
  out.onClose(() => {
    clearTimeout(pauseCheck);
    follower?.close();
  });
  try {
    follower = await followRun(ctx, threadId, runId, after, {
      onRow: (row) => {
        // Each row's chunks are followed, in the same write, by where the message is (its deliverySeq), so a
        // client cut anywhere has the seq of every row it holds: a later `?after=` neither repeats nor skips.
        const chunks = translator.push(row);
        if (chunks.length > 0) out.write(frame([...chunks, ...translator.progress()]));
        if (live) checkPause();
      },
      onCaughtUp: () => {
        live = true;
        checkPause();
      },
      onSettled: (status, error) =>
        end(translator.finish(status === 'failed' ? (error ?? 'the run failed') : undefined)),
    });
    if (out.closed) follower.close();
  } catch (err) {
    reply.log.error({ err }, 'ai-sdk chat stream failed');
    end([{ type: 'error', errorText: 'the stream failed; resume it' }]);
  }
}
