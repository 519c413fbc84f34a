import type { Command } from 'commander';
import type { AcpFlags } from './acp-run.js';
import type { CliCommand } from './command.js';

export const acpCommand: CliCommand = {
  name: 'acp',
  register(program: Command) {
    program
      .command('acp')
      .description('agentlane as an ACP agent over stdio (for Zed, JetBrains, any ACP client)')
      .requiredOption('--engine <name>', 'the configured engine every session runs')
      .option(
        '--db <path|url>',
        'SQLite file or postgres://… URL (env AGENTLANE_DB, default <data-dir>/agentlane.db)',
      )
      .option('--config <file>', 'JSON config file with the engines (env AGENTLANE_CONFIG)')
      .option(
        '--server <url>',
        'a running agentlane server to be a client of (token from env AGENTLANE_TOKEN) instead of an own store',
      )
      .option('--data-dir <dir>', 'folder for the SQLite database (env AGENTLANE_DATA_DIR, default ./.data)')
      // The ACP SDK and the agent side load only when this command runs, not for every `agentlane` command.
      .action(async (flags: AcpFlags) => {
        await (await import('./acp-run.js')).runAcp(flags);
      });
  },
};
