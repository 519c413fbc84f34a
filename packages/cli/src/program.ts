import { Command } from 'commander';
import { printableLines } from './cli-error.js';
import { commands } from './commands/index.js';

export function buildProgram(): Command {
  const program = new Command('agentlane')
    .description('agentlane: run agent engines, one canonical event grammar, durable resumable streams')
    .version('0.1.0')
    .showHelpAfterError()
    .configureOutput({
      // commander's errors quote the arguments they refuse (an unknown option, a surplus argument).
      outputError: (text, write) => write(printableLines(text)),
    });
  for (const command of commands) command.register(program);
  return program;
}
