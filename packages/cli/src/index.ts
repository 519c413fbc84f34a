export { CliError } from './cli-error';
export type { CliCommand } from './commands';
export { commands } from './commands';
export { serve } from './commands/serve';
export * from './config';
export { buildDrivers } from './engine-registry';
export { buildProgram } from './program';
