/**
 * @agentlane/runtime: the built-in engine. `createDriver(config)` runs a staged turn (anchor-plan → tool-loop
 * → synthesize → post-turn) on the AI SDK, emitting AI SDK stream parts and its own records as native frames;
 * `runtimeTranslator` turns them into canonical events and audit rows.
 */
export { BUILTIN_CAPABILITIES } from './capabilities.js';
export { type DiscoveredEngine, discoverEngines } from './discover.js';
export { type BuiltinDriverConfig, createDriver } from './driver.js';
export type { RuntimeFrame } from './frames.js';
export type { ModelApi, ModelSettings } from './model.js';
export type { HarnessPlugin, PluginTurnContext } from './plugin.js';
export { costOf, type ModelPrice, type PriceTable } from './prices.js';
export { BUILTIN_PROVIDER } from './provider-id.js';
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
export { APPROVAL_OPTIONS, type RuntimeTranslatorState, runtimeTranslator } from './translator.js';
export { advancePlan, parsePlan } from './turn.js';
