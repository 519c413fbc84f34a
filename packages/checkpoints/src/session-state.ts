import {
  type ChannelSnapshot,
  type Checkpoint,
  type ConversationMessage,
  fingerprintSessionState,
  type JsonValue,
  type PlanEntry,
  type SessionState,
  type VersionVector,
} from '@agentlane/contract';

/** Reserved channel names the SessionState's typed fields are read from (see docs/checkpoints.md). */
export const CONVERSATION_CHANNEL = 'conversation';
export const PLAN_CHANNEL = 'plan';
export const VERSION_VECTOR_CHANNEL = 'versionVector';

/** The value a reader sees in a channel snapshot, or undefined when the channel is empty. */
export function channelValue(snapshot: ChannelSnapshot | undefined): JsonValue | undefined {
  if (!snapshot) return undefined;
  const value = snapshot.value as Record<string, JsonValue>;
  switch (snapshot.kind) {
    case 'last_value':
    case 'ephemeral_value':
      return Object.hasOwn(value, 'value') ? value.value : undefined;
    case 'binary_op_aggregate':
      return value.value;
    case 'topic':
      // An empty topic has no value (get() raises empty_channel), as for every other runtime.
      return (value.items as JsonValue[]).length > 0 ? value.items : undefined;
    case 'named_barrier': {
      // Ready: the names sorted (UTF-16 code units, the default sort), as get() gives them, even for a map
      // that never went through a saver's checks.
      const names = value.names as string[];
      return (value.seen as string[]).length === names.length ? [...names].sort() : undefined;
    }
    case 'data_channel':
      return Object.fromEntries(value.entries as [string, JsonValue][]);
    default:
      return undefined;
  }
}

/**
 * The SessionState a checkpoint hydrates to: the typed fields come from the reserved channels
 * (`conversation`, `plan`, `versionVector`; empty when absent), `channels` is every channel as stored.
 */
export function sessionStateOf(checkpoint: Pick<Checkpoint, 'channels'>): SessionState {
  const channels = checkpoint.channels;
  return {
    conversation: (channelValue(channels[CONVERSATION_CHANNEL]) ?? []) as unknown as ConversationMessage[],
    plan: (channelValue(channels[PLAN_CHANNEL]) ?? []) as unknown as PlanEntry[],
    versionVector: (channelValue(channels[VERSION_VECTOR_CHANNEL]) ?? {}) as VersionVector,
    channels,
  };
}

/** sha256 of the canonical JSON (RFC 8785) of the checkpoint's SessionState. */
export function fingerprintCheckpoint(checkpoint: Pick<Checkpoint, 'channels'>): string {
  return fingerprintSessionState(sessionStateOf(checkpoint));
}
