import type { AuditableCall, AuditPayload, ModelCallPayload, ToolCallPayload } from '../audit.js';
import type { NegotiatedCapabilities } from '../capabilities.js';
import type { ChannelSnapshot, Checkpoint } from '../checkpoint.js';
import type {
  CanonicalStreamEvent,
  DeliveryRow,
  RunCanonicalizedEvent,
  RunStatusEvent,
  StreamClosingEvent,
  StreamEvent,
  StreamOpenedEvent,
  SyncConflictEvent,
} from '../delivery.js';
import type { ArtifactRef, ArtifactWithPreview, CanonicalIdentity, ProviderMetadata } from '../envelope.js';
import type {
  ApprovalOption,
  ApprovalSubject,
  CanonicalEvent,
  CanonicalEventDraft,
  CanonicalEventKind,
  CanonicalEventOf,
  CanonicalPayloads,
  ModeInfo,
  ModelInfo,
  PlanEntry,
  QuestionChoice,
  SlashCommand,
  UsageCost,
} from '../events.js';
import type { JsonObject, JsonValue } from '../json.js';
import type { AuditPage } from '../rest/audit-page.js';
import type { CheckpointErrorBody, CheckpointList, CheckpointSummary } from '../rest/checkpoint-list.js';
import type { CursorErrorBody, ErrorBody, ErrorDetail } from '../rest/error.js';
import type { ForkedFrom, ForkReply, ForkRequest } from '../rest/fork.js';
import type { FramePage, NativeFrameView, RawFrameView } from '../rest/frames.js';
import type { RunView } from '../rest/run.js';
import type { SessionView, ThreadActivity } from '../rest/session.js';
import type {
  SyncChange,
  SyncChangeFrom,
  SyncConflictReport,
  SyncRequest,
  SyncResponse,
} from '../rest/sync.js';
import type { ConversationMessage, ConversationPart, SessionState } from '../session-state.js';
import type { VersionedChange, VersionVector } from '../version-vector.js';
import {
  AuditableCallSchema,
  AuditPayloadSchema,
  ModelCallPayloadSchema,
  ToolCallPayloadSchema,
} from './audit.js';
import { NegotiatedCapabilitiesSchema } from './capabilities.js';
import { ChannelSnapshotSchema, CheckpointSchema } from './checkpoint.js';
import { JsonObjectSchema, JsonValueSchema } from './common.js';
import {
  CanonicalStreamEventSchema,
  DeliveryRowSchema,
  RunCanonicalizedEventSchema,
  RunStatusEventSchema,
  StreamClosingEventSchema,
  StreamEventSchema,
  StreamOpenedEventSchema,
  SyncConflictEventSchema,
} from './delivery.js';
import {
  ArtifactRefSchema,
  ArtifactWithPreviewSchema,
  CanonicalIdentitySchema,
  ProviderMetadataSchema,
} from './envelope.js';
import {
  CanonicalEventDraftSchema,
  CanonicalEventKindSchema,
  CanonicalEventSchema,
  EVENT_SCHEMAS,
  kindStem,
  PAYLOAD_SCHEMAS,
} from './events.js';
import {
  ApprovalOptionSchema,
  ApprovalSubjectSchema,
  ModeInfoSchema,
  QuestionChoiceSchema,
  SlashCommandSchema,
  UsageCostSchema,
} from './payloads-interaction.js';
import { ModelInfoSchema, PlanEntrySchema } from './payloads-session.js';
import { AuditPageSchema } from './rest-audit.js';
import {
  CheckpointErrorBodySchema,
  CheckpointListSchema,
  CheckpointSummarySchema,
} from './rest-checkpoints.js';
import { CursorErrorBodySchema, ErrorBodySchema, ErrorDetailSchema } from './rest-error.js';
import { ForkedFromSchema, ForkReplySchema, ForkRequestSchema } from './rest-fork.js';
import { FramePageSchema, NativeFrameViewSchema, RawFrameViewSchema } from './rest-frames.js';
import { RunViewSchema } from './rest-run.js';
import { SessionViewSchema, ThreadActivitySchema } from './rest-session.js';
import {
  SyncChangeFromSchema,
  SyncChangeSchema,
  SyncConflictReportSchema,
  SyncRequestSchema,
  SyncResponseSchema,
} from './rest-sync.js';
import { ConversationMessageSchema, ConversationPartSchema, SessionStateSchema } from './session-state.js';
import { VersionedChangeSchema, VersionVectorSchema } from './version-vector.js';

