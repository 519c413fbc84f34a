import type { MessageItem, TimelineItem } from '@agentlane/client';
import type { ArtifactRef } from '@agentlane/contract';

/**
 * The name the lane gives the artifact it moves a too-large `message.completed` text to (the event keeps a
 * bounded preview in `text`, an `artifact.created` next to it names the message and holds the full text).
 */
const OFFLOADED_TEXT = 'message.completed text';

/** One key per message of a run: `messageId` as the message item has it. */
export const messageRef = (runId: string, messageId: string) => `${runId}\u0000${messageId}`;

/** The artifacts that hold the full text of a message whose completed text is only a preview. */
export function offloadedTexts(items: readonly TimelineItem[]): ReadonlyMap<string, ArtifactRef> {
  const found = new Map<string, ArtifactRef>();
  for (const item of items) {
    if (item.type !== 'artifact' || item.name !== OFFLOADED_TEXT) continue;
    // The item is the event's payload, which names the message (the client's item type leaves it out).
    const messageId = (item as { messageId?: unknown }).messageId;
    if (typeof messageId !== 'string') continue;
    // A message item's id is the engine's scoped by its turn (ids repeat across turns); both forms match.
    found.set(messageRef(item.runId, `${item.turnId}:${messageId}`), item.artifact);
    found.set(messageRef(item.runId, messageId), item.artifact);
  }
  return found;
}

export interface MessageText {
  text: string;
  /** Set when `text` is not the whole message: the artifact that holds it. */
  truncated?: ArtifactRef;
}

const utf8Bytes = (text: string) => new TextEncoder().encode(text).length;

/**
 * The text to show for a message. Normally the item's own; when the completed text was moved to an artifact
 * (only its preview is left), the streamed deltas if they hold all of it (the artifact's size says so), else
 * the longer of the two, marked as truncated with the artifact that has the rest.
 */
export function messageText(item: MessageItem, offloaded: ArtifactRef | undefined): MessageText {
  if (!offloaded || item.status !== 'completed') return { text: item.text };
  const streamed = item.parts.map((p) => p.text).join('');
  if (streamed.length > item.text.length && utf8Bytes(streamed) === offloaded.bytes)
    return { text: streamed };
  if (utf8Bytes(item.text) === offloaded.bytes) return { text: item.text };
  return { text: streamed.length > item.text.length ? streamed : item.text, truncated: offloaded };
}
