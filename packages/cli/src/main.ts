import { CliError, formatError } from './cli-error.js';
import { buildProgram } from './program.js';

// A reader that stops early (`agentlane audit ID | head -1`) closes the pipe: the output is no longer wanted,
// which ends the command quietly, as it ends any Unix filter, instead of an unhandled EPIPE with a stack.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(0);
    throw err;
  });
}

try {
  await buildProgram().parseAsync(process.argv);
} catch (err) {
  // Configuration problems are one clear line; anything else is a bug and keeps its stack. Either may quote
  // a URL with a password or an argument with terminal escapes, hence formatError rather than the default.
  console.error(formatError(err));
  process.exit(err instanceof CliError ? err.exitCode : 1);
}
