import { type DiscoveredEngine, urlSecretsOf } from '@agentlane/engine-kit';
import type { ModelApi } from '@agentlane/runtime';

export type { DiscoveredEngine };

interface ProviderRecipe {
  name: string;
  what: string;
  api: ModelApi;
  keys: string[];
  /** Variables naming a base URL, first set wins (the provider SDKs' own names). */
  baseUrls: string[];
  model: string;
  /** The variable the runtime reads the key from itself; another key variable is passed in memory. */
  runtimeKey: string;
}

// Default models are the providers' current small general models; change them in the config (`agentlane
// init` writes them) or per run (`options.model`).
const RECIPES: ProviderRecipe[] = [
  {
    name: 'builtin-openai',
    what: 'OpenAI',
    // Chat Completions: what OpenAI and most gateways and local servers behind OPENAI_BASE_URL speak.
    api: 'openai-chat',
    keys: ['OPENAI_API_KEY'],
    baseUrls: ['OPENAI_BASE_URL'],
    model: 'gpt-4.1-mini',
    runtimeKey: 'OPENAI_API_KEY',
  },
  {
    name: 'builtin-anthropic',
    what: 'Anthropic',
    api: 'anthropic',
    keys: ['ANTHROPIC_API_KEY'],
    baseUrls: ['ANTHROPIC_BASE_URL'],
    model: 'claude-haiku-4-5',
    runtimeKey: 'ANTHROPIC_API_KEY',
  },
  {
    name: 'builtin-google',
    what: 'Google Gemini',
    api: 'google',
    keys: ['GOOGLE_GENERATIVE_AI_API_KEY', 'GEMINI_API_KEY'],
    baseUrls: ['GOOGLE_GENERATIVE_AI_BASE_URL', 'GOOGLE_GEMINI_BASE_URL'],
    model: 'gemini-2.5-flash',
    runtimeKey: 'GOOGLE_GENERATIVE_AI_API_KEY',
  },
];

/**
 * The built-in engine on each provider whose usual key variable is set, with the provider's base-URL
 * variable honoured (a proxy, a gateway, a local server speaking the same API).
 */
export function discoverEngines(env: NodeJS.ProcessEnv = process.env): DiscoveredEngine[] {
  const found: DiscoveredEngine[] = [];
  for (const r of RECIPES) {
    const key = r.keys.find((k) => env[k]?.trim());
    if (!key) continue;
    const baseUrlVar = r.baseUrls.find((v) => env[v]?.trim());
    const baseURL = baseUrlVar ? env[baseUrlVar]?.trim() : undefined;
    const where = baseURL ? ` at ${baseUrlVar}` : '';
    // A base URL with a password or a key in it is a credential: in memory only, like a key, never in the
    // entry `agentlane init` writes to a file.
    const secretUrl = baseURL !== undefined && urlSecretsOf(baseURL).length > 0;
    // The runtime reads its own key variable; any other is handed over in memory only.
    const inMemory = {
      ...(key !== r.runtimeKey ? { apiKey: env[key] } : {}),
      ...(secretUrl ? { baseURL } : {}),
    };
    const notes = [
      ...(key !== r.runtimeKey
        ? [`from a config file the engine reads ${r.runtimeKey}: set it (${key} is not read)`]
        : []),
      ...(secretUrl
        ? [`${baseUrlVar} holds credentials: not written; set baseURL in the entry yourself`]
        : []),
    ];
    found.push({
      options: {
        name: r.name,
        label: `Built-in engine on ${r.what} (${r.model})${where}`,
        api: r.api,
        model: r.model,
        ...(baseURL && !secretUrl ? { baseURL } : {}),
      },
      ...(Object.keys(inMemory).length > 0 ? { inMemory } : {}),
      ...(notes.length > 0 ? { notes } : {}),
      why: `${key} is set${baseUrlVar ? `, ${baseUrlVar} names the endpoint` : ''}`,
      env: [key, ...(baseUrlVar ? [baseUrlVar] : [])],
    });
  }
  return found;
}
