import { initialTimelineState, type MessageItem, reduceTimelineBatch, rootTimeline } from '@agentlane/client';
import { StreamFrames } from '@agentlane/client/testing';
import { type ArtifactRef, MAX_PREVIEW_CHARS } from '@agentlane/contract';
import { describe, expect, it } from 'vitest';
import { messageRef, messageText, offloadedTexts } from '../../src/message-text';

/**
 * An answer over the lane's 64 KiB threshold: its message.completed keeps a 2,048-character preview and an
 * artifact.created (named "message.completed text", naming the message) holds the full text.
 */

const answer = `\`\`\`ts\n${Array.from({ length: 4000 }, (_, i) => `const line${i} = ${i}; // é`).join('\n')}\n\`\`\`\n`;
const bytes = (text: string) => new TextEncoder().encode(text).length;
const ref: ArtifactRef = {
  id: 'art-1',
  bytes: bytes(answer),
  sha256: 'a'.repeat(64),
  contentType: 'text/plain',
};

/** The thread's rows as the lane stores them; `streamed` is how much of the answer the deltas carried. */
function thread(streamed: string) {
  const b = new StreamFrames();
  b.emit({ kind: 'turn.started', payload: { prompt: 'BIGCODE' } });
  b.streamText('m1', streamed, 4096);
  const preview = answer.slice(0, MAX_PREVIEW_CHARS);
  b.emit({
    kind: 'artifact.created',
    payload: { artifact: ref, name: 'message.completed text', preview, messageId: 'm1' },
  });
  b.emit({ kind: 'message.completed', payload: { messageId: 'm1', role: 'assistant', text: preview } });
  const items = rootTimeline(reduceTimelineBatch(initialTimelineState(), b.frames))?.items ?? [];
  const message = items.find((i): i is MessageItem => i.type === 'message')!;
  return {
    items,
    message,
    offloaded: offloadedTexts(items).get(messageRef(message.runId, message.messageId)),
  };
}

describe('a message whose completed text was moved to an artifact', () => {
  it('finds the artifact of the message (the reducer alone shows the 2 KiB preview)', () => {
    const { message, offloaded } = thread(answer);
    expect(message.text.length).toBe(MAX_PREVIEW_CHARS);
    expect(offloaded).toEqual(ref);
  });

  it('shows the streamed text when the deltas hold all of it: the fence closes, nothing is cut', () => {
    const { message, offloaded } = thread(answer);
    const shown = messageText(message, offloaded);
    expect(shown.text).toBe(answer);
    expect(shown.truncated).toBeUndefined();
    expect(shown.text.trimEnd().endsWith('```')).toBe(true);
  });

  it('marks the text as truncated, with the artifact, when the deltas do not hold all of it', () => {
    const { message, offloaded } = thread(answer.slice(0, 10_000));
    const shown = messageText(message, offloaded);
    expect(shown.text).toBe(answer.slice(0, 10_000));
    expect(shown.truncated).toEqual(ref);
  });

  it('leaves other messages alone', () => {
    const b = new StreamFrames();
    b.streamText('m2', 'short answer');
    b.emit({
      kind: 'message.completed',
      payload: { messageId: 'm2', role: 'assistant', text: 'short answer' },
    });
    const items = rootTimeline(reduceTimelineBatch(initialTimelineState(), b.frames))?.items ?? [];
    const message = items.find((i): i is MessageItem => i.type === 'message')!;
    expect([...offloadedTexts(items).keys()]).toEqual([]);
    expect(messageText(message, undefined)).toEqual({ text: 'short answer' });
  });
});
