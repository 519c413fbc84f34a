import { channelValue } from '@agentlane/checkpoints/session-state';
import type {
  ChannelSnapshot,
  Checkpoint,
  ConversationMessage,
  JsonValue,
  PlanEntry,
} from '@agentlane/contract';
import { asJson, jsonSafe } from '../conversation.js';

/**
 * What the session's last checkpoint holds, kept so the next one changes only what changed: a channel's
 * version rises only when its value did (docs/checkpoints.md, "The built-in engine's channels"), so a
 * stage that left the conversation alone stores nothing for it, and a stage that appended stores only the
 * new messages (the saver's `append` delta of a `topic` channel).
 */
export interface SavedChannels {
  conversation: {
    version: number;
    /** The snapshot's kind: a `last_value` conversation (written before the topic form) is put once as a topic. */
    kind: string;
    /** The messages saved, by reference: the turn only appends or replaces messages, never edits one. */
    messages: readonly ConversationMessage[];
    /** Their JSON form, as stored (each message is checked or made JSON-safe once, when first saved). */
    items: readonly JsonValue[];
  };
  plan: { version: number; json: string };
}

/** The channels of the next checkpoint after `saved` (undefined: the session's first), and what they hold. */
export function nextChannels(
  saved: SavedChannels | undefined,
  conversation: readonly ConversationMessage[],
  plan: readonly PlanEntry[],
): { channels: Record<string, ChannelSnapshot>; saved: SavedChannels } {
  const before = saved?.conversation;
  const items: JsonValue[] = [];
  let same =
    before !== undefined && before.kind === 'topic' && before.messages.length === conversation.length;
  for (const [i, m] of conversation.entries()) {
    if (before && before.messages[i] === m) items.push(before.items[i] as JsonValue);
    else {
      same = false;
      items.push(asJson(m));
    }
  }
  const planValue = jsonSafe(plan);
  const planJson = JSON.stringify(planValue);
  const conversationVersion = same && before ? before.version : (before?.version ?? 0) + 1;
  const planVersion =
    saved && saved.plan.json === planJson ? saved.plan.version : (saved?.plan.version ?? 0) + 1;
  return {
    channels: {
      conversation: { kind: 'topic', version: conversationVersion, value: { accumulate: true, items } },
      plan: { kind: 'last_value', version: planVersion, value: { value: planValue } },
    },
    saved: {
      conversation: { version: conversationVersion, kind: 'topic', messages: [...conversation], items },
      plan: { version: planVersion, json: planJson },
    },
  };
}

/**
 * The session's memory from a checkpoint (the built-in engine's, the Python runtime's, or one written before
 * the conversation became a topic: both forms of the conversation read the same).
 */
export function memoryFrom(latest: Checkpoint): {
  conversation: ConversationMessage[];
  plan: PlanEntry[];
  saved: SavedChannels;
} {
  const conv = latest.channels.conversation;
  const plan = latest.channels.plan;
  const items = (channelValue(conv) ?? []) as JsonValue[];
  const planValue = (channelValue(plan) ?? []) as JsonValue;
  // Checkpoints are frozen when cached: the turn appends to its own copy.
  const conversation = structuredClone(items) as unknown as ConversationMessage[];
  return {
    conversation,
    plan: structuredClone(planValue) as unknown as PlanEntry[],
    saved: {
      conversation: {
        version: conv?.version ?? 0,
        // No channel yet: '' so that the next checkpoint puts one.
        kind: conv?.kind ?? '',
        messages: [...conversation],
        items: [...items],
      },
      plan: { version: plan?.version ?? 0, json: plan ? JSON.stringify(planValue) : '' },
    },
  };
}