type PascalKind<K extends string> = K extends `${infer A}.${infer B}`
  ? `${Capitalize<A>}${PascalKind<Capitalize<B>>}`
  : Capitalize<K>;

type PayloadShapes = { [K in CanonicalEventKind as `${PascalKind<K>}Payload`]: CanonicalPayloads[K] };
type EventShapes = { [K in CanonicalEventKind as `${PascalKind<K>}Event`]: CanonicalEventOf<K> };

/**
 * Every named shape of the contract and its TypeScript type. The schema registry below has exactly these
 * keys, and a type test proves each schema's static type equals the type here, in both directions.
 */
export interface ContractShapes extends PayloadShapes, EventShapes {
  JsonValue: JsonValue;
  JsonObject: JsonObject;
  CanonicalIdentity: CanonicalIdentity;
  ArtifactRef: ArtifactRef;
  ArtifactWithPreview: ArtifactWithPreview;
  ProviderMetadata: ProviderMetadata;
  NegotiatedCapabilities: NegotiatedCapabilities;
  ModelInfo: ModelInfo;
  PlanEntry: PlanEntry;
  ApprovalOption: ApprovalOption;
  ApprovalSubject: ApprovalSubject;
  QuestionChoice: QuestionChoice;
  SlashCommand: SlashCommand;
  ModeInfo: ModeInfo;
  UsageCost: UsageCost;
  CanonicalEventKind: CanonicalEventKind;
  CanonicalEvent: CanonicalEvent;
  CanonicalEventDraft: CanonicalEventDraft;
  DeliveryRow: DeliveryRow;
  CanonicalStreamEvent: CanonicalStreamEvent;
  StreamOpenedEvent: StreamOpenedEvent;
  RunStatusEvent: RunStatusEvent;
  RunCanonicalizedEvent: RunCanonicalizedEvent;
  SyncConflictEvent: SyncConflictEvent;
  StreamClosingEvent: StreamClosingEvent;
  StreamEvent: StreamEvent;
  ModelCallPayload: ModelCallPayload;
  ToolCallPayload: ToolCallPayload;
  AuditPayload: AuditPayload;
  AuditableCall: AuditableCall;
  ChannelSnapshot: ChannelSnapshot;
  Checkpoint: Checkpoint;
  ConversationPart: ConversationPart;
  ConversationMessage: ConversationMessage;
  SessionState: SessionState;
  VersionVector: VersionVector;
  VersionedChange: VersionedChange;
  // REST shapes (the server's routes, the OpenAPI document and the client use these).
  ThreadActivity: ThreadActivity;
  SessionView: SessionView;
  RunView: RunView;
  ErrorDetail: ErrorDetail;
  ErrorBody: ErrorBody;
  CursorErrorBody: CursorErrorBody;
  SyncChange: SyncChange;
  SyncRequest: SyncRequest;
  SyncChangeFrom: SyncChangeFrom;
  SyncConflictReport: SyncConflictReport;
  SyncResponse: SyncResponse;
  AuditPage: AuditPage;
  CheckpointSummary: CheckpointSummary;
  CheckpointList: CheckpointList;
  CheckpointErrorBody: CheckpointErrorBody;
  ForkedFrom: ForkedFrom;
  ForkRequest: ForkRequest;
  ForkReply: ForkReply;
  RawFrameView: RawFrameView;
  NativeFrameView: NativeFrameView;
  FramePage: FramePage;
}

export type ContractShapeName = keyof ContractShapes;

