import type { Command } from 'commander';
import { CliError } from '../cli-error.js';
import { DEFAULT_PORT } from '../config.js';
import {
  DEFAULT_REQUEST_TIMEOUT_MS,
  getJson,
  isObject,
  requestTimeoutMs,
  TIMEOUT_HELP,
} from '../http-json.js';
import { forEachPage, nextCursorOf } from '../paging.js';
import { createProgress } from '../progress.js';
import { bearerToken, serverUrl } from '../remote.js';
import type { CliCommand } from './command.js';

interface AuditFlags {
  server?: string;
  token?: string;
  timeoutMs?: string;
}

/**
 * The body of one audit page, checked: a server that is not agentlane (or a proxy's error page) answers 200
 * with something else, which must not pass as an empty ledger.
 */
function auditPage(body: unknown, server: string): { calls: unknown[]; nextCursor: string | null } {
  const cursor = isObject(body) ? nextCursorOf(body) : undefined;
  if (!isObject(body) || !Array.isArray(body.calls) || !body.calls.every(isObject) || cursor === undefined)
    throw new CliError(
      `${server} did not answer with an audit page ({calls: [...], nextCursor}); is it an agentlane server?`,
    );
  return { calls: body.calls, nextCursor: cursor };
}

/** Pages through GET /sessions/:id/audit and writes one ledger row per line (JSONL). */
export async function runAuditCommand(options: {
  server: string;
  session: string;
  token?: string;
  /** How long one page may take (ms; default 30 s). */
  timeoutMs?: number;
  write?: (line: string) => void;
  /** Progress lines (stderr by default), shown once the export takes more than a second. */
  progress?: (line: string) => void;
}): Promise<number> {
  const write = options.write ?? ((line: string) => process.stdout.write(`${line}\n`));
  let count = 0;
  const progress = createProgress(`agentlane audit ${options.session}`, 'rows exported', {
    ...(options.progress ? { write: options.progress } : {}),
  });
  const fetchPage = async (cursor: string | null) => {
    const url = new URL(`/api/harness/sessions/${encodeURIComponent(options.session)}/audit`, options.server);
    url.searchParams.set('limit', '500');
    if (cursor) url.searchParams.set('cursor', cursor);
    const { res, body } = await getJson(url, {
      server: options.server,
      headers: options.token ? { authorization: `Bearer ${options.token}` } : {},
      timeoutMs: options.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
      fail: (message) => new CliError(message),
    });
    if (!res.ok) {
      const message = isObject(body) && isObject(body.error) ? body.error.message : undefined;
      throw new CliError(
        `audit of ${options.session}: ${res.status} ${typeof message === 'string' ? message : ''}`.trim(),
      );
    }
    return auditPage(body, options.server);
  };
  await forEachPage(
    fetchPage,
    (page) => {
      for (const row of page.calls) {
        write(JSON.stringify(row));
        count++;
      }
      progress.update(count);
      return page.calls.length;
    },
    (cursor) =>
      new CliError(
        `audit of ${options.session}: ${options.server} repeated the cursor ${JSON.stringify(cursor)}; stopped paging`,
      ),
    (pages) =>
      new CliError(
        `audit of ${options.session}: ${options.server} sent ${pages} empty pages in a row; stopped paging`,
      ),
  );
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
      .option('--timeout-ms <ms>', TIMEOUT_HELP)
      .action(async (session: string, flags: AuditFlags) => {
        const token = bearerToken(flags.token);
        await runAuditCommand({
          server: serverUrl(flags.server),
          session,
          timeoutMs: requestTimeoutMs(flags.timeoutMs),
          ...(token ? { token } : {}),
        });
      });
  },
};
