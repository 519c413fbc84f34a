export {
  AuditableCallSchema,
  AuditPayloadSchema,
  ModelCallPayloadSchema,
  ToolCallPayloadSchema,
} from './audit.js';
export { NegotiatedCapabilitiesSchema } from './capabilities.js';
export { ChannelSnapshotSchema, ChannelsSchema, CheckpointSchema } from './checkpoint.js';
export {
  closedObject,
  JsonObjectMapSchema,
  JsonObjectSchema,
  JsonValueSchema,
  ULID_PATTERN,
} from './common.js';
export {
  CanonicalStreamEventSchema,
  DeliveryRowSchema,
  RunCanonicalizedEventSchema,
  RunStatusEventSchema,
  RunStatusSchema,
  StreamClosingEventSchema,
  StreamEventSchema,
  StreamOpenedEventSchema,
  SyncConflictEventSchema,
} from './delivery.js';
export {
  ArtifactRefSchema,
  ArtifactWithPreviewSchema,
  CanonicalIdentitySchema,
  envelopeProperties,
  ProviderMetadataSchema,
} from './envelope.js';
export {
  CanonicalEventDraftSchema,
  CanonicalEventKindSchema,
  CanonicalEventSchema,
  DRAFT_SCHEMAS,
  EVENT_SCHEMAS,
  kindStem,
  PAYLOAD_SCHEMAS,
} from './events.js';
export {
  ApprovalOptionSchema,
  ApprovalRequestedPayloadSchema,
  ApprovalResolvedPayloadSchema,
  ApprovalSubjectSchema,
  CommandsUpdatedPayloadSchema,
  ContextMarkerPayloadSchema,
  HarnessErrorPayloadSchema,
  HarnessWarningPayloadSchema,
  ModeInfoSchema,
  ModeUpdatedPayloadSchema,
  QuestionChoiceSchema,
  QuestionRequestedPayloadSchema,
  QuestionResolvedPayloadSchema,
  SlashCommandSchema,
  UsageCostSchema,
  UsageUpdatedPayloadSchema,
} from './payloads-interaction.js';
export {
  MessageCompletedPayloadSchema,
  MessageDeltaPayloadSchema,
  MessageRoleSchema,
  MessageStartedPayloadSchema,
  ModelInfoSchema,
  PlanEntrySchema,
  PlanUpdatedPayloadSchema,
  ReasoningCompletedPayloadSchema,
  ReasoningDeltaPayloadSchema,
  SessionMetadataPayloadSchema,
  SessionOriginSchema,
  SessionStartedPayloadSchema,
  StopReasonSchema,
  TurnCompletedPayloadSchema,
  TurnStartedPayloadSchema,
} from './payloads-session.js';
export {
  ArtifactCreatedPayloadSchema,
  ArtifactDeliveredPayloadSchema,
  ChildCompletedPayloadSchema,
  ChildStartedPayloadSchema,
  ChildUpdatedPayloadSchema,
  FileChangedPayloadSchema,
  TerminalOutputPayloadSchema,
  ToolCompletedPayloadSchema,
  ToolProgressPayloadSchema,
  ToolStartedPayloadSchema,
} from './payloads-tools.js';
export { CONTRACT_SCHEMAS, type ContractShapeName, type ContractShapes } from './registry.js';
export { AuditPageSchema } from './rest-audit.js';
export {
  CheckpointErrorBodySchema,
  CheckpointListSchema,
  CheckpointSummarySchema,
} from './rest-checkpoints.js';
export { CursorErrorBodySchema, ErrorBodySchema, ErrorDetailSchema } from './rest-error.js';
export { ForkedFromSchema, ForkReplySchema, ForkRequestSchema } from './rest-fork.js';
export { FramePageSchema, NativeFrameViewSchema, RawFrameViewSchema } from './rest-frames.js';
export { RunViewSchema } from './rest-run.js';
export { SessionViewSchema, ThreadActivitySchema } from './rest-session.js';
export {
  SyncChangeFromSchema,
  SyncChangeSchema,
  SyncConflictReportSchema,
  SyncRequestSchema,
  SyncResponseSchema,
} from './rest-sync.js';
export { ConversationMessageSchema, ConversationPartSchema, SessionStateSchema } from './session-state.js';
export { VersionedChangeSchema, VersionVectorSchema } from './version-vector.js';
