import { type DiscoveredEngine, findCommand, isLoopbackUrl, urlSecretsOf } from '@agentlane/engine-kit';

interface ProviderRecipe {
  /** OpenCode's provider id and a current small model of it. */
  provider: string;
  model: string;
  keys: string[];
  /** The variable OpenCode reads the key from (another key variable is handed over under this name). */
  openCodeKey: string;
  baseUrlVar: string;
  /** What OpenCode's provider expects after the base URL variable's value (the SDKs' baseURL carries /v1). */
  baseUrlSuffix: string;
}

const PROVIDERS: ProviderRecipe[] = [
  {
    provider: 'anthropic',
    model: 'claude-haiku-4-5',
    keys: ['ANTHROPIC_API_KEY'],
    openCodeKey: 'ANTHROPIC_API_KEY',
    baseUrlVar: 'ANTHROPIC_BASE_URL',
    baseUrlSuffix: '/v1',
  },
  {
    provider: 'openai',
    model: 'gpt-4.1-mini',
    keys: ['OPENAI_API_KEY'],
    openCodeKey: 'OPENAI_API_KEY',
    baseUrlVar: 'OPENAI_BASE_URL',
    baseUrlSuffix: '',
  },
  {
    provider: 'google',
    model: 'gemini-2.5-flash',
    keys: ['GOOGLE_GENERATIVE_AI_API_KEY', 'GEMINI_API_KEY'],
    openCodeKey: 'GOOGLE_GENERATIVE_AI_API_KEY',
    baseUrlVar: 'GOOGLE_GENERATIVE_AI_BASE_URL',
    baseUrlSuffix: '',
  },
];

/**
 * OpenCode, when an `opencode` binary is installed in the project (`node_modules/.bin`) or on PATH and a
 * provider key variable is set: on the first such provider, its key handed to the OpenCode process in
 * memory only (never in the entry, so `agentlane init` never writes it).
 */
export function discoverEngines(env: NodeJS.ProcessEnv, options: { cwd: string }): DiscoveredEngine[] {
  const command = findCommand(['opencode'], env, options.cwd);
  if (!command) return [];
  for (const p of PROVIDERS) {
    const key = p.keys.find((k) => env[k]?.trim());
    if (!key) continue;
    const baseUrl = env[p.baseUrlVar]?.trim().replace(/\/+$/, '');
    const baseURL = baseUrl && !baseUrl.endsWith(p.baseUrlSuffix) ? `${baseUrl}${p.baseUrlSuffix}` : baseUrl;
    const where = command.where === 'project' ? "in the project's node_modules" : 'on PATH';
    const config = {
      model: `${p.provider}/${p.model}`,
      small_model: `${p.provider}/${p.model}`,
      enabled_providers: [p.provider],
    };
    const withUrl = baseURL ? { ...config, provider: { [p.provider]: { options: { baseURL } } } } : config;
    // A base URL with a password or a key in it is a credential: in memory only, like the key, never in the
    // entry `agentlane init` writes to a file.
    const secretUrl = baseURL !== undefined && urlSecretsOf(baseURL).length > 0;
    return [
      {
        options: {
          name: 'opencode',
          label: `OpenCode (${p.provider}/${p.model})`,
          binary: command.path,
          // A provider's public endpoint needs the network the engines are otherwise kept from.
          network: baseURL && isLoopbackUrl(baseURL) ? 'loopback' : 'open',
          config: secretUrl ? config : withUrl,
        },
        inMemory: { env: { [p.openCodeKey]: env[key] as string }, ...(secretUrl ? { config: withUrl } : {}) },
        why: `opencode found ${where}, ${key} is set${baseURL ? `, ${p.baseUrlVar} names the endpoint` : ''}`,
        env: [key, ...(baseURL ? [p.baseUrlVar] : [])],
        notes: [`from a config file, set "env": { "${p.openCodeKey}": … } or start agentlane with it set`],
      },
    ];
  }
  return [];
}
