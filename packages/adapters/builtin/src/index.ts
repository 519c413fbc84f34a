/**
 * @agentlane/adapter-builtin: the built-in engine as an adapter. `createDriver(config)` runs the agent loop of
 * `@agentlane/runtime` (a staged turn on the AI SDK) and records its frames; `runtimeTranslator` turns them
 * into canonical events and audit rows.
 */

// What a config of the driver names, from the loop's package (so an embedder needs one import).
export {
  type DefinedTool,
  defineTool,
  type HarnessPlugin,
  type ModelApi,
  type ToolDefinition,
  ToolError,
} from '@agentlane/runtime';
export { BUILTIN_CAPABILITIES } from './driver/capabilities.js';
export { type DiscoveredEngine, discoverEngines } from './driver/discover.js';
export { type BuiltinDriverConfig, type BuiltinServices, createDriver } from './driver/driver.js';
export { BUILTIN_PROVIDER } from './translate/provider-id.js';
export { APPROVAL_OPTIONS, type RuntimeTranslatorState } from './translate/state.js';
export { runtimeTranslator } from './translate/translator.js';
