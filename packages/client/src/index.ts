export type {
  AnswerResponse,
  ApprovalAnswer,
  ArtifactContent,
  CreateRunRequest,
  CreateSessionRequest,
  ErrorBody,
  ExecuteRequest,
  ForkedFrom,
  ForkReply,
  ForkRequest,
  FramePage,
  HealthResponse,
  ListSessionsQuery,
  ListSessionsResponse,
  NativeFrameView,
  QuestionAnswer,
  RawFrameView,
  RunRecord,
  SessionRecord,
  SyncChange,
  SyncConflictReport,
  SyncRequest,
  SyncResponse,
  ThreadActivity,
  UpdateSessionRequest,
} from './api-types.js';
export { type BackoffOptions, backoffDelay, sleep } from './backoff.js';
export { ApiError, apiErrorFrom } from './errors.js';
export { forkedFromOf, inForkHistory, readForkHistory } from './fork-history.js';
export { AgentlaneClient, type ClientOptions, type RequestOptions } from './http-client.js';
export { type SseReadHandlers, sseMessages } from './sse-reader.js';
export { isCanonicalType, parseStreamEvent } from './stream-event.js';
export {
  type ConnectionState,
  type SubscribeOptions,
  subscribeThread,
  type TransportOptions,
} from './subscribe-thread.js';
export { entityKeyOf, qualifiedKey, timelineKeyOf } from './timeline/entity-key.js';
export {
  emptyTimelineView,
  initialTimelineState,
  reduceTimeline,
  reduceTimelineBatch,
} from './timeline/reduce.js';
export {
  activeRun,
  type OpenRequest,
  openRequests,
  rootTimeline,
  timelineItems,
} from './timeline/selectors.js';
export {
  emptySharded,
  type Sharded,
  ShardedWriter,
  shardedEntries,
  shardedGet,
  shardedValues,
} from './timeline/sharded.js';
export {
  type ApprovalItem,
  type ArtifactItem,
  type ChildItem,
  type ContextItem,
  type EntityAside,
  type ErrorItem,
  type FileItem,
  type MessageItem,
  type PlanItem,
  type QuestionItem,
  type ReasoningItem,
  type RunView,
  type StoredRow,
  SURFACES,
  type Surface,
  type TerminalItem,
  type TimelineItem,
  type TimelineState,
  type TimelineView,
  type ToolItem,
  type TurnItem,
  type UsageTotals,
  type WarningItem,
} from './timeline/types.js';
