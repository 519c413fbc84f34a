export { BinaryOpAggregateChannel } from './channels/binary-op-aggregate.js';
export type { Channel } from './channels/channel.js';
export { ChannelSet, type ChannelWrite } from './channels/channel-set.js';
export { DataChannel } from './channels/data-channel.js';
export { EphemeralValueChannel } from './channels/ephemeral-value.js';
export { LastValueChannel } from './channels/last-value.js';
export { NamedBarrierChannel } from './channels/named-barrier.js';
export { getReducer, type Reducer, reducerNames, registerReducer } from './channels/reducers.js';
export { isChannelKind, restoreChannel } from './channels/registry.js';
export { TopicChannel } from './channels/topic.js';
export { applyDelta, type ChannelDelta, type CheckpointDelta, computeDelta } from './delta.js';
export {
  CHECKPOINT_ERROR_CODES,
  CheckpointError,
  type CheckpointErrorCode,
  isCheckpointError,
} from './errors.js';
export { newCheckpointId } from './ids.js';
export type {
  CheckpointSaver,
  CheckpointSummary,
  ListPage,
  ListQuery,
  PendingWrite,
  PruneOptions,
  PruneResult,
  PutOptions,
  PutResult,
  StorageKind,
  WriteInput,
} from './saver.js';
export { DeltaCheckpointSaver, type DeltaSaverOptions } from './savers/delta-saver.js';
export { createMemorySaver } from './savers/memory-saver.js';
export { checkpointMigrations } from './savers/migrations.js';
export { openCheckpointSaver } from './savers/open-saver.js';
export { createPgSaver, type PgSaverOptions } from './savers/pg-saver.js';
export type { CheckpointRow, CheckpointRowStore } from './savers/rows.js';
export { createSqliteSaver, type SqliteSaverOptions } from './savers/sqlite-saver.js';
export {
  CONVERSATION_CHANNEL,
  channelValue,
  fingerprintCheckpoint,
  PLAN_CHANNEL,
  sessionStateOf,
  VERSION_VECTOR_CHANNEL,
} from './session-state.js';
export { parseChannels, parseCheckpoint } from './validate.js';
