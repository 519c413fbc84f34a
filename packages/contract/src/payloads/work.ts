import type { ArtifactRef, ArtifactWithPreview } from '../envelope.js';
import type { JsonValue } from '../json.js';
import type { StopReason } from './session.js';

// Payloads of the plan, tool, file, artifact, terminal and child-session kinds.

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
