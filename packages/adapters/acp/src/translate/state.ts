import type { JsonObject, ToolKind } from '@agentlane/contract';
import {
  type EngineAuditState,
  emptyIdMap,
  type IdMap,
  idGet,
  idSet,
  initialEngineAuditState,
  stepOwnership,
} from '@agentlane/engine-kit';

// Plain JSON types (type aliases, `null` instead of optional) so the state is a JsonValue.

export type OpenText = {
  id: string;
  /** The native messageId the chunks carried, when any (a change starts a new message). */
  nativeId: string | null;
  role: 'user' | 'assistant';
  text: string;
  startedAt: string;
};

export type DiffSeen = { path: string; oldText: string | null; newText: string };

export type ToolState = {
  name: string;
  kind: ToolKind;
  title: string | null;
  status: 'pending' | 'running' | 'completed' | 'failed' | 'cancelled';
  /** Serialised rawInput last reported, so an unchanged input is not repeated in tool.progress. */
  inputSig: string;
  /** The latest diff per path; file.changed is emitted once the tool has completed. */
  diffs: DiffSeen[];
  /** Diff signatures already reported as file.changed. */
  reported: string[];
  startedAt: string;
};

export type ApprovalState = {
  toolCallId: string | null;
  options: { optionId: string; kind: string }[];
  resolved: boolean;
};

export type ModeState = { id: string; name: string; description: string | null };

export type PendingSession = {
  nativeSessionId: string | null;
  origin: 'new' | 'load' | 'resume' | 'fork';
};

/**
 * Everything the ACP translator remembers between frames of one run. Plain JSON, so a run can be
 * re-translated from its sealed source and checkpointed.
 */
/** A request the client sent, remembered until the agent answers it. */
export type ClientRequest = { method: string; params: JsonObject };

export type AcpState = {
  /** Requests we sent, by JSON-RPC id, to know what a response answers. */
  clientRequests: IdMap<ClientRequest>;
  /** Methods of requests the agent sent and the client has not answered yet, by rpcKey (rpc-key.ts). */
  agentRequests: IdMap<string>;
  /**
   * By rpcKey: how many requests the agent sent again under an id still pending, whose refusal (a JSON-RPC
   * error from the client) has not been seen yet (agent-requests.ts). Absent in states made before it existed.
   */
  refusedRequests?: IdMap<number>;
  /** By rpcKey: requests the driver refused as sent under a pending id, flagged just before them. */
  refuseNext?: IdMap<number>;
  /**
   * By rpcKey: permission requests the driver answered cancelled at once, unasked (more pending than it keeps
   * open), flagged just before them (agent-requests.ts).
   */
  cancelNext?: IdMap<number>;
  /** The driver marked a frame late since the last prompt request: its warning is given (late-frames.ts). */
  lateBurst?: boolean;
  /** By rpcKey: the approval id the driver gave the next permission request under that id (approvals.ts). */
  nextApprovalIds?: IdMap<string>;
  /** By rpcKey: the approval id of each permission request not answered yet. */
  requestApprovals?: IdMap<string>;
  /** By rpcKey: responses the driver flagged as stray just before recording them (nothing they answer). */
  strayResponses?: IdMap<boolean>;
  agent: { name: string; version: string | null } | null;
  agentCapabilities: JsonObject | null;
  configOptions: JsonObject[];
  nativeSessionId: string | null;
  /** A session response arrived; session.started waits one frame for the harness's session.bound. */
  pendingSession: PendingSession | null;
  sessionStarted: boolean;
  /** Whether the source has harness frames (a live run): then session.started waits for session.bound. */
  harnessSeen: boolean;
  /**
   * From a session/load request to the next session/prompt request the agent replays history already shown
   * in earlier runs (Gemini streams it after the load response); see replay.ts.
   */
  replaying: boolean;
  /** After that prompt, until the first live update: history-only updates still count as replay. */
  replayLate: boolean;
  turn: 'none' | 'open' | 'closed';
  turnStartedAt: string | null;
  message: OpenText | null;
  reasoning: OpenText | null;
  messageCount: number;
  reasoningCount: number;
  /** By toolCallId. The id-keyed maps are persistent (engine-kit's IdMap): a step copies a bounded part. */
  tools: IdMap<ToolState>;
  /** A toolCallId the agent reused for a new tool call → the derived id that call has now (tools.ts). */
  toolAliases?: IdMap<string>;
  /** By approvalId. */
  approvals: IdMap<ApprovalState>;
  modes: ModeState[];
  currentModeId: string | null;
  commandsSig: string | null;
  cancelRequested: boolean;
  fatalReported: boolean;
  children: { [childSessionId: string]: boolean };
  /** What the audit rows need (engine-kit's tracker; immutable, so shared by clones). */
  audit: EngineAuditState;
};

