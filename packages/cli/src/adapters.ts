/**
 * Which package implements each engine type: the one line a new engine adapter adds. Every adapter exports
 * `createDriver(config, services)`; the engine registry imports it only when an engine of that type is
 * configured (so an unused adapter costs nothing), and the config schema accepts exactly these types (plus
 * `external`, turns run by a runtime outside this process, see docs/external-runtimes.md).
 */
export const ADAPTERS = {
  acp: '@agentlane/adapter-acp',
  opencode: '@agentlane/adapter-opencode',
  replay: '@agentlane/adapter-replay',
  builtin: '@agentlane/adapter-builtin',
} as const;

export type AdapterType = keyof typeof ADAPTERS;
