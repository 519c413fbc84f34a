import type { NegotiatedCapabilities } from './capabilities.js';
import type { ArtifactRef, ArtifactWithPreview, CanonicalEventBase, ProviderMetadata } from './envelope.js';
import type { JsonValue } from './json.js';

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

// ---------------------------------------------------------------- session and turns

/** How a session came to be: created fresh, loaded with history replay, resumed without replay, or forked. */
export type SessionOrigin = 'new' | 'load' | 'resume' | 'fork';

export interface SessionStartedPayload {
  provider: string;
  nativeSessionId?: string;
  origin: SessionOrigin;
  /** Counts runtime rebindings of the session; a command carrying an older generation is refused. */
  generation: number;
  agent?: { name: string; version?: string };
  cwd?: string;
  title?: string;
  capabilities: NegotiatedCapabilities;
}

export interface ModelInfo {
  id: string;
  name?: string;
  description?: string;
}

export interface SessionMetadataPayload {
  title?: string;
  /** The model in use, when the engine says. */
  model?: ModelInfo;
  /** Models the user may pick; only meaningful when the capability `modelSelection` is true. */
  availableModels?: ModelInfo[];
  /** Reasoning effort or thought level, as the engine names it. */
  reasoningLevel?: string;
  metadata?: ProviderMetadata;
}

export interface TurnStartedPayload {
  /** The user's prompt text, when the turn was started by a prompt. */
  prompt?: string;
  /** The run this run replies to, for a reply created with parent_run_id. */
  parentRunId?: string;
  model?: string;
  mode?: string;
}

/** Why a turn ended. `error` when the engine failed; `other` with `rawStopReason` for anything unknown. */
export type StopReason =
  | 'end_turn'
  | 'max_tokens'
  | 'max_turn_requests'
  | 'refusal'
  | 'cancelled'
  | 'error'
  | 'other';

export interface TurnCompletedPayload {
  stopReason: StopReason;
  rawStopReason?: string;
  durationMs?: number;
}

// ---------------------------------------------------------------- messages and reasoning

export type MessageRole = 'user' | 'assistant' | 'system';

export interface MessageStartedPayload {
  messageId: string;
  role: MessageRole;
}

export interface MessageDeltaPayload {
  messageId: string;
  /** The text part the delta appends to; a message may hold several parts. */
  partId: string;
  /** Incremental text: append, never cumulative. */
  delta: string;
}

export interface MessageCompletedPayload {
  messageId: string;
  role: MessageRole;
  /** The whole text of the message, the truth when deltas and final text disagree. */
  text: string;
}

export interface ReasoningDeltaPayload {
  reasoningId: string;
  partId?: string;
  messageId?: string;
  delta: string;
}

export interface ReasoningCompletedPayload {
  reasoningId: string;
  messageId?: string;
  text: string;
  durationMs?: number;
}

// ---------------------------------------------------------------- plans

export type PlanEntryStatus = 'pending' | 'in_progress' | 'completed' | 'cancelled';
export type PlanEntryPriority = 'high' | 'medium' | 'low';

export interface PlanEntry {
  id?: string;
  content: string;
  status: PlanEntryStatus;
  priority?: PlanEntryPriority;
}

/** The whole plan: each update replaces the previous one. */
export interface PlanUpdatedPayload {
  planId?: string;
  entries: PlanEntry[];
}

// ---------------------------------------------------------------- tools

/** What a tool does, so a UI can pick an icon and group quiet tools. */
export type ToolKind =
  | 'read'
  | 'edit'
  | 'delete'
  | 'move'
  | 'search'
  | 'execute'
  | 'think'
  | 'fetch'
  | 'switch_mode'
  | 'other';

export type ToolRunningStatus = 'pending' | 'running';
export type ToolFinalStatus = 'completed' | 'failed' | 'cancelled';

export interface ToolStartedPayload {
  toolCallId: string;
  name: string;
  title?: string;
  kind: ToolKind;
  input: JsonValue;
  status: ToolRunningStatus;
  /** The tool call of a parent agent that spawned this one, for nested tools. */
  parentToolCallId?: string;
}

export interface ToolProgressPayload {
  toolCallId: string;
  status: ToolRunningStatus;
  title?: string;
  /** Set when the input became known after tool.started (engines often start with an empty input). */
  input?: JsonValue;
  /**
   * Streamed input, append form: text to append to the call's input text so far (the `inputDelta`s of this
   * call before it, in stream order, starting from ''). A frame with `inputDelta` has no `input`; a later
   * `input` (the parsed whole input) replaces the text. A reader that does not know the field keeps the last
   * `input` it saw and only misses the live preview. See docs/contract.md.
   */
  inputDelta?: string;
  message?: string;
  /** Output so far, when it is small. */
  partialOutput?: string;
}

export interface ToolCompletedPayload {
  toolCallId: string;
  status: ToolFinalStatus;
  /** Small outputs inline. */
  output?: JsonValue;
  /** Large outputs out of band, with a bounded preview. */
  outputArtifact?: ArtifactWithPreview;
  error?: string;
  durationMs?: number;
}

// ---------------------------------------------------------------- files, artifacts, terminal

export type FileChangeKind = 'created' | 'modified' | 'deleted' | 'renamed';

