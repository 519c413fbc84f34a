/**
 * @agentlane/runtime: the built-in engine. `createDriver(config)` runs a staged turn (anchor-plan → tool-loop
 * → synthesize → post-turn) on the AI SDK, emitting AI SDK stream parts and its own records as native frames;
 * `runtimeTranslator` turns them into canonical events and audit rows.
 */
export { BUILTIN_CAPABILITIES } from './capabilities';
export { type DiscoveredEngine, discoverEngines } from './discover';
export { type BuiltinDriverConfig, createDriver } from './driver';
export type { RuntimeFrame } from './frames';
export type { ModelApi, ModelSettings } from './model';
export type { HarnessPlugin, PluginTurnContext } from './plugin';
export { costOf, type ModelPrice, type PriceTable } from './prices';
export { BUILTIN_PROVIDER } from './provider-id';
export {
  type ApprovalAsk,
  type DefinedTool,
  defineTool,
  type ToolContext,
  type ToolDefinition,
  ToolError,
} from './tools/define-tool';
export { insideWorkspace } from './tools/workspace-path';
export { type WorkspaceToolOptions, workspaceTools } from './tools/workspace-tools';
export { APPROVAL_OPTIONS, type RuntimeTranslatorState, runtimeTranslator } from './translator';
export { advancePlan, parsePlan } from './turn';
