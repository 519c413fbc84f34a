/**
 * @agentlane/runtime: the built-in engine's agent loop. `runStagedTurn(deps, turn, io)` runs one staged turn
 * (anchor-plan → tool-loop → synthesize → post-turn) on the AI SDK and emits AI SDK stream parts and the
 * runtime's own records as native frames (`RuntimeFrame`). The adapter `@agentlane/adapter-builtin` holds the
 * driver around it and the pure translator of those frames.
 */
export { checkBudget, type LimitCode, type TurnBudget } from './budget.js';
export type { RuntimeFrame } from './frames.js';
export { createModel, type ModelApi, type ModelSettings } from './model.js';
export type { ModelTimeouts, RateLimitRetries } from './model-fetch.js';
export type { HarnessPlugin, PluginTurnContext } from './plugin.js';
export { checkPrices, costOf, type ModelPrice, type PriceTable } from './prices.js';
export type { SubagentSettings } from './subagent.js';
export { type CommandIsolation, commandIsolation } from './tools/command-isolation.js';
export {
  type ApprovalAsk,
  type DefinedTool,
  defineTool,
  type ToolContext,
  type ToolDefinition,
  ToolError,
} from './tools/define-tool.js';
export { insideWorkspace } from './tools/workspace-path.js';
export { type WorkspaceToolOptions, workspaceTools } from './tools/workspace-tools.js';
export type { SessionMemory, TurnDeps } from './turn/deps.js';
export { advancePlan, parsePlan } from './turn/plan.js';
export { runStagedTurn } from './turn/run.js';
