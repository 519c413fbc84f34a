/**
 * The environment a command runs with: the server's, without its secrets. A command's output goes to the
 * terminal events, the audit rows and back to the model, so `env` (or a hostile prompt asking for
 * `echo $OPENAI_API_KEY`) must find no provider key or server token to print. Dropped:
 * - the variables the server and the providers read their keys and tokens from (SECRET_NAMES);
 * - any variable whose name ends in _KEY, _TOKEN(S), _SECRET, _PASSWORD, _PASSWD or _CREDENTIALS, or holds
 *   SECRET or PASSWORD (any case): the usual names of credentials (AWS_SECRET_ACCESS_KEY, GITHUB_TOKEN …);
 * - any variable whose value is or holds a secret the tool context knows (the model's API key from the
 *   config), or is a URL with a password in it (postgres://user:pw@host).
 * Everything else (PATH, HOME, LANG, proxies without credentials …) is passed on.
 */
const SECRET_NAMES = new Set([
  'OPENAI_API_KEY',
  'ANTHROPIC_API_KEY',
  'GEMINI_API_KEY',
  'GOOGLE_GENERATIVE_AI_API_KEY',
  'GOOGLE_API_KEY',
  'AGENTLANE_TOKEN',
  'AGENTLANE_TOKENS',
]);

const SECRET_NAME = /(_KEY|_TOKENS?|_SECRET|_PASSWORD|_PASSWD|_CREDENTIALS)$|SECRET|PASSWORD/i;

/** A URL carrying a password: scheme://user:password@host. */
const URL_WITH_PASSWORD = /^[a-z][a-z0-9+.-]*:\/\/[^/@\s:]*:[^/@\s]+@/i;

/** Secrets shorter than this are only dropped on an exact match (a 3-letter "key" would match everywhere). */
const MIN_CONTAINED = 8;

export function isSecretVariable(name: string, value: string, secrets: readonly string[] = []): boolean {
  if (SECRET_NAMES.has(name.toUpperCase()) || SECRET_NAME.test(name)) return true;
  if (URL_WITH_PASSWORD.test(value)) return true;
  return secrets.some(
    (s) => s.length > 0 && (value === s || (s.length >= MIN_CONTAINED && value.includes(s))),
  );
}

/** `env` without its secrets (see above). */
export function commandEnv(env: NodeJS.ProcessEnv, secrets: readonly string[] = []): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env))
    if (value !== undefined && !isSecretVariable(name, value, secrets)) out[name] = value;
  return out;
}