export function initialAcpState(): AcpState {
  return {
    clientRequests: emptyIdMap(),
    agentRequests: emptyIdMap(),
    refusedRequests: emptyIdMap(),
    strayResponses: emptyIdMap(),
    refuseNext: emptyIdMap(),
    cancelNext: emptyIdMap(),
    lateBurst: false,
    nextApprovalIds: emptyIdMap(),
    requestApprovals: emptyIdMap(),
    agent: null,
    agentCapabilities: null,
    configOptions: [],
    nativeSessionId: null,
    pendingSession: null,
    sessionStarted: false,
    harnessSeen: false,
    replaying: false,
    replayLate: false,
    turn: 'none',
    turnStartedAt: null,
    message: null,
    reasoning: null,
    messageCount: 0,
    reasoningCount: 0,
    tools: emptyIdMap(),
    toolAliases: emptyIdMap(),
    approvals: emptyIdMap(),
    modes: [],
    currentModeId: null,
    commandsSig: null,
    cancelRequested: false,
    fatalReported: false,
    children: {},
    audit: initialEngineAuditState(),
  };
}

/**
 * A copy the translator may mutate without touching the prior state. Cheaper than a deep clone: strings
 * are shared (immutable), and values the translator only ever replaces (capabilities, config options,
 * modes) are shared too, so a long message costs O(1) per chunk instead of copying its text each frame.
 * The id-keyed maps (tools, approvals, open requests) are persistent, so they are shared, and an entry is
 * copied only when a step changes it (ownTool / ownApproval): a turn with thousands of open tools, approvals
 * or requests (a flood of permission requests) copies none of them on other frames. Copying the maps on
 * every frame made such a turn quadratic: 2,000 permission requests took 8 s to translate.
 */
export function cloneState(s: AcpState): AcpState {
  return {
    ...s,
    agent: s.agent ? { ...s.agent } : null,
    pendingSession: s.pendingSession ? { ...s.pendingSession } : null,
    message: s.message ? { ...s.message } : null,
    reasoning: s.reasoning ? { ...s.reasoning } : null,
    children: { ...s.children },
  };
}

/** Whether this step's state takes an entry for the first time (then it copies it). */
const ownsFirst = stepOwnership<AcpState>();

/** A tool of this step's state that it may change (its entry copied once, the prior state's left alone). */
export function ownTool(state: AcpState, id: string): ToolState | undefined {
  const tool = idGet(state.tools, id);
  if (!tool || !ownsFirst(state, `tool:${id}`)) return tool;
  const copy = { ...tool, diffs: [...tool.diffs], reported: [...tool.reported] };
  state.tools = idSet(state.tools, id, copy);
  return copy;
}

/** Registers a tool made in this step (nothing to copy when the step changes it later). */
export function addTool(state: AcpState, id: string, tool: ToolState): void {
  ownsFirst(state, `tool:${id}`);
  state.tools = idSet(state.tools, id, tool);
}

/** An approval of this step's state that it may change (copied once, like ownTool). */
export function ownApproval(state: AcpState, id: string): ApprovalState | undefined {
  const approval = idGet(state.approvals, id);
  if (!approval || !ownsFirst(state, `approval:${id}`)) return approval;
  const copy = { ...approval };
  state.approvals = idSet(state.approvals, id, copy);
  return copy;
}
