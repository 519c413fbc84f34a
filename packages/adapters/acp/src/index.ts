// The public surface of the ACP adapter: the driver, its config and presets, the translator. Internals that
// tests and benchmarks reach for are in `@agentlane/adapter-acp/internal`.
export type { AcpEngineConfig } from './driver/config.js';
export { type AcpEngineOptions, parseAcpEngineOptions } from './driver/config-schema.js';
export { discoverEngines } from './driver/discover.js';
export { createDriver } from './driver/driver.js';
export {
  claudeCodePreset,
  clinePreset,
  codexPreset,
  copilotPreset,
  geminiPreset,
  openCodeAcpPreset,
  type PresetOptions,
  piPreset,
  qwenCodePreset,
} from './driver/presets.js';
export * from './translate/index.js';
