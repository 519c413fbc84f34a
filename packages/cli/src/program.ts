import { Command } from 'commander';
import { commands } from './commands/index.js';

export function buildProgram(): Command {
  const program = new Command('agentlane')
    .description('agentlane: run agent engines, one canonical event grammar, durable resumable streams')
    .version('0.1.0')
    .showHelpAfterError()
    .configureOutput({ outputError: (text, write) => write(text) });
  for (const command of commands) command.register(program);
  return program;
}
