export { CliError } from './cli-error.js';
export type { CliCommand } from './commands/index.js';
export { commands } from './commands/index.js';
export { serve } from './commands/serve.js';
export {
  ConfigFile,
  DEFAULT_PORT,
  type EngineConfig,
  readConfigFile,
  resolveServeConfig,
  type ServeConfig,
  type ServeFlags,
} from './config.js';
export { buildDrivers } from './engine-registry.js';
export { buildProgram } from './program.js';
