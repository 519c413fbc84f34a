import { CliError } from './cli-error';
import { buildProgram } from './program';

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