type PayloadSchemaMap = {
  [K in CanonicalEventKind as `${PascalKind<K>}Payload`]: (typeof PAYLOAD_SCHEMAS)[K];
};
type EventSchemaMap = { [K in CanonicalEventKind as `${PascalKind<K>}Event`]: (typeof EVENT_SCHEMAS)[K] };

function byStem<M>(source: Record<CanonicalEventKind, unknown>, suffix: string): M {
  return Object.fromEntries(
    Object.entries(source).map(([kind, schema]) => [
      `${kindStem(kind as CanonicalEventKind)}${suffix}`,
      schema,
    ]),
  ) as M;
}

const named = {
  JsonValue: JsonValueSchema,
  JsonObject: JsonObjectSchema,
  CanonicalIdentity: CanonicalIdentitySchema,
  ArtifactRef: ArtifactRefSchema,
  ArtifactWithPreview: ArtifactWithPreviewSchema,
  ProviderMetadata: ProviderMetadataSchema,
  NegotiatedCapabilities: NegotiatedCapabilitiesSchema,
  ModelInfo: ModelInfoSchema,
  PlanEntry: PlanEntrySchema,
  ApprovalOption: ApprovalOptionSchema,
  ApprovalSubject: ApprovalSubjectSchema,
  QuestionChoice: QuestionChoiceSchema,
  SlashCommand: SlashCommandSchema,
  ModeInfo: ModeInfoSchema,
  UsageCost: UsageCostSchema,
  CanonicalEventKind: CanonicalEventKindSchema,
  CanonicalEvent: CanonicalEventSchema,
  CanonicalEventDraft: CanonicalEventDraftSchema,
  DeliveryRow: DeliveryRowSchema,
  CanonicalStreamEvent: CanonicalStreamEventSchema,
  StreamOpenedEvent: StreamOpenedEventSchema,
  RunStatusEvent: RunStatusEventSchema,
  RunCanonicalizedEvent: RunCanonicalizedEventSchema,
  SyncConflictEvent: SyncConflictEventSchema,
  StreamClosingEvent: StreamClosingEventSchema,
  StreamEvent: StreamEventSchema,
  ModelCallPayload: ModelCallPayloadSchema,
  ToolCallPayload: ToolCallPayloadSchema,
  AuditPayload: AuditPayloadSchema,
  AuditableCall: AuditableCallSchema,
  ChannelSnapshot: ChannelSnapshotSchema,
  Checkpoint: CheckpointSchema,
  ConversationPart: ConversationPartSchema,
  ConversationMessage: ConversationMessageSchema,
  SessionState: SessionStateSchema,
  VersionVector: VersionVectorSchema,
  VersionedChange: VersionedChangeSchema,
  ThreadActivity: ThreadActivitySchema,
  SessionView: SessionViewSchema,
  RunView: RunViewSchema,
  ErrorDetail: ErrorDetailSchema,
  ErrorBody: ErrorBodySchema,
  CursorErrorBody: CursorErrorBodySchema,
  SyncChange: SyncChangeSchema,
  SyncRequest: SyncRequestSchema,
  SyncChangeFrom: SyncChangeFromSchema,
  SyncConflictReport: SyncConflictReportSchema,
  SyncResponse: SyncResponseSchema,
  AuditPage: AuditPageSchema,
  CheckpointSummary: CheckpointSummarySchema,
  CheckpointList: CheckpointListSchema,
  CheckpointErrorBody: CheckpointErrorBodySchema,
  ForkedFrom: ForkedFromSchema,
  ForkRequest: ForkRequestSchema,
  ForkReply: ForkReplySchema,
  RawFrameView: RawFrameViewSchema,
  NativeFrameView: NativeFrameViewSchema,
  FramePage: FramePageSchema,
};

/** Every named schema of the contract, keyed by shape name (the keys of the bundle's $defs). */
export const CONTRACT_SCHEMAS: typeof named & PayloadSchemaMap & EventSchemaMap = {
  ...named,
  ...byStem<PayloadSchemaMap>(PAYLOAD_SCHEMAS, 'Payload'),
  ...byStem<EventSchemaMap>(EVENT_SCHEMAS, 'Event'),
};
