import { createAnthropic } from '@ai-sdk/anthropic';
import { createGoogleGenerativeAI } from '@ai-sdk/google';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { LanguageModel } from 'ai';
import { guardedFetch, type ModelTimeouts, type RateLimitRetries } from './model-fetch.js';

/** The provider wire APIs the built-in engine speaks, all through the AI SDK. */
export type ModelApi = 'openai-chat' | 'openai-responses' | 'anthropic' | 'google';

export interface ModelSettings {
  api: ModelApi;
  model: string;
  /** e.g. http://127.0.0.1:4000/v1 for OpenAI-compatible servers; the provider's default when absent. */
  baseURL?: string;
  /** From configuration; when absent the provider reads its usual environment variable. Never logged. */
  apiKey?: string;
  /** The engine's own first-byte, idle and total limits on a model call (defaults in model-fetch.ts). */
  timeouts?: ModelTimeouts;
  /** Retries of a rate-limited request (429, or 503 with Retry-After). */
  retries?: RateLimitRetries;
}

/** What the fetch wrapper saw of the last HTTP exchange: the AI SDK does not report a successful call's status. */
export interface HttpObservation {
  status: number | null;
  startedAt: number;
  headersAt: number | null;
  /** Token counts the stream reported that were no count, dropped before the SDK saw them (sse-usage.ts). */
  usageDropped?: { events: number; paths: string[] };
}

/** The most paths of dropped token counts an observation keeps (a hostile stream may send millions). */
const MAX_DROPPED_PATHS = 16;

const ENV_KEYS: Record<ModelApi, string> = {
  'openai-chat': 'OPENAI_API_KEY',
  'openai-responses': 'OPENAI_API_KEY',
  anthropic: 'ANTHROPIC_API_KEY',
  google: 'GOOGLE_GENERATIVE_AI_API_KEY',
};

export function authMethodOf(settings: ModelSettings): 'api_key' | 'none' {
  return settings.apiKey || process.env[ENV_KEYS[settings.api]] ? 'api_key' : 'none';
}

/**
 * The secrets a model call carries: the configured key and the provider's environment variable (either may be
 * what the provider sends). A model server may echo them back; model-call.ts redacts them (see redact.ts).
 * A turn adds the host's other secrets (TurnDeps.knownSecrets) to these: TurnContext.secrets.
 */
export function secretsOf(settings: ModelSettings): string[] {
  const env = process.env[ENV_KEYS[settings.api]];
  return [settings.apiKey, env].filter((k): k is string => typeof k === 'string' && k !== '');
}

/**
 * Builds the AI SDK model. `observe` receives every HTTP exchange (status, time to headers) through the
 * provider's `fetch` option; the request headers (which carry the key) are never looked at. `generateId`
 * replaces the ids a provider client mints itself (Gemini function calls carry none on the wire), so a
 * recorded turn can be replayed with the same ids.
 */
export function createModel(
  settings: ModelSettings,
  observe: (o: HttpObservation) => void,
  generateId?: () => string,
): LanguageModel {
  let current: HttpObservation | null = null;
  const guarded = guardedFetch(fetch, {
    repaired: ({ usage }) => {
      if (!current || !usage) return;
      const dropped = current.usageDropped ?? { events: 0, paths: [] };
      current.usageDropped = dropped;
      dropped.events++;
      for (const p of usage)
        if (dropped.paths.length < MAX_DROPPED_PATHS && !dropped.paths.includes(p)) dropped.paths.push(p);
    },
    ...(settings.timeouts ? { timeouts: settings.timeouts } : {}),
    ...(settings.retries ? { retries: settings.retries } : {}),
    // Anthropic's stream ends with message_stop; without it the answer was cut short (the SDK would take
    // what came as a finished end_turn answer). The other APIs' clients already fail a cut stream.
    ...(settings.api === 'anthropic' ? { finalEvent: 'message_stop' } : {}),
  });
  const fetchWithObservation: typeof fetch = async (input, init) => {
    const observation: HttpObservation = { status: null, startedAt: performance.now(), headersAt: null };
    observe(observation);
    current = observation;
    const response = await guarded(input, init);
    observation.status = response.status;
    observation.headersAt = performance.now();
    return response;
  };
  const apiKey = settings.apiKey ?? process.env[ENV_KEYS[settings.api]];
  const common = {
    ...(settings.baseURL ? { baseURL: settings.baseURL } : {}),
    ...(apiKey ? { apiKey } : {}),
    fetch: fetchWithObservation,
  };
  switch (settings.api) {
    case 'openai-chat':
      return createOpenAICompatible({
        name: 'openai-chat',
        baseURL: settings.baseURL ?? 'https://api.openai.com/v1',
        ...(apiKey ? { apiKey } : {}),
        fetch: fetchWithObservation,
        includeUsage: true,
      })(settings.model);
    case 'openai-responses':
      return createOpenAI(common).responses(settings.model);
    case 'anthropic':
      return createAnthropic({ ...common, ...(generateId ? { generateId } : {}) })(settings.model);
    case 'google':
      return createGoogleGenerativeAI({ ...common, ...(generateId ? { generateId } : {}) })(settings.model);
  }
}
