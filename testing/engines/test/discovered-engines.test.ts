import { join } from 'node:path';
import { startFakeModelServer } from '@agentlane/fake-model-server';
import { startServeProcess } from '@agentlane/test-engines';
import { afterAll, describe, expect, it } from 'vitest';
import { post, ThreadStream } from './opencode-stack';
import { done } from './support/api';
import { scratchDirs } from './support/scratch';

const cleanup: (() => Promise<void> | void)[] = [];
afterAll(async () => {
  for (const c of cleanup.reverse()) await c();
});

/** The environment of a machine with none of the provider variables, plus `extra`. */
function envWith(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const key of Object.keys(env))
    if (/^(OPENAI|ANTHROPIC|GEMINI|GOOGLE_GENERATIVE_AI|GOOGLE_GEMINI)_/.test(key)) delete env[key];
  return { ...env, ...extra };
}

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

    const session = await post(`${serve.api}/sessions`, { engine: 'builtin-openai', workDir: work });
    expect(session.status, JSON.stringify(session.json)).toBe(201);
    const threadId = (session.json as { session: { id: string } }).session.id;
    const stream = new ThreadStream(`${serve.api}/threads/${threadId}/events`);
    cleanup.push(() => stream.close());
    const created = await post(`${serve.api}/threads/${threadId}/runs`, { prompt: 'Say hello' });
    const runId = (created.json as { run: { runId: string } }).run.runId;
    await stream.waitFor(done(runId), 60_000);
    const texts = stream
      .canonical(runId)
      .flatMap((e) => (e.event.kind === 'message.delta' ? [e.event.payload.delta] : []))
      .join('');
    expect(texts).toContain('Hello from the key.');
    expect(fake.requests.some((r) => r.model === 'gpt-4.1-mini')).toBe(true);
  }, 120_000);
});
