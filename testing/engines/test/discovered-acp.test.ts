import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { answer, startFakeModelServer } from '@agentlane/fake-model-server';
import { startServeProcess } from '@agentlane/test-engines';
import { afterAll, describe, expect, it } from 'vitest';
import { installedAcpEngines } from './support/acp-engines';
import { promptForText } from './support/api';
import { envWith } from './support/env';
import { scratchDirs } from './support/scratch';

const { entries } = installedAcpEngines('discovered without a config file');
const cleanup: (() => Promise<void> | void)[] = [];
afterAll(async () => {
  for (const c of cleanup.reverse()) await c();
});

describe.skipIf(!entries.claude)(
  'agentlane serve without a config file, an ACP agent installed in the project',
  () => {
    it('offers Claude Code found in node_modules/.bin with ANTHROPIC_API_KEY set, labelled with why, and runs it', async () => {
      const { dir, work } = await scratchDirs('discovered-acp', cleanup);
      // The project: claude-agent-acp linked into node_modules/.bin, as `npm i @zed-industries/claude-agent-acp` does.
      mkdirSync(join(dir, 'node_modules', '.bin'), { recursive: true });
      symlinkSync(entries.claude as string, join(dir, 'node_modules', '.bin', 'claude-agent-acp'));
      const fake = await startFakeModelServer({ scenario: answer('Hello from the discovered agent.') });
      cleanup.push(() => fake.close());
      const serve = await startServeProcess(
        ['--port', '0', '--db', join(dir, 'a.db'), '--workspace-root', work],
        90_000,
        envWith({ ANTHROPIC_API_KEY: 'sk-ant-discovered-0123456789', ANTHROPIC_BASE_URL: fake.url }),
        dir,
      );
      cleanup.push(() => serve.kill());
      const health = (await (await fetch(`${serve.api}/health`)).json()) as {
        engines: { name: string; label: string }[];
      };
      const claude = health.engines.find((e) => e.name === 'claude');
      expect(claude?.label, serve.output()).toBe(
        "Claude Code (ACP) — claude-agent-acp found in the project's node_modules, ANTHROPIC_API_KEY is set, ANTHROPIC_BASE_URL names the endpoint",
      );
      expect(serve.output()).not.toContain('sk-ant-discovered');

      const text = await promptForText(
        serve.api,
        { engine: 'claude', workDir: work, prompt: 'Say hello', timeoutMs: 90_000 },
        cleanup,
      );
      expect(text).toContain('Hello from the discovered agent.');
      // The key reached the engine from agentlane's environment (apiKeyEnv), never from the entry.
      expect(fake.requests.length).toBeGreaterThan(0);
    }, 180_000);
  },
);
