import type { ChildState, JsonObject, StopReason } from '@agentlane/contract';
import {
  asArray,
  asBoolean,
  asNumber,
  asObject,
  asString,
  jsonKey,
  openTurnOnce,
} from '@agentlane/engine-kit';
import { OPENCODE_CAPABILITIES } from './capabilities.js';
import { cancelOpenInteractions } from './interactions.js';
import { isOurSession, namespaceOf } from './session-tree.js';
import {
  type ChildSessionState,
  entriesOf,
  entryOf,
  nextCount,
  type OpenCodeState,
  ownEntry,
  putEntry,
} from './state.js';
import type { Step } from './step.js';
import { closeOpenParts } from './text-parts.js';
import { closeOpenTools } from './tool-parts.js';

/**
 * Sessions, children and turn boundaries. The run's own session is the root; sessions created with a
 * parentID in the tree are child sessions whose events carry a namespace (the path of child ids).
 */

export function onSessionCreated(out: Step, props: JsonObject): void {
  const state = out.state;
  const info = asObject(props.info);
  const id = asString(info?.id) ?? asString(props.sessionID);
  if (!info || !id) {
    out.warn('opencode.malformed_session', 'session.created without info.id');
    return;
  }
  const parentId = asString(info.parentID);
  if (parentId) {
    if (!isOurSession(state, parentId) || entryOf(state, 'children', id)) return;
    // The task tool that is running in the parent session is the one that spawned this child.
    const spawner = entriesOf(state, 'tools').find(
      ([, tool]) => tool.name === 'task' && !tool.done && tool.sessionId === parentId && !tool.childSessionId,
    );
    const spawnerTool = spawner ? ownEntry(state, 'tools', spawner[0]) : undefined;
    if (spawnerTool) spawnerTool.childSessionId = id;
    putEntry(state, 'children', id, {
      parentSessionId: parentId,
      parentToolCallId: spawner?.[0] ?? null,
      state: 'running',
      completed: false,
    });
    const payload: { childSessionId: string; parentToolCallId?: string; title?: string } = {
      childSessionId: id,
    };
    if (spawner) payload.parentToolCallId = spawner[0];
    const title = asString(info.title);
    if (title) payload.title = title;
    out.emit(
      `child.started:${id}`,
      { kind: 'child.started', payload },
      { identity: { nativeSessionId: id }, namespace: namespaceOf(state, parentId) },
    );
    return;
  }
  if (state.rootSessionId === null) state.rootSessionId = id;
  if (id !== state.rootSessionId) return;
  state.directory = asString(info.directory) ?? state.directory;
  const title = asString(info.title);
  if (state.sessionStarted) {
    updateMetadata(out, info);
    return;
  }
  state.sessionStarted = true;
  state.title = title ?? null;
  const version = asString(info.version);
  out.emit('session.started', {
    kind: 'session.started',
    payload: {
      provider: 'opencode',
      nativeSessionId: id,
      origin: 'new',
      generation: 1,
      agent: version ? { name: 'opencode', version } : { name: 'opencode' },
      ...(state.directory ? { cwd: state.directory } : {}),
      ...(title ? { title } : {}),
      capabilities: OPENCODE_CAPABILITIES,
    },
  });
}

/** session.updated of the root: title, model and agent (mode) changes, and the session's token totals. */
export function onSessionUpdated(out: Step, props: JsonObject): void {
  const info = asObject(props.info);
  const id = asString(info?.id) ?? asString(props.sessionID);
  if (!info || !id || id !== out.state.rootSessionId) return;
  updateMetadata(out, info);
  const tokens = asObject(info.tokens);
  const input = asNumber(tokens?.input) ?? 0;
  const output = asNumber(tokens?.output) ?? 0;
  if (!tokens || input + output === 0) return;
  const cache = asObject(tokens.cache);
  const usage = {
    scope: 'session' as const,
    inputTokens: input,
    outputTokens: output,
    reasoningTokens: asNumber(tokens.reasoning) ?? 0,
    cachedInputTokens: asNumber(cache?.read) ?? 0,
    cacheWriteTokens: asNumber(cache?.write) ?? 0,
    ...costOf(info.cost),
  };
  const key = jsonKey(usage);
  if (key === out.state.sessionUsageJson) return;
  out.state.sessionUsageJson = key;
  out.emit(`usage.session:${nextCount(out.state, 'usage.session')}`, {
    kind: 'usage.updated',
    payload: usage,
  });
}

