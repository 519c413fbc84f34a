import { CliError, formatError } from './cli-error.js';
import { buildProgram } from './program.js';

try {
  await buildProgram().parseAsync(process.argv);
} catch (err) {
  // Configuration problems are one clear line; anything else is a bug and keeps its stack. Either may quote
  // a URL with a password or an argument with terminal escapes, hence formatError rather than the default.
  console.error(formatError(err));
  process.exit(err instanceof CliError ? err.exitCode : 1);
}
