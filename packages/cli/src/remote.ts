import { CliError } from './cli-error.js';
import { DEFAULT_PORT } from './config.js';

/** The `--server` input echoed in an error: everything up to its last `@` may be a password. */
const redactInput = (value: string): string => value.replace(/^([a-z][a-z0-9+.-]*:\/\/)?.*@/is, '$1***@');

/**
 * A server URL the commands that talk to a running server accept: http(s), and without credentials, which
 * fetch refuses anyway (the server takes a bearer token) and which must not end up in error messages.
 */
export function parseServerUrl(value: string, source: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new CliError(`${source}: not a URL: ${redactInput(value)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new CliError(`${source}: not an http(s) URL: ${redactInput(value)}`);
  if (url.username || url.password)
    throw new CliError(
      `${source}: ${redactInput(value)} has credentials in it; pass a token with --token (env AGENTLANE_TOKEN)`,
    );
  return url;
}

/** The server of `--server`, else of AGENTLANE_URL, else the local default; checked by parseServerUrl. */
export function serverUrl(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  if (flag !== undefined) parseServerUrl(flag, '--server');
  else if (env.AGENTLANE_URL) parseServerUrl(env.AGENTLANE_URL, 'AGENTLANE_URL');
  return flag ?? (env.AGENTLANE_URL || `http://127.0.0.1:${DEFAULT_PORT}`);
}

/** Why `token` cannot be sent as a header value (fetch would quote it whole in its error), or undefined. */
function tokenFault(token: string): string | undefined {
  const bad = /[^\x21-\x7e]/u.exec(token)?.[0];
  if (bad === undefined) return undefined;
  if (/\p{Cc}/u.test(bad)) return 'a control character';
  return bad === ' ' ? 'a space' : 'a character outside visible ASCII';
}

/**
 * The bearer token of `--token`, else of AGENTLANE_TOKEN (surrounding whitespace dropped, as a header value
 * is; empty: none). Checked up front, and the error does not echo it: it is a secret.
 */
export function bearerToken(
  flag: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): string | undefined {
  const source = flag !== undefined ? '--token' : 'AGENTLANE_TOKEN';
  const token = (flag ?? env.AGENTLANE_TOKEN)?.trim();
  if (!token) return undefined;
  const fault = tokenFault(token);
  if (fault) throw new CliError(`${source}: not a valid bearer token (it has ${fault})`);
  return token;
}
