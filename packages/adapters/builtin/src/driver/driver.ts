import type { CheckpointSaver } from '@agentlane/checkpoints';
import type {
  EngineDriver,
  EngineSession,
  OpenSessionOptions,
  TurnInput,
  TurnIO,
} from '@agentlane/engine-kit';
import {
  type ModelSettings,
  runStagedTurn,
  type SessionMemory,
  type SubagentSettings,
  type TurnBudget,
  type TurnDeps,
  workspaceTools,
} from '@agentlane/runtime';
import { monotonicFactory } from 'ulid';
import { BUILTIN_PROVIDER } from '../translate/provider-id.js';
import { runtimeTranslator } from '../translate/translator.js';
import { BUILTIN_CAPABILITIES } from './capabilities.js';
import { type BuiltinDriverConfig, type BuiltinServices, checkConfig } from './config.js';

export type { BuiltinDriverConfig, BuiltinServices };

/** What every turn of every session of one driver shares: the config read once. */
type SharedDeps = Omit<TurnDeps, 'threadId' | 'workspace' | 'saver' | 'session'>;

const DEFAULT_SYSTEM_PROMPT =
  'You are a coding agent working in a workspace folder. Use the tools to inspect and change files, then answer briefly.';

function subagentSettings(config: BuiltinDriverConfig): SubagentSettings | undefined {
  if (!config.subagents) return undefined;
  const sub = typeof config.subagents === 'object' ? config.subagents : undefined;
  return { depth: 0, maxDepth: sub?.maxDepth ?? 1, plan: sub?.plan ?? false };
}

function sharedDeps(config: BuiltinDriverConfig, knownSecrets: readonly string[]): SharedDeps {
  const ulid = monotonicFactory();
  const settings: ModelSettings = {
    api: config.api,
    model: config.model,
    ...(config.baseURL ? { baseURL: config.baseURL } : {}),
    ...(config.apiKey ? { apiKey: config.apiKey } : {}),
    ...(config.modelTimeouts ? { timeouts: config.modelTimeouts } : {}),
    ...(config.rateLimitRetries ? { retries: config.rateLimitRetries } : {}),
  };
  const plugins = config.plugins ?? [];
  const budget: TurnBudget = {
    ...(config.turnTokenBudget !== undefined ? { tokens: config.turnTokenBudget } : {}),
    ...(config.turnCostBudget !== undefined ? { cost: config.turnCostBudget } : {}),
  };
  const subagents = subagentSettings(config);
  const tools = [
    ...(config.workspaceTools === false
      ? []
      : workspaceTools({
          ...(config.outputDir ? { outputDir: config.outputDir } : {}),
          ...(config.workspaceTools ?? {}),
        })),
    ...(config.tools ?? []),
    ...plugins.flatMap((p) => p.tools?.() ?? []),
  ];
  return {
    settings,
    ...(knownSecrets.length > 0 ? { knownSecrets } : {}),
    tools,
    plugins,
    plan: config.plan ?? true,
    maxSteps: config.maxSteps ?? 8,
    budget,
    systemPrompt: config.systemPrompt ?? DEFAULT_SYSTEM_PROMPT,
    clock: config.clock ?? (() => new Date().toISOString()),
    ids: config.ids ?? (() => ulid()),
    ...(config.modelFactory ? { modelFactory: config.modelFactory } : {}),
    ...(config.coalesceDeltas === false ? { coalesceDeltas: false } : {}),
    ...(subagents ? { subagents } : {}),
    ...(config.prices ? { prices: config.prices } : {}),
    ...(config.turnOutputBytes ? { turnOutputBytes: config.turnOutputBytes } : {}),
    outputBounds: {
      ...(config.turnTextBytes ? { turnTextBytes: config.turnTextBytes } : {}),
      ...(config.turnTextOverflowBytes !== undefined
        ? { turnTextOverflowBytes: config.turnTextOverflowBytes }
        : {}),
      ...(config.maxToolCallsPerStep ? { maxToolCallsPerStep: config.maxToolCallsPerStep } : {}),
      ...(config.toolInputBytes ? { toolInputBytes: config.toolInputBytes } : {}),
      ...(config.toolResultBytes ? { toolResultBytes: config.toolResultBytes } : {}),
      ...(config.outputDir ? { outputDir: config.outputDir } : {}),
    },
  };
}

