import type { Command } from 'commander';
import { CliError } from '../cli-error.js';
import { DEFAULT_PORT } from '../config.js';
import { createProgress } from '../progress.js';
import { bearerToken, serverUrl } from '../remote.js';
import type { CliCommand } from './command.js';

interface AuditFlags {
  server?: string;
  token?: string;
}

/** Pages through GET /sessions/:id/audit and writes one ledger row per line (JSONL). */
export async function runAuditCommand(options: {
  server: string;
  session: string;
  token?: string;
  write?: (line: string) => void;
  /** Progress lines (stderr by default), shown once the export takes more than a second. */
  progress?: (line: string) => void;
}): Promise<number> {
  const write = options.write ?? ((line: string) => process.stdout.write(`${line}\n`));
  let cursor: string | null = null;
  let count = 0;
  const progress = createProgress(`agentlane audit ${options.session}`, 'rows exported', {
    ...(options.progress ? { write: options.progress } : {}),
  });
  do {
    const url = new URL(`/api/harness/sessions/${encodeURIComponent(options.session)}/audit`, options.server);
    url.searchParams.set('limit', '500');
    if (cursor) url.searchParams.set('cursor', cursor);
    let res: Response;
    try {
      res = await fetch(url, { headers: options.token ? { authorization: `Bearer ${options.token}` } : {} });
    } catch (err) {
      throw new CliError(`cannot reach ${options.server} (${(err as Error).message})`);
    }
    const body = (await res.json().catch(() => null)) as {
      calls?: unknown[];
      nextCursor?: string | null;
      error?: { message?: string };
    } | null;
    if (!res.ok)
      throw new CliError(`audit of ${options.session}: ${res.status} ${body?.error?.message ?? ''}`.trim());
    for (const row of body?.calls ?? []) {
      write(JSON.stringify(row));
      count++;
    }
    cursor = body?.nextCursor ?? null;
    progress.update(count);
  } while (cursor);
  progress.finish(`${count.toLocaleString('en-US')} rows exported`);
  return count;
}

/** `agentlane audit SESSION`: the session's audit ledger as JSONL, read from a running server. */
export const auditCommand: CliCommand = {
  name: 'audit',
  register(program: Command) {
    program
      .command('audit')
      .argument('<session>', 'session id')
      .description("print a session's audit ledger (one model or tool call per line, JSONL, oldest first)")
      .option('--server <url>', `server to ask (env AGENTLANE_URL, default http://127.0.0.1:${DEFAULT_PORT})`)
      .option('--token <token>', 'bearer token (env AGENTLANE_TOKEN)')
      .action(async (session: string, flags: AuditFlags) => {
        const token = bearerToken(flags.token);
        await runAuditCommand({ server: serverUrl(flags.server), session, ...(token ? { token } : {}) });
      });
  },
};
