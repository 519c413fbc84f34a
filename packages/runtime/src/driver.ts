import { type CheckpointSaver, openCheckpointSaver } from '@agentlane/checkpoints';
import type { EngineDriver, EngineSession, TurnInput, TurnIO } from '@agentlane/engine-kit';
import { monotonicFactory } from 'ulid';
import { checkBudget, type TurnBudget } from './budget.js';
import { BUILTIN_CAPABILITIES } from './capabilities.js';
import type { ModelApi, ModelSettings } from './model.js';
import type { ModelTimeouts, RateLimitRetries } from './model-fetch.js';
import type { HarnessPlugin } from './plugin.js';
import { checkPrices, type PriceTable } from './prices.js';
import { BUILTIN_PROVIDER } from './provider-id.js';
import type { SubagentSettings } from './subagent.js';
import type { DefinedTool } from './tools/define-tool.js';
import { type WorkspaceToolOptions, workspaceTools } from './tools/workspace-tools.js';
import { runtimeTranslator } from './translator.js';
import { runStagedTurn, type SessionMemory, type TurnDeps } from './turn.js';

const APIS: readonly ModelApi[] = ['openai-chat', 'openai-responses', 'anthropic', 'google'];

export interface BuiltinDriverConfig {
  name?: string;
  label?: string;
  /** Which provider wire API: openai-chat (any Chat Completions server), openai-responses, anthropic, google. */
  api: ModelApi;
  model: string;
  baseURL?: string;
  /** Prefer the provider's environment variable; a key given here is kept in memory only. */
  apiKey?: string;
  /** Anchor-plan stage on (default true). */
  plan?: boolean;
  /** Model steps in the tool loop before the step limit (default 8). */
  maxSteps?: number;
  /**
   * Per-turn token budget of the tool loop: input + output tokens of the turn's model calls (sub-agents
   * included). Reached before a step: a harness.warning and an answer synthesized without tools. Default off.
   */
  turnTokenBudget?: number;
  /** Per-turn cost budget, in the price table's currency; only for a model `prices` names. Default off. */
  turnCostBudget?: number;
  /**
   * The engine's own limits on a model call: `firstByteMs` (request sent → first stream event, default 120 s)
   * and `idleMs` (between stream events, default 60 s). Keep-alive comments and pings are not progress.
   */
  modelTimeouts?: ModelTimeouts;
  /** A 429 (or a 503 with Retry-After) is sent again: `attempts` (default 3), waits capped at `maxDelayMs` (30 s). */
  rateLimitRetries?: RateLimitRetries;
  /**
   * Terminal output and tool results shown per turn, all calls together (default 8 MB; per command see
   * `workspaceTools.maxCommandOutputBytes`). Past it a harness.warning `output_limit`, run_command writes the
   * rest to its overflow file only, and a result goes to an artifact with a preview in its place.
   */
  turnOutputBytes?: number;
  /** Model text (answers and reasoning) shown per turn (default 1 MB); the rest goes to an artifact. */
  turnTextBytes?: number;
  /** One tool result, as JSON (default 512 KiB); a larger one goes to an artifact, a preview stays. */
  toolResultBytes?: number;
  /** Where overflow files go (default `<tmpdir>/agentlane-tool-output`; also the workspace tools' default). */
  outputDir?: string;
  systemPrompt?: string;
  /** Where checkpoints go: a saver, or the store's SQLite path / postgres URL. None: no resume across processes. */
  checkpoints?: CheckpointSaver | string;
  /** The workspace tools (default on, writes and commands need approval). false: none. */
  workspaceTools?: WorkspaceToolOptions | false;
  tools?: DefinedTool[];
  plugins?: HarnessPlugin[];
  /**
   * The `task` tool (sub-agents as child sessions on the same thread). true: children may not spawn their own
   * (maxDepth 1); `plan` turns on the child's anchor-plan stage. Default off.
   */
  subagents?: boolean | { maxDepth?: number; plan?: boolean };
  /**
   * Model id → price per 1M tokens (input, output, reasoning, cached; currency default USD). usage.updated
   * (step and turn) and the ledger's model rows carry the cost for a model in the table; none otherwise.
   */
  prices?: PriceTable;
  /**
   * Consecutive text, reasoning and tool-input deltas read in one turn of the event loop become one frame
   * (default true). The recorded-turn corpus turns it off: its events are compared one chunk at a time.
   */
  coalesceDeltas?: boolean;
  /** Injected clock and id source (the recorded-turn corpus replays with them). */
  clock?: () => string;
  ids?: () => string;
  modelFactory?: TurnDeps['modelFactory'];
}

