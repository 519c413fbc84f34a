import type { CheckpointSaver } from '@agentlane/checkpoints';
import {
  checkBudget,
  checkPrices,
  type DefinedTool,
  type HarnessPlugin,
  type ModelApi,
  type ModelTimeouts,
  type PriceTable,
  type RateLimitRetries,
  type TurnDeps,
  type WorkspaceToolOptions,
} from '@agentlane/runtime';

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
   * The engine's own limits on a model call: `firstByteMs` (request sent → first stream event, default 120 s),
   * `idleMs` (between stream events, default 60 s) and `totalMs` (the whole call, rate-limit waits included,
   * default 10 min). Keep-alive comments, pings and empty chunks are not progress.
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
  /**
   * Model text per turn past `turnTextBytes` kept in the artifact (default 8 MB); past it the model call is
   * stopped and the turn fails (a harness.warning `model_text_limit` says so).
   */
  turnTextOverflowBytes?: number;
  /** Tool calls of one model step that are run (default 128); the calls past it are refused, not run. */
  maxToolCallsPerStep?: number;
  /**
   * Tool-call input one model call streams, all its tool calls together (default 16 MiB); past it the model call
   * is stopped and the turn fails (a harness.warning `model_tool_input_limit` says so).
   */
  toolInputBytes?: number;
  /** One tool result, as JSON (default 512 KiB); a larger one goes to an artifact, a preview stays. */
  toolResultBytes?: number;
  /** Where overflow files go (default `<tmpdir>/agentlane-tool-output`; also the workspace tools' default). */
  outputDir?: string;
  systemPrompt?: string;
  /**
   * Where checkpoints go: a saver, or (from a config file) the SQLite path / postgres URL of a database, which
   * the composition root opens through {@link BuiltinServices}. None: the services' default (the server's
   * database under `agentlane serve`); without services either, no resume across processes.
   */
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

/**
 * What the composition root (the CLI's engine registry, a test stack) gives the driver: the driver opens no
 * database itself. `checkpoints(place)` is the saver of the database at `place` (the server's own when absent),
 * opened once by the caller and closed by it; undefined when there is no database to keep them in.
 */
export interface BuiltinServices {
  checkpoints?(place?: string): Promise<CheckpointSaver> | undefined;
  /** Values the host knows to be secret (its tokens, other engines' keys, database passwords): redacted too. */
  secrets?: readonly string[];
}

export function checkConfig(config: BuiltinDriverConfig): void {
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
    positiveInteger('modelTimeouts.totalMs', t.totalMs, 1);
  }
  const r = config.rateLimitRetries;
  if (r !== undefined) {
    positiveInteger('rateLimitRetries.attempts', r.attempts, 0);
    positiveInteger('rateLimitRetries.maxDelayMs', r.maxDelayMs, 0);
  }
  positiveInteger('turnOutputBytes', config.turnOutputBytes, 1);
  positiveInteger('turnTextBytes', config.turnTextBytes, 1);
  positiveInteger('turnTextOverflowBytes', config.turnTextOverflowBytes, 0);
  positiveInteger('maxToolCallsPerStep', config.maxToolCallsPerStep, 1);
  positiveInteger('toolInputBytes', config.toolInputBytes, 1);
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
