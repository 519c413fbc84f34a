export { BinaryOpAggregateChannel } from './channels/binary-op-aggregate';
export type { Channel } from './channels/channel';
export { ChannelSet, type ChannelWrite } from './channels/channel-set';
export { DataChannel } from './channels/data-channel';
export { EphemeralValueChannel } from './channels/ephemeral-value';
export { LastValueChannel } from './channels/last-value';
export { NamedBarrierChannel } from './channels/named-barrier';
export { getReducer, type Reducer, reducerNames, registerReducer } from './channels/reducers';
export { isChannelKind, restoreChannel } from './channels/registry';
export { TopicChannel } from './channels/topic';
export {
  CheckpointsCommandError,
  type CheckpointsCommandOptions,
  runCheckpointsCommand,
} from './checkpoints-command';
export { applyDelta, type ChannelDelta, type CheckpointDelta, computeDelta } from './delta';
export * from './errors';
export {
  type CheckpointHandlers,
  checkpointHandlers,
  type HttpAnswer,
  type ListCheckpointsQuery,
  type ListCheckpointsReply,
} from './http-handlers';
export { newCheckpointId } from './ids';
export type * from './saver';
export { DeltaCheckpointSaver, type DeltaSaverOptions } from './savers/delta-saver';
export { createMemorySaver } from './savers/memory-saver';
export { checkpointMigrations } from './savers/migrations';
export { openCheckpointSaver } from './savers/open-saver';
export { createPgSaver, type PgSaverOptions } from './savers/pg-saver';
export type { CheckpointRow, CheckpointRowStore } from './savers/rows';
export { createSqliteSaver, type SqliteSaverOptions } from './savers/sqlite-saver';
export * from './session-state';
export { parseChannels, parseCheckpoint } from './validate';
