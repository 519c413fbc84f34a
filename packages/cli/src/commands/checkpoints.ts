import type { Command } from 'commander';
import { CliError } from '../cli-error.js';
import { DEFAULT_PORT } from '../config.js';
import { requestTimeoutMs, TIMEOUT_HELP } from '../http-json.js';
import { bearerToken, serverUrl } from '../remote.js';
import { CheckpointsCommandError, runCheckpointsCommand } from './checkpoints-client.js';
import type { CliCommand } from './command.js';

interface CheckpointsFlags {
  id?: string;
  server?: string;
  token?: string;
  json?: boolean;
  timeoutMs?: string;
}

/** `agentlane checkpoints SESSION [--id ID]`: a session's checkpoints, read from a running server. */
export const checkpointsCommand: CliCommand = {
  name: 'checkpoints',
  register(program: Command) {
    program
      .command('checkpoints')
      .argument('<session>', 'session id')
      .description("list a session's checkpoints (newest first), or print one hydrated checkpoint with --id")
      .option('--id <checkpointId>', 'print this checkpoint, fully hydrated, as contract JSON')
      .option('--server <url>', `server to ask (env AGENTLANE_URL, default http://127.0.0.1:${DEFAULT_PORT})`)
      .option('--token <token>', 'bearer token (env AGENTLANE_TOKEN)')
      .option('--json', 'print the list as JSON pages instead of a table')
      .option('--timeout-ms <ms>', TIMEOUT_HELP)
      .action(async (session: string, flags: CheckpointsFlags) => {
        const token = bearerToken(flags.token);
        const timeoutMs = requestTimeoutMs(flags.timeoutMs);
        try {
          await runCheckpointsCommand({
            server: serverUrl(flags.server),
            session,
            timeoutMs,
            ...(flags.id === undefined ? {} : { id: flags.id }),
            ...(token ? { token } : {}),
            ...(flags.json ? { json: true } : {}),
          });
        } catch (err) {
          if (err instanceof CheckpointsCommandError) throw new CliError(err.message);
          throw err;
        }
      });
  },
};
