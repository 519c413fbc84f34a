import { SecretRedactor, secretsFromEnv } from '@agentlane/engine-kit';
import type { EngineConfig } from './config.js';
import type { EngineOffer } from './engine-registry.js';

/** Option names whose string value is a credential (`apiKey`, `token`, `ANTHROPIC_API_KEY` in an env map). */
const CREDENTIAL_OPTION = /(?:api[-_]?key|token|secret|password)s?$/i;

/**
 * The redactor of everything this process knows to be secret: the environment's provider keys and
 * credential-shaped variables, the variables engine entries name (`apiKeyEnv`, the variables a found engine
 * needs), credential options written in entries or kept in memory by discovery, and the server's tokens.
 * Values shorter than 8 characters are not looked for (see SecretRedactor).
 */
export function serverRedactor(
  o: {
    env?: NodeJS.ProcessEnv;
    engines?: readonly EngineConfig[];
    offers?: readonly EngineOffer[];
    tokens?: readonly { token: string }[];
  } = {},
): SecretRedactor {
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
  return new SecretRedactor([...secretsFromEnv(env, names), ...values]);
}

/** String values under credential-named options, a few levels into an engine entry (its `env` map included). */
function collectCredentials(value: unknown, out: string[], depth = 0): void {
  if (!isObject(value) || depth > 4) return;
  for (const [k, v] of Object.entries(value)) {
    if (typeof v === 'string' && CREDENTIAL_OPTION.test(k)) out.push(v);
    else collectCredentials(v, out, depth + 1);
  }
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
