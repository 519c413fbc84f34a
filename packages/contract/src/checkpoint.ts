export const STAGE_IDS = ['anchor-plan', 'tool-loop', 'synthesize', 'post-turn'] as const;
export type StageId = (typeof STAGE_IDS)[number];

export const CHANNEL_KINDS = [
  'last_value',
  'binary_op_aggregate',
  'topic',
  'ephemeral_value',
  'named_barrier',
  'data_channel',
] as const;
export type ChannelKind = (typeof CHANNEL_KINDS)[number];

/** One channel's state in a checkpoint. `value`'s shape depends on `kind`; only its round-trip is contract. */
export interface ChannelSnapshot {
  kind: ChannelKind;
  /** Monotonically increasing per channel. */
  version: number;
  value: unknown;
}

/** The checkpoint envelope (harness_checkpoints): a session state plus per-channel snapshots. */
export interface Checkpoint {
  /** ULID. */
  id: string;
  sessionId: string;
  stageId: StageId;
  /** ISO 8601. */
  createdAt: string;
  schemaVersion: number;
  channels: Record<string, ChannelSnapshot>;
  parentCheckpointId?: string;
}