/**
 * Where the driver's checkpoints go: the saver it was given, or the one the services give for the place its
 * config names (asked for on the first turn, like a saver of its own was opened before).
 */
function checkpointSource(
  config: BuiltinDriverConfig,
  services: BuiltinServices,
): () => Promise<CheckpointSaver | undefined> {
  const given = config.checkpoints;
  if (given !== undefined && typeof given !== 'string') return async () => given;
  if (typeof given === 'string' && !services.checkpoints)
    throw new Error('checkpoints names a database, but nothing was given to open it: pass a CheckpointSaver');
  let saver: Promise<CheckpointSaver> | undefined;
  return async () => {
    saver ??= services.checkpoints?.(given);
    return saver;
  };
}

/**
 * The built-in engine: a staged LLM loop on the AI SDK, registered like every adapter. The composition root
 * gives it its checkpoint saver (`config.checkpoints` or `services`); it opens no database itself.
 */
export function createDriver(
  config: BuiltinDriverConfig,
  services: BuiltinServices = {},
): EngineDriver & { dispose(): Promise<void> } {
  checkConfig(config);
  const saver = checkpointSource(config, services);
  const shared = sharedDeps(config, services.secrets ?? []);
  // childSessions is true exactly when the task tool is offered.
  const capabilities = { ...BUILTIN_CAPABILITIES, childSessions: shared.subagents !== undefined };
  return {
    name: config.name ?? 'builtin',
    provider: BUILTIN_PROVIDER,
    translator: runtimeTranslator as EngineDriver['translator'],
    label: config.label ?? `Built-in engine (${config.api} ${config.model})`,
    staticCapabilities: capabilities,
    // Its frames repeat a tool call's input (tool-call part, approval, tool.start, audit row): stored once.
    shareLargeStrings: true,
    async openSession(options): Promise<EngineSession> {
      const session = openSession(config, capabilities, options);
      return {
        binding: session.binding,
        runTurn: async (turn: TurnInput, io: TurnIO) =>
          runStagedTurn(
            {
              ...shared,
              threadId: options.threadId,
              workspace: options.workDir,
              saver: await saver(),
              session: session.memory,
            },
            turn,
            io,
          ),
        close: async () => {},
      };
    },
    // The saver is the composition root's: it closes it.
    async dispose() {},
  };
}

/** A session's memory and binding; records its session.bound frame. */
function openSession(
  config: BuiltinDriverConfig,
  capabilities: typeof BUILTIN_CAPABILITIES,
  options: OpenSessionOptions,
): { memory: SessionMemory; binding: EngineSession['binding'] } {
  const memory: SessionMemory = {
    loaded: false,
    conversation: [],
    plan: [],
    checkpointId: undefined,
    saved: undefined,
  };
  const binding = {
    provider: BUILTIN_PROVIDER,
    nativeSessionId: options.threadId,
    // Never the key: only what is needed to find the same model again.
    runtimeBinding: {
      api: config.api,
      model: config.model,
      ...(config.baseURL ? { baseURL: config.baseURL } : {}),
    },
    protocolVersion: 'ai-sdk-6',
    capabilities,
  };
  options.emit({
    harness: 'session.bound',
    origin: options.previous ? 'resume' : 'new',
    generation: options.generation,
    nativeSessionId: options.threadId,
    capabilities,
    agent: { name: 'agentlane-builtin' },
    cwd: options.workDir,
    protocolVersion: 'ai-sdk-6',
  });
  return { memory, binding };
}