export function costOf(value: JsonObject[string] | undefined): {
  cost?: { amount: number; currency: string };
} {
  const amount = asNumber(value);
  return amount === undefined ? {} : { cost: { amount, currency: 'USD' } };
}

function updateMetadata(out: Step, info: JsonObject): void {
  const state = out.state;
  const title = asString(info.title);
  const model = asObject(info.model);
  const modelId = model
    ? joinModel(asString(model.providerID), asString(model.id) ?? asString(model.modelID))
    : null;
  const payload: { title?: string; model?: { id: string } } = {};
  if (title && title !== state.title) {
    state.title = title;
    payload.title = title;
  }
  if (modelId && modelId !== state.modelId) {
    state.modelId = modelId;
    payload.model = { id: modelId };
  }
  if (payload.title !== undefined || payload.model !== undefined) {
    out.emit(`session.metadata:${nextCount(state, 'metadata')}`, { kind: 'session.metadata', payload });
  }
  const agent = asString(info.agent);
  if (agent) updateMode(out, agent);
}

export function updateMode(out: Step, agent: string): void {
  if (agent === out.state.modeId) return;
  out.state.modeId = agent;
  out.emit(`mode.updated:${nextCount(out.state, 'mode')}`, {
    kind: 'mode.updated',
    payload: { currentModeId: agent },
  });
}

/** Models are named `provider/model`, as in OpenCode's own config; the driver splits them back. */
export function joinModel(providerId: string | undefined, modelId: string | undefined): string | null {
  if (!modelId) return null;
  return providerId ? `${providerId}/${modelId}` : modelId;
}

export function onSessionStatus(out: Step, sessionId: string | undefined, type: string, props: JsonObject) {
  const state = out.state;
  if (sessionId && sessionId !== state.rootSessionId && entryOf(state, 'children', sessionId)) {
    const childState: ChildState = type === 'busy' ? 'running' : type === 'idle' ? 'idle' : 'unknown';
    updateChild(out, sessionId, childState);
    return;
  }
  if (type === 'busy') {
    if (state.turn === 'none') openTurnOnce(out, {});
  } else if (type === 'idle') {
    if (state.turn === 'open') completeTurn(out, null);
  } else if (type === 'retry') {
    const status = asObject(props.status);
    out.warn('opencode.retry', asString(status?.message) ?? 'the engine is retrying the model request', {
      attempt: asNumber(status?.attempt) ?? null,
    });
  }
}

export function updateChild(out: Step, childId: string, childState: ChildState): void {
  const seen = entryOf(out.state, 'children', childId);
  if (!seen || seen.completed || seen.state === childState) return;
  const child = ownEntry(out.state, 'children', childId) as ChildSessionState;
  child.state = childState;
  out.emit(
    `child.updated:${childId}:${nextCount(out.state, `child:${childId}`)}`,
    { kind: 'child.updated', payload: { childSessionId: childId, state: childState } },
    { identity: { nativeSessionId: childId }, namespace: namespaceOf(out.state, child.parentSessionId) },
  );
}

export function completeChild(
  out: Step,
  childId: string,
  status: 'completed' | 'failed' | 'cancelled',
  summary: string | undefined,
): void {
  const seen = entryOf(out.state, 'children', childId);
  if (!seen || seen.completed) return;
  const child = ownEntry(out.state, 'children', childId) as ChildSessionState;
  child.completed = true;
  const payload: { childSessionId: string; status: typeof status; summary?: string } = {
    childSessionId: childId,
    status,
  };
  if (summary) payload.summary = summary.slice(0, 2048);
  out.emit(
    `child.completed:${childId}`,
    { kind: 'child.completed', payload },
    { identity: { nativeSessionId: childId }, namespace: namespaceOf(out.state, child.parentSessionId) },
  );
}

