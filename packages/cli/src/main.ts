import { CliError } from './cli-error.js';
import { buildProgram } from './program.js';

try {
  await buildProgram().parseAsync(process.argv);
} catch (err) {
  // Configuration problems are one clear line; anything else is a bug and keeps its stack.
  if (err instanceof CliError) {
    console.error(`agentlane: ${err.message}`);
    process.exit(err.exitCode);
  }
  throw err;
}
