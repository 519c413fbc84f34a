import { resolve } from 'node:path';
import { SecretRedactor, secretsFromEnv, urlSecretsOf } from '@agentlane/engine-kit';
import { type EngineConfig, readConfigFile } from './config.js';
import { discoverEngines, type EngineOffer } from './engine-registry.js';

/** Option names whose string value is a credential (`apiKey`, `token`, `ANTHROPIC_API_KEY` in an env map). */
const CREDENTIAL_OPTION = /(?:api[-_]?key|token|secret|password)s?$/i;

/**
 * The redactor of everything this process knows to be secret: the environment's provider keys and
 * credential-shaped variables, the variables engine entries name (`apiKeyEnv`, the variables a found engine
 * needs), credential options written in entries or kept in memory by discovery, and the server's tokens.
 * Values shorter than 8 characters are not looked for (see SecretRedactor).
 */
export function serverRedactor(o: ServerSecretsOf = {}): SecretRedactor {
  return new SecretRedactor(serverSecrets(o));
}

/** Where the server's secrets are found (see serverRedactor). */
interface ServerSecretsOf {
  env?: NodeJS.ProcessEnv;
  engines?: readonly EngineConfig[];
  offers?: readonly EngineOffer[];
  tokens?: readonly { token: string }[];
  /** Database URLs the server was given (`db`): their passwords. */
  databases?: readonly (string | undefined)[];
}

/** The secret values serverRedactor looks for (also given to the engines: services.secrets). */
export function serverSecrets(o: ServerSecretsOf): string[] {
  const env = o.env ?? process.env;
  const names: string[] = [];
  const values: string[] = [];
  const entries: unknown[] = [...(o.engines ?? [])];
  for (const offer of o.offers ?? []) {
    entries.push(offer.entry, offer.inMemory);
    names.push(...offer.env);
  }
  for (const entry of entries) {
    if (isObject(entry) && typeof entry.apiKeyEnv === 'string') names.push(entry.apiKeyEnv);
    collectCredentials(entry, values);
  }
  for (const t of o.tokens ?? []) values.push(t.token);
  for (const db of o.databases ?? []) if (db) values.push(...urlSecretsOf(db));
  return [...secretsFromEnv(env, names), ...values];
}

/**
 * The secret values `agentlane serve` would redact here (serverRedactor over what serve reads: the config
 * file's engines and tokens, AGENTLANE_TOKENS, the environment, and the engines discovery finds where serve
 * would look for them), found without starting or probing anything: for a command that prints what an engine
 * produced (`agentlane translate`) and must keep out the keys the server would keep out. `config`: the
 * `--config` flag (else AGENTLANE_CONFIG).
 */
export async function configuredSecrets(
  o: { config?: string; env?: NodeJS.ProcessEnv; cwd?: string } = {},
): Promise<string[]> {
  const env = o.env ?? process.env;
  const path = o.config ?? env.AGENTLANE_CONFIG;
  const file = path ? readConfigFile(resolve(path)) : {};
  const offers =
    (file.discover ?? path === undefined) ? await discoverEngines(env, o.cwd ?? process.cwd()) : [];
  // AGENTLANE_TOKENS as written, besides the file's: serve takes one or the other and refuses a malformed list,
  // but every value in either is a secret all the same.
  const envTokens = (env.AGENTLANE_TOKENS ?? '')
    .split(',')
    .map((token) => ({ token: token.trim() }))
    .filter((t) => t.token.length > 0);
  return serverSecrets({
    env,
    engines: (file.engines ?? []) as EngineConfig[],
    offers,
    tokens: [...(file.tokens ?? []), ...envTokens],
    databases: [file.db],
  });
}

/** String values under credential-named options, a few levels into an engine entry (its `env` map included). */
function collectCredentials(value: unknown, out: string[], depth = 0): void {
  if (!isObject(value) || depth > 4) return;
  for (const [k, v] of Object.entries(value)) {
    if (typeof v === 'string' && CREDENTIAL_OPTION.test(k)) out.push(v);
    else if (typeof v === 'string') out.push(...urlSecretsOf(v));
    else collectCredentials(v, out, depth + 1);
  }
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
