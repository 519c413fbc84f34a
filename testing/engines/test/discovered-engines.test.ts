import { join } from 'node:path';
import { startFakeModelServer } from '@agentlane/fake-model-server';
import { startServeProcess } from '@agentlane/test-engines';
import { afterAll, describe, expect, it } from 'vitest';
import { promptForText } from './support/api';
import { envWith } from './support/env';
import { scratchDirs } from './support/scratch';

const cleanup: (() => Promise<void> | void)[] = [];
afterAll(async () => {
  for (const c of cleanup.reverse()) await c();
});

describe('agentlane serve without a config file', () => {
  it('offers the built-in engine on a provider whose key is set, labelled with why, and runs it', async () => {
    const { dir, work } = await scratchDirs('discovered', cleanup);
    const fake = await startFakeModelServer({
      script: [{ text: '1. Answer' }, { text: 'Hello from the key.' }],
    });
    cleanup.push(() => fake.close());
    const serve = await startServeProcess(
      ['--port', '0', '--db', join(dir, 'a.db'), '--log-level', 'info', '--workspace-root', work],
      60_000,
      envWith({ OPENAI_API_KEY: 'sk-discovered-0123456789', OPENAI_BASE_URL: `${fake.url}/v1` }),
    );
    cleanup.push(() => serve.kill());
    const health = (await (await fetch(`${serve.api}/health`)).json()) as {
      engines: { name: string; label: string }[];
    };
    const names = health.engines.map((e) => e.name);
    expect(names).toContain('builtin-openai');
    expect(names.filter((n) => n.startsWith('builtin-'))).toEqual(['builtin-openai']);
    const engine = health.engines.find((e) => e.name === 'builtin-openai');
    expect(engine?.label).toBe(
      'Built-in engine on OpenAI (gpt-4.1-mini) at OPENAI_BASE_URL — OPENAI_API_KEY is set, OPENAI_BASE_URL names the endpoint',
    );
    // Replays stay on offer beside it.
    expect(names.some((n) => n !== 'builtin-openai')).toBe(true);

    const texts = await promptForText(
      serve.api,
      { engine: 'builtin-openai', workDir: work, prompt: 'Say hello', timeoutMs: 60_000 },
      cleanup,
    );
    expect(texts).toContain('Hello from the key.');
    expect(fake.requests.some((r) => r.model === 'gpt-4.1-mini')).toBe(true);
  }, 120_000);
});
