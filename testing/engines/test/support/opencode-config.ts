import type { JsonValue } from '@agentlane/contract';
import type { FakeModelServer } from '@agentlane/fake-model-server';

const model = {
  name: 'Fake Model',
  tool_call: true,
  reasoning: true,
  limit: { context: 128000, output: 8192 },
};

/**
 * OpenCode's config for the fake model server: provider `fake` with `fake-model` (and, with `secondModel`,
 * `fake-model-2`), edits and shell commands asking for approval.
 */
export function openCodeConfig(
  fake: FakeModelServer,
  options: { secondModel?: boolean } = {},
): Record<string, JsonValue> {
  return {
    model: 'fake/fake-model',
    small_model: 'fake/fake-model',
    enabled_providers: ['fake'],
    permission: { edit: 'ask', bash: 'ask', webfetch: 'deny' },
    provider: {
      fake: {
        npm: '@ai-sdk/openai-compatible',
        name: 'Fake LLM',
        options: { baseURL: `${fake.url}/v1`, apiKey: 'dummy' },
        models: {
          'fake-model': model,
          ...(options.secondModel ? { 'fake-model-2': { ...model, name: 'Fake Model 2' } } : {}),
        },
      },
    },
  };
}