function checkConfig(config: BuiltinDriverConfig): void {
  if (!APIS.includes(config.api))
    throw new Error(`api must be one of ${APIS.join(', ')} (got ${String(config.api)})`);
  if (typeof config.model !== 'string' || config.model.length === 0)
    throw new Error('model must be a non-empty string');
  if (config.maxSteps !== undefined && (!Number.isInteger(config.maxSteps) || config.maxSteps < 1))
    throw new Error('maxSteps must be a positive integer');
  checkBudget('turnTokenBudget', config.turnTokenBudget, true);
  checkBudget('turnCostBudget', config.turnCostBudget, false);
  if (config.prices !== undefined) checkPrices(config.prices);
  const t = config.modelTimeouts;
  if (t !== undefined) {
    positiveInteger('modelTimeouts.firstByteMs', t.firstByteMs, 1);
    positiveInteger('modelTimeouts.idleMs', t.idleMs, 1);
  }
  const r = config.rateLimitRetries;
  if (r !== undefined) {
    positiveInteger('rateLimitRetries.attempts', r.attempts, 0);
    positiveInteger('rateLimitRetries.maxDelayMs', r.maxDelayMs, 0);
  }
  positiveInteger('turnOutputBytes', config.turnOutputBytes, 1);
  positiveInteger('turnTextBytes', config.turnTextBytes, 1);
  positiveInteger('toolResultBytes', config.toolResultBytes, 1);
  if (config.outputDir !== undefined && (typeof config.outputDir !== 'string' || config.outputDir === ''))
    throw new Error('outputDir must be a folder path');
  const w = config.workspaceTools;
  if (w) positiveInteger('workspaceTools.maxCommandOutputBytes', w.maxCommandOutputBytes, 1);
  const sub = config.subagents;
  if (
    typeof sub === 'object' &&
    sub.maxDepth !== undefined &&
    (!Number.isInteger(sub.maxDepth) || sub.maxDepth < 1)
  )
    throw new Error('subagents.maxDepth must be a positive integer');
}

function positiveInteger(name: string, value: number | undefined, min: number): void {
  if (value !== undefined && (!Number.isInteger(value) || value < min))
    throw new Error(`${name} must be an integer of at least ${min} (got ${String(value)})`);
}

/** The built-in engine: a staged LLM loop on the AI SDK, registered like every adapter. */
export function createDriver(config: BuiltinDriverConfig): EngineDriver & { dispose(): Promise<void> } {
  checkConfig(config);
  const ulid = monotonicFactory();
  const ids = config.ids ?? (() => ulid());
  const clock = config.clock ?? (() => new Date().toISOString());
  let saverPromise: Promise<CheckpointSaver> | undefined;
  const saver = async (): Promise<CheckpointSaver | undefined> => {
    if (config.checkpoints === undefined) return undefined;
    if (typeof config.checkpoints !== 'string') return config.checkpoints;
    // The SQL layer opens it next to the store: on SQLite a side connection without busy wait (a busy write is
    // retried asynchronously), on PostgreSQL the process's one pool for the database.
    saverPromise ??= openCheckpointSaver(config.checkpoints);
    return saverPromise;
  };
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
  const subagents: SubagentSettings | undefined = config.subagents
    ? {
        depth: 0,
        maxDepth: (typeof config.subagents === 'object' ? config.subagents.maxDepth : undefined) ?? 1,
        plan: (typeof config.subagents === 'object' ? config.subagents.plan : undefined) ?? false,
      }
    : undefined;
  // childSessions is true exactly when the task tool is offered.
  const capabilities = { ...BUILTIN_CAPABILITIES, childSessions: subagents !== undefined };
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
    name: config.name ?? 'builtin',
    provider: BUILTIN_PROVIDER,
    translator: runtimeTranslator as EngineDriver['translator'],
    label: config.label ?? `Built-in engine (${config.api} ${config.model})`,
    async openSession(options): Promise<EngineSession> {
      const memory: SessionMemory = {
        loaded: false,
        conversation: [],
        plan: [],
        checkpointId: undefined,
        version: 0,
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
      return {
        binding,
        runTurn: async (turn: TurnInput, io: TurnIO) =>
          runStagedTurn(
            {
              threadId: options.threadId,
              workspace: options.workDir,
              settings,
              tools,
              plugins,
              saver: await saver(),
              plan: config.plan ?? true,
              maxSteps: config.maxSteps ?? 8,
              budget,
              systemPrompt:
                config.systemPrompt ??
                'You are a coding agent working in a workspace folder. Use the tools to inspect and change files, then answer briefly.',
              clock,
              ids,
              session: memory,
              ...(config.modelFactory ? { modelFactory: config.modelFactory } : {}),
              ...(config.coalesceDeltas === false ? { coalesceDeltas: false } : {}),
              ...(subagents ? { subagents } : {}),
              ...(config.prices ? { prices: config.prices } : {}),
              ...(config.turnOutputBytes ? { turnOutputBytes: config.turnOutputBytes } : {}),
              outputBounds: {
                ...(config.turnTextBytes ? { turnTextBytes: config.turnTextBytes } : {}),
                ...(config.toolResultBytes ? { toolResultBytes: config.toolResultBytes } : {}),
                ...(config.outputDir ? { outputDir: config.outputDir } : {}),
              },
            },
            turn,
            io,
          ),
        close: async () => {},
      };
    },
    async dispose() {
      if (saverPromise) await (await saverPromise).close();
    },
  };
}
