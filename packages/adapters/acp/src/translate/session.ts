import type {
  CapabilityFlag,
  JsonObject,
  ModeInfo,
  ModelInfo,
  NegotiatedCapabilities,
  SessionOrigin,
} from '@agentlane/contract';
import { asObject, asString, compact, isObject, listOf } from '@agentlane/engine-kit';
import { negotiateAcpCapabilities } from './capabilities.js';
import type { Step } from './step.js';

/** What every ACP translation step may need from the translator's options. */
export interface AcpTranslatorConfig {
  provider: string;
  /** Observed flags for traces without a session.bound frame (see capabilities.ts). */
  observed: Partial<Record<CapabilityFlag, boolean>>;
}

/** A session response seen before session.bound (or in a trace without harness frames) starts the session now. */
export function flushPendingSession(step: Step, config: AcpTranslatorConfig): void {
  if (step.state.pendingSession) emitSessionStarted(step, config.provider, null, config.observed);
}

/** initialize result: remember the agent and its capabilities for session.started. */
export function onInitializeResult(step: Step, result: JsonObject): void {
  const info = asObject(result.agentInfo);
  const name = info ? asString(info.name) : undefined;
  if (name) step.state.agent = { name, version: asString(info?.version) ?? null };
  step.state.agentCapabilities = asObject(result.agentCapabilities) ?? null;
}

/** session/new|load|resume result: modes and config options now; session.started once bound. */
export function onSessionResult(
  step: Step,
  origin: SessionOrigin,
  result: JsonObject,
  sessionId: string | null,
): void {
  const state = step.state;
  if (sessionId) state.nativeSessionId = sessionId;
  state.pendingSession = { nativeSessionId: sessionId, origin };
  const modes = asObject(result.modes);
  if (modes) {
    state.modes = listOf(modes.availableModes)
      .filter(isObject)
      .map((m) => ({
        id: asString(m.id) ?? '',
        name: asString(m.name) ?? asString(m.id) ?? '',
        description: asString(m.description) ?? null,
      }))
      .filter((m) => m.id.length > 0);
    state.currentModeId = asString(modes.currentModeId) ?? null;
  }
  const configOptions = listOf(result.configOptions).filter(isObject);
  if (configOptions.length > 0) state.configOptions = configOptions;
  else if (isObject(result.models)) state.configOptions = modelsAsConfigOption(result.models);
  // mode.updated and session.metadata follow session.started (emitted once the session is bound).
}

/** Some agents report models as the unstable `models` field; read it like a model config option. */
function modelsAsConfigOption(models: JsonObject): JsonObject[] {
  const available = listOf(models.availableModels).filter(isObject);
  if (available.length === 0) return [];
  return [
    {
      id: 'model',
      category: 'model',
      type: 'select',
      currentValue: asString(models.currentModelId) ?? '',
      options: available.map((m) => ({
        value: asString(m.modelId) ?? '',
        name: asString(m.name) ?? '',
        description: asString(m.description) ?? '',
      })),
    },
  ];
}

export function modeInfos(step: Step): ModeInfo[] {
  return step.state.modes.map((m) =>
    compact({ id: m.id, name: m.name, description: m.description ?? undefined }),
  );
}

export function emitMode(step: Step): void {
  const state = step.state;
  const modeOption = state.configOptions.find((o) => o.category === 'mode');
  if (modeOption && state.modes.length === 0) {
    state.modes = selectValues(modeOption).map((v) => ({
      id: v.id,
      name: v.name ?? v.id,
      description: v.description ?? null,
    }));
    state.currentModeId = asString(modeOption.currentValue) ?? state.currentModeId;
  }
  if (!state.currentModeId) return;
  step.emitHere({
    kind: 'mode.updated',
    payload: compact({
      currentModeId: state.currentModeId,
      availableModes: state.modes.length ? modeInfos(step) : undefined,
    }),
  });
}

function selectValues(option: JsonObject): ModelInfo[] {
  const values: ModelInfo[] = [];
  for (const entry of listOf(option.options)) {
    if (!isObject(entry)) continue;
    // Options may be flat or grouped ({ group, options: [...] }).
    const members = Array.isArray(entry.options) ? listOf(entry.options).filter(isObject) : [entry];
    for (const m of members) {
      const id = asString(m.value);
      if (id)
        values.push(
          compact({ id, name: asString(m.name), description: asString(m.description) || undefined }),
        );
    }
  }
  return values;
}

/** session.metadata from the config options: the model in use, the models to pick, the reasoning level. */
export function emitMetadata(step: Step): void {
  const options = step.state.configOptions;
  if (options.length === 0) return;
  const model = options.find((o) => o.category === 'model');
  const thought = options.find((o) => o.category === 'thought_level');
  const available = model ? selectValues(model) : [];
  const currentId = model ? asString(model.currentValue) : undefined;
  const current = available.find((m) => m.id === currentId) ?? (currentId ? { id: currentId } : undefined);
  const payload = compact({
    model: current,
    availableModels: available.length ? available : undefined,
    reasoningLevel: thought ? asString(thought.currentValue) : undefined,
  });
  if (Object.keys(payload).length === 0) return;
  step.emitHere({ kind: 'session.metadata', payload });
}

/**
 * session.started, once per run: from the harness's session.bound frame (the truth: generation and the
 * capability map persisted with the session), or, in a trace without harness frames, from the session
 * response with capabilities negotiated here.
 */
export function emitSessionStarted(
  step: Step,
  provider: string,
  bound: {
    origin: SessionOrigin;
    generation: number;
    nativeSessionId?: string;
    capabilities: NegotiatedCapabilities;
    agent?: { name: string; version?: string };
    cwd?: string;
  } | null,
  observed: Partial<Record<CapabilityFlag, boolean>> = {},
): void {
  const state = step.state;
  const pending = state.pendingSession;
  state.pendingSession = null;
  const agent =
    bound?.agent ??
    (state.agent
      ? compact({ name: state.agent.name, version: state.agent.version ?? undefined })
      : undefined);
  const nativeSessionId =
    bound?.nativeSessionId ?? pending?.nativeSessionId ?? state.nativeSessionId ?? undefined;
  if (nativeSessionId) state.nativeSessionId = nativeSessionId;
  const capabilities =
    bound?.capabilities ??
    negotiateAcpCapabilities({
      agentCapabilities: state.agentCapabilities,
      configOptions: state.configOptions,
      hasModes: state.modes.length > 0,
      observed,
      clientWritesFiles: false,
      injectsMcpServers: false,
    });
  state.sessionStarted = true;
  step.emit('session.started', {
    kind: 'session.started',
    payload: compact({
      provider,
      nativeSessionId,
      origin: bound?.origin ?? pending?.origin ?? 'new',
      generation: bound?.generation ?? 1,
      agent,
      cwd: bound?.cwd,
      capabilities,
    }),
  });
  if (pending) {
    emitMode(step);
    emitMetadata(step);
  }
}
