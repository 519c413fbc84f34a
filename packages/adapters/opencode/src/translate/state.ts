import type { JsonValue } from '@agentlane/contract';
import {
  type EngineAuditState,
  emptyIdMap,
  type IdMap,
  idDelete,
  idEntries,
  idGet,
  idSet,
  initialEngineAuditState,
  stepOwnership,
} from '@agentlane/engine-kit';

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
export type ApprovalEntry = { resolved: boolean };
export type QuestionEntry = { count: number; resolved: boolean };

/** What each id-keyed map of the state holds. */
type Entries = {
  children: ChildSessionState;
  messages: MessageState;
  parts: PartState;
  tools: ToolPartState;
  openTools: true;
  approvals: ApprovalEntry;
  questions: QuestionEntry;
  files: FileState;
  counters: number;
};
type MapName = keyof Entries;

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
  // The id-keyed maps are persistent (engine-kit's IdMap): read them with entryOf / entriesOf, change an
  // entry through ownEntry or putEntry (see cloneState).
  children: IdMap<ChildSessionState>;
  messages: IdMap<MessageState>;
  parts: IdMap<PartState>;
  /** Tool parts by callID. */
  tools: IdMap<ToolPartState>;
  /** The callIDs of tools started and not done (what file.edited looks through). */
  openTools: IdMap<true>;
  approvals: IdMap<ApprovalEntry>;
  questions: IdMap<QuestionEntry>;
  files: IdMap<FileState>;
  counters: IdMap<number>;
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
    children: emptyIdMap(),
    messages: emptyIdMap(),
    parts: emptyIdMap(),
    tools: emptyIdMap(),
    openTools: emptyIdMap(),
    approvals: emptyIdMap(),
    questions: emptyIdMap(),
    files: emptyIdMap(),
    counters: emptyIdMap(),
    audit: initialEngineAuditState(),
  };
}

/** The next number of a per-run counter, for keys of events that repeat (progress, metadata, plans). */
export function nextCount(state: OpenCodeState, name: string): number {
  const value = (idGet(state.counters, name) ?? 0) + 1;
  state.counters = idSet(state.counters, name, value);
  return value;
}

const mapOf = <K extends MapName>(state: OpenCodeState, name: K) => state[name] as IdMap<Entries[K]>;

/** An entry as the prior state left it: read it, never change it (ownEntry gives one to change). */
export function entryOf<K extends MapName>(
  state: OpenCodeState,
  name: K,
  id: string,
): Entries[K] | undefined {
  return idGet(mapOf(state, name), id);
}

/** Every [id, entry] in the order they were first set (array-index ids first, as Object.entries lists them). */
export function entriesOf<K extends MapName>(state: OpenCodeState, name: K): [string, Entries[K]][] {
  return idEntries(mapOf(state, name));
}

/** Whether this step's state takes an entry for the first time (then it copies it). */
const ownsFirst = stepOwnership<OpenCodeState>();

/** Sets an entry made in this step; it may be changed in place for the rest of the step. */
export function putEntry<K extends MapName>(
  state: OpenCodeState,
  name: K,
  id: string,
  value: Entries[K],
): Entries[K] {
  ownsFirst(state, `${name}:${id}`);
  (state as Record<MapName, IdMap<JsonValue>>)[name] = idSet(mapOf(state, name), id, value);
  return value;
}

/**
 * An entry this step may change in place: copied the first time the step asks (its arrays too), the same
 * object after that; the prior state keeps its own.
 */
export function ownEntry<K extends Exclude<MapName, 'counters' | 'openTools'>>(
  state: OpenCodeState,
  name: K,
  id: string,
): Entries[K] | undefined {
  const entry = entryOf(state, name, id);
  if (!entry || !ownsFirst(state, `${name}:${id}`)) return entry;
  const copy = { ...entry } as Record<string, unknown>;
  for (const [k, v] of Object.entries(copy)) if (Array.isArray(v)) copy[k] = [...v];
  (state as Record<MapName, IdMap<JsonValue>>)[name] = idSet(mapOf(state, name), id, copy as Entries[K]);
  return copy as Entries[K];
}

/** Marks a tool started (open) or done: the index of open tools follows its flags. */
export function setToolOpen(state: OpenCodeState, callId: string, open: boolean): void {
  state.openTools = open ? idSet(state.openTools, callId, true) : idDelete(state.openTools, callId);
}

/**
 * The state a step may change. Its fields are plain values, the audit tracker (immutable) and persistent maps
 * whose entries are copied on write (ownEntry), so a step costs what it changes. Before, every frame copied
 * the whole state: a run with 2,000 tool calls took 4 s to translate, quadratic in its tools and parts.
 */
export function cloneState(state: OpenCodeState): OpenCodeState {
  return { ...state };
}
