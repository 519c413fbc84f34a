export { CliError } from './cli-error.js';
export type { CliCommand } from './commands/index.js';
export { commands } from './commands/index.js';
export { serve } from './commands/serve.js';
export * from './config.js';
export { buildDrivers } from './engine-registry.js';
export { buildProgram } from './program.js';