export interface FileChangedPayload {
  path: string;
  change: FileChangeKind;
  previousPath?: string;
  toolCallId?: string;
  /** A unified diff of the change, stored as an artifact with a preview. */
  diff?: ArtifactWithPreview;
  additions?: number;
  deletions?: number;
}

export interface ArtifactCreatedPayload {
  artifact: ArtifactRef;
  name?: string;
  preview?: string;
  toolCallId?: string;
  messageId?: string;
}

/** An artifact handed to the user as a result of the run (a file, an image, a report). */
export interface ArtifactDeliveredPayload {
  artifact: ArtifactRef;
  name?: string;
  description?: string;
}

export type TerminalStream = 'stdout' | 'stderr' | 'pty';

export interface TerminalOutputPayload {
  terminalId: string;
  toolCallId?: string;
  stream: TerminalStream;
  /** Output text, may contain ANSI escapes. Empty on the final chunk if nothing is left. */
  chunk: string;
  command?: string;
  /** Present on the chunk that ends the terminal. */
  exit?: { code: number | null; signal?: string | null };
}

// ---------------------------------------------------------------- child sessions

export interface ChildStartedPayload {
  childSessionId: string;
  childRunId?: string;
  parentToolCallId?: string;
  title?: string;
  description?: string;
}

export type ChildState = 'running' | 'idle' | 'requires_action' | 'unknown';

export interface ChildUpdatedPayload {
  childSessionId: string;
  state: ChildState;
  title?: string;
  summary?: string;
}

export interface ChildCompletedPayload {
  childSessionId: string;
  status: 'completed' | 'failed' | 'cancelled';
  summary?: string;
  stopReason?: StopReason;
}

// ---------------------------------------------------------------- approvals and questions

export type ApprovalOptionKind = 'allow_once' | 'allow_always' | 'reject_once' | 'reject_always';

export interface ApprovalOption {
  optionId: string;
  label: string;
  kind: ApprovalOptionKind;
}

/** What is being approved, so the card can show exactly what is asked. */
export interface ApprovalSubject {
  kind: 'tool_call' | 'command' | 'file_edit' | 'other';
  command?: string;
  path?: string;
  diff?: ArtifactWithPreview;
}

export interface ApprovalRequestedPayload {
  approvalId: string;
  toolCallId?: string;
  title: string;
  description?: string;
  subject: ApprovalSubject;
  input?: JsonValue;
  options: ApprovalOption[];
}

export interface ApprovalResolvedPayload {
  approvalId: string;
  outcome: 'selected' | 'cancelled';
  optionId?: string;
  /** The kind of the chosen option; absent when cancelled. */
  decision?: ApprovalOptionKind;
  /** Who answered: a user or token subject, or "system" for an automatic cancel. */
  answeredBy?: string;
  answeredAt?: string;
}

export interface QuestionChoice {
  id: string;
  label: string;
  description?: string;
}

export interface QuestionRequestedPayload {
  questionId: string;
  toolCallId?: string;
  prompt: string;
  choices: QuestionChoice[];
  multiple: boolean;
  allowFreeText: boolean;
}

export interface QuestionResolvedPayload {
  questionId: string;
  outcome: 'answered' | 'declined' | 'cancelled';
  answer?: { choiceIds: string[]; text?: string };
  answeredBy?: string;
  answeredAt?: string;
}

// ---------------------------------------------------------------- commands and mode

export interface SlashCommand {
  name: string;
  description: string;
  inputHint?: string;
}

/** The whole command catalog; each update replaces the previous one. */
export interface CommandsUpdatedPayload {
  commands: SlashCommand[];
}

export interface ModeInfo {
  id: string;
  name: string;
  description?: string;
}

export interface ModeUpdatedPayload {
  currentModeId: string;
  availableModes?: ModeInfo[];
}

// ---------------------------------------------------------------- usage

export interface UsageCost {
  amount: number;
  currency: string;
}

/**
 * Token accounting. `scope` says what the numbers cover: one model step, one turn, or the session so far
 * (cumulative). Context-window figures are separate from token counts.
 */
export interface UsageUpdatedPayload {
  scope: 'step' | 'turn' | 'session';
  inputTokens?: number;
  outputTokens?: number;
  reasoningTokens?: number;
  cachedInputTokens?: number;
  cacheWriteTokens?: number;
  totalTokens?: number;
  contextUsedTokens?: number;
  contextWindowTokens?: number;
  cost?: UsageCost;
  model?: string;
}

// ---------------------------------------------------------------- context markers and diagnostics

export const CONTEXT_MARKER_KINDS = [
  'memory',
  'knowledge',
  'skill',
  'playbook',
  'rule',
  'reconciling',
] as const;
export type ContextMarkerKind = (typeof CONTEXT_MARKER_KINDS)[number];

export interface ContextMarkerPayload {
  markerKind: ContextMarkerKind;
  /** start/end bracket a span (e.g. a history replay while reconciling); point is a single mark. */
  phase: 'start' | 'end' | 'point';
  label: string;
  detail?: string;
  source?: string;
}

export interface HarnessWarningPayload {
  code: string;
  message: string;
  detail?: JsonValue;
}

export interface HarnessErrorPayload {
  code: string;
  message: string;
  /** True when the error ended the run. */
  fatal: boolean;
  detail?: JsonValue;
}

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