/** Ends the turn once: session.status idle and session.idle (and the harness's turn.ended) all lead here. */
export function completeTurn(out: Step, forced: StopReason | null): void {
  const state = out.state;
  if (state.turn === 'closed') return;
  // A session that went idle (or a turn that ended) waits on nobody: whatever is still asked is over, and
  // left open it would keep a client waiting on a request no one can answer any more.
  cancelOpenInteractions(out);
  state.turn = 'closed';
  const stopReason = forced ?? stopReasonOf(state);
  // A turn cut short settles what it left open before it ends, so a client that stops at turn.completed sees
  // the tool cancelled (OpenCode reports an aborted tool part, and the message, after the session is idle).
  if (stopReason === 'cancelled' || stopReason === 'error') {
    closeOpenTools(out);
    closeOpenParts(out);
  }
  const payload: { stopReason: StopReason; rawStopReason?: string; durationMs?: number } = { stopReason };
  if (stopReason === 'other' && state.lastFinish) payload.rawStopReason = state.lastFinish;
  if (state.turnStartedAt) {
    const ms = Date.parse(out.receivedAt) - Date.parse(state.turnStartedAt);
    if (Number.isFinite(ms) && ms >= 0) payload.durationMs = ms;
  }
  out.emit('turn.completed', { kind: 'turn.completed', payload });
}

function stopReasonOf(state: OpenCodeState): StopReason {
  if (state.aborted || state.cancelRequested) return 'cancelled';
  if (state.errorMessage !== null) return 'error';
  switch (state.lastFinish) {
    case null:
    case 'stop':
    case 'end_turn':
    case 'tool-calls':
      return 'end_turn';
    case 'length':
      return 'max_tokens';
    case 'content-filter':
      return 'refusal';
    default:
      return 'other';
  }
}

/** session.error: a user abort is a cancel, not an error; the rest are harness errors. */
export function onSessionError(out: Step, props: JsonObject): void {
  const error = asObject(props.error);
  const name = asString(error?.name) ?? 'UnknownError';
  if (name === 'MessageAbortedError') {
    out.state.aborted = true;
    return;
  }
  reportError(out, error, name);
}

export function reportError(out: Step, error: JsonObject | undefined, name: string): void {
  const data = asObject(error?.data);
  const message = asString(data?.message) ?? asString(error?.message) ?? name;
  if (out.state.errorMessage === message) return;
  out.state.errorMessage = message;
  const fatal =
    name === 'ProviderAuthError' || (name === 'APIError' && asBoolean(data?.isRetryable) === false);
  out.emit(`harness.error:${out.frameKey}`, {
    kind: 'harness.error',
    payload: { code: `opencode.${name}`, message, fatal, detail: error ?? null },
  });
}

/** The model list (the response of GET /config/providers, recorded by the driver) → availableModels. */
export function onProviders(out: Step, props: JsonObject): void {
  const providers = asArray(props.providers) ?? [];
  const available: { id: string; name?: string }[] = [];
  for (const provider of providers) {
    const p = asObject(provider);
    const providerId = asString(p?.id);
    const models = asObject(p?.models);
    if (!providerId || !models) continue;
    for (const [modelKey, model] of Object.entries(models)) {
      const m = asObject(model);
      const id = joinModel(providerId, asString(m?.id) ?? modelKey);
      if (!id) continue;
      const name = asString(m?.name);
      available.push(name ? { id, name } : { id });
    }
  }
  const defaults = asObject(props.default);
  const payload: { availableModels: { id: string; name?: string }[]; model?: { id: string } } = {
    availableModels: available,
  };
  const first = available[0];
  const defaultProvider = first?.id.split('/')[0];
  const defaultModel = defaultProvider ? asString(defaults?.[defaultProvider]) : undefined;
  const current = out.state.modelId ?? (defaultModel ? `${defaultProvider}/${defaultModel}` : null);
  if (current) {
    out.state.modelId = current;
    payload.model = { id: current };
  }
  out.emit(`session.metadata:${nextCount(out.state, 'metadata')}`, { kind: 'session.metadata', payload });
}
