import type { ArtifactWithPreview } from '../envelope.js';
import type { JsonValue } from '../json.js';

// Payloads of the approval, question, command, mode, usage, context-marker and diagnostic kinds.

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
