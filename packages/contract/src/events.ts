import type { CanonicalEventBase } from './envelope.js';
import type {
  ApprovalRequestedPayload,
  ApprovalResolvedPayload,
  CommandsUpdatedPayload,
  ContextMarkerPayload,
  HarnessErrorPayload,
  HarnessWarningPayload,
  ModeUpdatedPayload,
  QuestionRequestedPayload,
  QuestionResolvedPayload,
  UsageUpdatedPayload,
} from './payloads/interaction.js';
import type {
  MessageCompletedPayload,
  MessageDeltaPayload,
  MessageStartedPayload,
  ReasoningCompletedPayload,
  ReasoningDeltaPayload,
  SessionMetadataPayload,
  SessionStartedPayload,
  TurnCompletedPayload,
  TurnStartedPayload,
} from './payloads/session.js';
import type {
  ArtifactCreatedPayload,
  ArtifactDeliveredPayload,
  ChildCompletedPayload,
  ChildStartedPayload,
  ChildUpdatedPayload,
  FileChangedPayload,
  PlanUpdatedPayload,
  TerminalOutputPayload,
  ToolCompletedPayload,
  ToolProgressPayload,
  ToolStartedPayload,
} from './payloads/work.js';

// The payload types live in payloads/ (one file per group of kinds); this file names the kinds and builds
// the union.
export {
  type ApprovalOption,
  type ApprovalOptionKind,
  type ApprovalRequestedPayload,
  type ApprovalResolvedPayload,
  type ApprovalSubject,
  CONTEXT_MARKER_KINDS,
  type CommandsUpdatedPayload,
  type ContextMarkerKind,
  type ContextMarkerPayload,
  type HarnessErrorPayload,
  type HarnessWarningPayload,
  type ModeInfo,
  type ModeUpdatedPayload,
  type QuestionChoice,
  type QuestionRequestedPayload,
  type QuestionResolvedPayload,
  type SlashCommand,
  type UsageCost,
  type UsageUpdatedPayload,
} from './payloads/interaction.js';
export type {
  MessageCompletedPayload,
  MessageDeltaPayload,
  MessageRole,
  MessageStartedPayload,
  ModelInfo,
  ReasoningCompletedPayload,
  ReasoningDeltaPayload,
  SessionMetadataPayload,
  SessionOrigin,
  SessionStartedPayload,
  StopReason,
  TurnCompletedPayload,
  TurnStartedPayload,
} from './payloads/session.js';
export type {
  ArtifactCreatedPayload,
  ArtifactDeliveredPayload,
  ChildCompletedPayload,
  ChildStartedPayload,
  ChildState,
  ChildUpdatedPayload,
  FileChangedPayload,
  FileChangeKind,
  PlanEntry,
  PlanEntryPriority,
  PlanEntryStatus,
  PlanUpdatedPayload,
  TerminalOutputPayload,
  TerminalStream,
  ToolCompletedPayload,
  ToolFinalStatus,
  ToolKind,
  ToolProgressPayload,
  ToolRunningStatus,
  ToolStartedPayload,
} from './payloads/work.js';

/** The 30 canonical kinds, in the order of the spec's vocabulary table. */
export const CANONICAL_EVENT_KINDS = [
  'session.started',
  'session.metadata',
  'turn.started',
  'turn.completed',
  'message.started',
  'message.delta',
  'message.completed',
  'reasoning.delta',
  'reasoning.completed',
  'plan.updated',
  'tool.started',
  'tool.progress',
  'tool.completed',
  'file.changed',
  'artifact.created',
  'artifact.delivered',
  'terminal.output',
  'child.started',
  'child.updated',
  'child.completed',
  'approval.requested',
  'approval.resolved',
  'question.requested',
  'question.resolved',
  'commands.updated',
  'mode.updated',
  'usage.updated',
  'context.marker',
  'harness.warning',
  'harness.error',
] as const;

export type CanonicalEventKind = (typeof CANONICAL_EVENT_KINDS)[number];

// ---------------------------------------------------------------- the union

export interface CanonicalPayloads {
  'session.started': SessionStartedPayload;
  'session.metadata': SessionMetadataPayload;
  'turn.started': TurnStartedPayload;
  'turn.completed': TurnCompletedPayload;
  'message.started': MessageStartedPayload;
  'message.delta': MessageDeltaPayload;
  'message.completed': MessageCompletedPayload;
  'reasoning.delta': ReasoningDeltaPayload;
  'reasoning.completed': ReasoningCompletedPayload;
  'plan.updated': PlanUpdatedPayload;
  'tool.started': ToolStartedPayload;
  'tool.progress': ToolProgressPayload;
  'tool.completed': ToolCompletedPayload;
  'file.changed': FileChangedPayload;
  'artifact.created': ArtifactCreatedPayload;
  'artifact.delivered': ArtifactDeliveredPayload;
  'terminal.output': TerminalOutputPayload;
  'child.started': ChildStartedPayload;
  'child.updated': ChildUpdatedPayload;
  'child.completed': ChildCompletedPayload;
  'approval.requested': ApprovalRequestedPayload;
  'approval.resolved': ApprovalResolvedPayload;
  'question.requested': QuestionRequestedPayload;
  'question.resolved': QuestionResolvedPayload;
  'commands.updated': CommandsUpdatedPayload;
  'mode.updated': ModeUpdatedPayload;
  'usage.updated': UsageUpdatedPayload;
  'context.marker': ContextMarkerPayload;
  'harness.warning': HarnessWarningPayload;
  'harness.error': HarnessErrorPayload;
}

/** One canonical event of kind K: the envelope, the kind, and its payload. */
export type CanonicalEventOf<K extends CanonicalEventKind> = CanonicalEventBase & {
  kind: K;
  payload: CanonicalPayloads[K];
};

/** The discriminated union of the 30 canonical kinds. */
export type CanonicalEvent = { [K in CanonicalEventKind]: CanonicalEventOf<K> }[CanonicalEventKind];

/** An event as an adapter's translator drafts it; the lane adds the envelope (eventId, seq, ids, ts). */
export type CanonicalEventDraft = {
  [K in CanonicalEventKind]: { kind: K; payload: CanonicalPayloads[K] };
}[CanonicalEventKind];
