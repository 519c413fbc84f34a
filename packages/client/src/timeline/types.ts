import type {
  ApprovalRequestedPayload,
  ApprovalResolvedPayload,
  ArtifactRef,
  ArtifactWithPreview,
  CanonicalEvent,
  ChildState,
  ContextMarkerPayload,
  FileChangedPayload,
  HarnessErrorPayload,
  HarnessWarningPayload,
  JsonValue,
  MessageRole,
  ModeUpdatedPayload,
  NegotiatedCapabilities,
  PlanEntry,
  QuestionRequestedPayload,
  QuestionResolvedPayload,
  RunStatus,
  SessionMetadataPayload,
  SessionStartedPayload,
  SlashCommand,
  StopReason,
  SyncConflictEvent,
  TerminalStream,
  ToolFinalStatus,
  ToolKind,
  ToolRunningStatus,
  UsageCost,
} from '@agentlane/contract';
import type { Sharded } from './sharded.js';

/** The latest revision of one eventId, as the reducer keeps it. */
export interface StoredRow {
  eventId: string;
  revision: number;
  deliverySeq: number;
  /** The lowest deliverySeq seen for this eventId: where it sits in the timeline, stable across revisions. */
  order: number;
  provisional: boolean;
  namespace: string[];
  event: CanonicalEvent;
}

export interface RunView {
  runId: string;
  status: RunStatus;
  /** True once the run's completion signal (`run.canonicalized`) arrived. */
  canonicalized: boolean;
  /** The statusVersion of the run.status shown (a lower one arriving later is stale and ignored). */
  statusVersion?: number;
  /** Rows of this run up to here are final. */
  lastDeliverySeq?: number;
  completedAt?: string;
}

interface ItemBase {
  /** Unique within its timeline. */
  key: string;
  /** Position in the timeline (the first deliverySeq of the item's first row). */
  order: number;
  runId: string;
  turnId: string;
  ts: string;
  /** True until the run's completion signal covers every row of the item. */
  provisional: boolean;
}

export interface TurnItem extends ItemBase {
  type: 'turn';
  prompt?: string;
  model?: string;
  mode?: string;
  status: 'running' | 'completed';
  stopReason?: StopReason;
  rawStopReason?: string;
  durationMs?: number;
}

export interface MessageItem extends ItemBase {
  type: 'message';
  messageId: string;
  role: MessageRole;
  /** The final text when completed, else the deltas of every part joined. */
  text: string;
  parts: { partId: string; text: string }[];
  status: 'streaming' | 'completed';
}

export interface ReasoningItem extends ItemBase {
  type: 'reasoning';
  reasoningId: string;
  messageId?: string;
  text: string;
  status: 'streaming' | 'completed';
  durationMs?: number;
}

export interface ToolItem extends ItemBase {
  type: 'tool';
  toolCallId: string;
  name: string;
  title?: string;
  kind: ToolKind;
  input: JsonValue;
  status: ToolRunningStatus | ToolFinalStatus;
  message?: string;
  partialOutput?: string;
  output?: JsonValue;
  outputArtifact?: ArtifactWithPreview;
  error?: string;
  durationMs?: number;
  parentToolCallId?: string;
}

export interface PlanItem extends ItemBase {
  type: 'plan';
  planId?: string;
  entries: PlanEntry[];
  /** How many times the plan was replaced. */
  updates: number;
}

export interface FileItem extends ItemBase, FileChangedPayload {
  type: 'file';
}

export interface ArtifactItem extends ItemBase {
  type: 'artifact';
  delivered: boolean;
  artifact: ArtifactRef;
  name?: string;
  description?: string;
  preview?: string;
  toolCallId?: string;
}

export interface TerminalItem extends ItemBase {
  type: 'terminal';
  terminalId: string;
  toolCallId?: string;
  command?: string;
  streams: TerminalStream[];
  output: string;
  exit?: { code: number | null; signal?: string | null };
}

export interface ChildItem extends ItemBase {
  type: 'child';
  childSessionId: string;
  childRunId?: string;
  parentToolCallId?: string;
  title?: string;
  description?: string;
  state: ChildState | 'completed' | 'failed' | 'cancelled';
  summary?: string;
  /** The key of the child's own timeline in `TimelineState.timelines`. */
  timelineKey: string;
}

export interface ApprovalItem extends ItemBase {
  type: 'approval';
  approvalId: string;
  request?: ApprovalRequestedPayload;
  resolution?: ApprovalResolvedPayload;
  open: boolean;
}

export interface QuestionItem extends ItemBase {
  type: 'question';
  questionId: string;
  request?: QuestionRequestedPayload;
  resolution?: QuestionResolvedPayload;
  open: boolean;
}

export interface ContextItem extends ItemBase, ContextMarkerPayload {
  type: 'context';
}

export interface WarningItem extends ItemBase, HarnessWarningPayload {
  type: 'warning';
}

export interface ErrorItem extends ItemBase, HarnessErrorPayload {
  type: 'error';
}

export type TimelineItem =
  | TurnItem
  | MessageItem
  | ReasoningItem
  | ToolItem
  | PlanItem
  | FileItem
  | ArtifactItem
  | TerminalItem
  | ChildItem
  | ApprovalItem
  | QuestionItem
  | ContextItem
  | WarningItem
  | ErrorItem;

export interface UsageTotals {
  inputTokens: number;
  outputTokens: number;
  reasoningTokens: number;
  cachedInputTokens: number;
  totalTokens: number;
  contextUsedTokens?: number;
  contextWindowTokens?: number;
  cost?: UsageCost;
  model?: string;
}

/** The UI surfaces a timeline may show; each is gated on its events or its capability flag. */
export const SURFACES = [
  'reasoning',
  'plan',
  'tools',
  'files',
  'terminal',
  'artifacts',
  'children',
  'approvals',
  'questions',
  'commands',
  'modes',
  'usage',
  'modelPicker',
  'context',
] as const;
export type Surface = (typeof SURFACES)[number];

/** One session's timeline: the root thread, or one child session (by namespace). */
export interface TimelineView {
  key: string;
  namespace: string[];
  items: TimelineItem[];
  session?: SessionStartedPayload;
  capabilities: NegotiatedCapabilities;
  metadata: SessionMetadataPayload;
  commands: SlashCommand[];
  mode?: ModeUpdatedPayload;
  plan?: PlanItem;
  usage: { turns: Record<string, UsageTotals>; total?: UsageTotals };
  surfaces: Record<Surface, boolean>;
}

export interface TimelineState {
  /** The highest deliverySeq applied: resume from here. */
  lastDeliverySeq: number;
  /** eventId → its latest revision. */
  rows: Sharded<StoredRow>;
  /** Entity key → eventIds of its rows. */
  groups: Sharded<string[]>;
  /** Entity key → the item built from its rows. */
  entities: Sharded<TimelineItem | EntityAside>;
  /** Timeline key → entity keys of that timeline. */
  members: Record<string, string[]>;
  runs: Record<string, RunView>;
  /** Timeline key (namespace joined by '/'; '' for the root) → view. */
  timelines: Record<string, TimelineView>;
  conflicts: SyncConflictEvent[];
}

/** Entities that are not timeline rows: session facts and usage. */
export type EntityAside =
  | { type: 'session'; order: number; value: SessionStartedPayload }
  | { type: 'metadata'; order: number; value: SessionMetadataPayload }
  | { type: 'commands'; order: number; value: SlashCommand[] }
  | { type: 'mode'; order: number; value: ModeUpdatedPayload }
  | { type: 'usage'; order: number; turnId: string; value: UsageTotals; scope: 'turn' | 'session' };
