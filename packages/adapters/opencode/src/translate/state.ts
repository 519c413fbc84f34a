import { type EngineAuditState, initialEngineAuditState } from '@agentlane/engine-kit';

/**
 * The translator's explicit state. Plain JSON (no optional fields, no Maps) so a run can be checkpointed and
 * re-translated from its sealed source with the same result every time.
 */

export type PartState = {
  messageId: string;
  sessionId: string;
  type: 'text' | 'reasoning';
  /** How much of `text` was already emitted as deltas (the streamed text is always text's prefix). */
  streamedLength: number;
  /** A snapshot disagreed with what was streamed: no more deltas; message.completed carries the truth. */
  diverged: boolean;
  /** The current truth: deltas appended, replaced by every whole-part snapshot. */
  text: string;
  ended: boolean;
  startMs: number | null;
  endMs: number | null;
  /** synthetic (harness-injected) or ignored parts are not model output. */
  hidden: boolean;
};

export type MessageState = {
  sessionId: string;
  role: 'user' | 'assistant';
  started: boolean;
  completed: boolean;
  /** Text parts in arrival order. */
  textParts: string[];
  /** The text the last message.completed carried, to emit a revision only when it changes. */
  completedText: string | null;
};

export type ToolPartState = {
  partId: string;
  messageId: string;
  sessionId: string;
  name: string;
  started: boolean;
  done: boolean;
  inputJson: string;
  title: string | null;
  /** Cumulative running output seen so far (bash publishes the whole output on every chunk). */
  output: string;
  progressCount: number;
  startMs: number | null;
  childSessionId: string | null;
};

export type ChildSessionState = {
  parentSessionId: string;
  parentToolCallId: string | null;
  state: string;
  completed: boolean;
};

export type FileState = { key: string; json: string };

export type OpenCodeState = {
  rootSessionId: string | null;
  directory: string | null;
  sessionStarted: boolean;
  turn: 'none' | 'open' | 'closed';
  turnStartedAt: string | null;
  cancelRequested: boolean;
  aborted: boolean;
  errorMessage: string | null;
  lastFinish: string | null;
  modelId: string | null;
  modeId: string | null;
  title: string | null;
  sessionUsageJson: string;
  children: Record<string, ChildSessionState>;
  messages: Record<string, MessageState>;
  parts: Record<string, PartState>;
  /** Tool parts by callID. */
  tools: Record<string, ToolPartState>;
  approvals: Record<string, { resolved: boolean }>;
  questions: Record<string, { count: number; resolved: boolean }>;
  files: Record<string, FileState>;
  counters: Record<string, number>;
  /** What the audit rows need (engine-kit's tracker; immutable, so shared by clones). */
  audit: EngineAuditState;
};

export function initialOpenCodeState(nativeSessionId: string | undefined): OpenCodeState {
  return {
    rootSessionId: nativeSessionId ?? null,
    directory: null,
    sessionStarted: false,
    turn: 'none',
    turnStartedAt: null,
    cancelRequested: false,
    aborted: false,
    errorMessage: null,
    lastFinish: null,
    modelId: null,
    modeId: null,
    title: null,
    sessionUsageJson: '',
    children: {},
    messages: {},
    parts: {},
    tools: {},
    approvals: {},
    questions: {},
    files: {},
    counters: {},
    audit: initialEngineAuditState(),
  };
}

/** The next number of a per-run counter, for keys of events that repeat (progress, metadata, plans). */
export function nextCount(state: OpenCodeState, name: string): number {
  const value = (state.counters[name] ?? 0) + 1;
  state.counters[name] = value;
  return value;
}

/**
 * A deep copy of the state that shares strings (immutable) instead of copying them, so the per-frame cost
 * grows with the number of open parts and tools, not with how much text has streamed.
 */
export function cloneState(state: OpenCodeState): OpenCodeState {
  const { audit, ...rest } = state;
  return { ...(cloneJson(rest) as Omit<OpenCodeState, 'audit'>), audit };
}

function cloneJson(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(cloneJson);
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = {};
    for (const key in value) out[key] = cloneJson((value as Record<string, unknown>)[key]);
    return out;
  }
  return value;
}
