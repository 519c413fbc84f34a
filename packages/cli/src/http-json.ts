import { parseCount } from './run-settings.js';

/** How long `audit` and `checkpoints` wait for one answer of the server (headers and body) by default. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;

/** The help text of the `--timeout-ms` option of the commands that ask a running server. */
export const TIMEOUT_HELP = `give up on a request the server has not fully answered after this long (env AGENTLANE_TIMEOUT_MS, default ${DEFAULT_REQUEST_TIMEOUT_MS})`;

/** The request timeout of `--timeout-ms`, else of AGENTLANE_TIMEOUT_MS, else the default; at most an hour. */
export function requestTimeoutMs(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): number {
  if (flag !== undefined) return parseCount(flag, '--timeout-ms', 1, 3_600_000);
  if (env.AGENTLANE_TIMEOUT_MS)
    return parseCount(env.AGENTLANE_TIMEOUT_MS, 'AGENTLANE_TIMEOUT_MS', 1, 3_600_000);
  return DEFAULT_REQUEST_TIMEOUT_MS;
}

export const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * GET `url` and its JSON body (null when the body is not JSON), within `timeoutMs` for the whole answer: a
 * server that accepts the connection and never answers, or stalls mid-body, must not hang the command.
 * Failures become `fail(message)`, the message naming the server and what went wrong.
 */
export async function getJson(
  url: string | URL,
  options: {
    server: string;
    headers: Record<string, string>;
    timeoutMs: number;
    fail: (message: string) => Error;
    fetch?: typeof fetch;
  },
): Promise<{ res: Response; body: unknown }> {
  const signal = AbortSignal.timeout(options.timeoutMs);
  const timedOut = () =>
    options.fail(
      `${options.server} did not answer within ${options.timeoutMs} ms (raise it with --timeout-ms or AGENTLANE_TIMEOUT_MS)`,
    );
  let res: Response;
  try {
    // A redirect is not followed: to another origin it answered for another server (the token dropped), and a
    // command exported that server's empty answer with exit 0.
    res = await (options.fetch ?? fetch)(url, { headers: options.headers, signal, redirect: 'manual' });
  } catch (err) {
    if (signal.aborted) throw timedOut();
    throw options.fail(`cannot reach ${options.server} (${(err as Error).message})`);
  }
  if (res.status >= 300 && res.status < 400) {
    const to = res.headers.get('location') ?? 'nowhere';
    throw options.fail(
      `${options.server} answered ${res.status}, a redirect to ${to}: not followed (give --server the address it redirects to)`,
    );
  }
  const body = await res.json().catch(() => null);
  // A body cut off by the timeout is not "not JSON": say that the server was too slow.
  if (signal.aborted && body === null) throw timedOut();
  return { res, body };
}
