import { chmodSync, mkdirSync, mkdtempSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { EngineConfig } from '../src/config';
import { probeOffers } from '../src/engine-probe';
import { discoverEngines } from '../src/engine-registry';

/** An empty project folder: nothing installed in its node_modules. */
const emptyProject = () => mkdtempSync(join(tmpdir(), 'agentlane-discovery-'));

/** A project whose node_modules/.bin links the given commands to small Node scripts, as npm installs them. */
function projectWith(commands: string[]): string {
  const dir = emptyProject();
  mkdirSync(join(dir, 'node_modules', '.bin'), { recursive: true });
  for (const name of commands) {
    const script = join(dir, `${name}.js`);
    writeFileSync(script, '#!/usr/bin/env node\n');
    chmodSync(script, 0o755);
    symlinkSync(script, join(dir, 'node_modules', '.bin', name));
  }
  return realpathSync(dir);
}

describe('engine discovery', () => {
  it('offers the built-in engine per provider key variable, with base URLs honoured and no key in the entry', async () => {
    const offers = await discoverEngines(
      {
        ANTHROPIC_API_KEY: 'sk-ant-test',
        GEMINI_API_KEY: 'gm-test',
        GOOGLE_GEMINI_BASE_URL: 'http://127.0.0.1:9/v1beta',
      },
      emptyProject(),
    );
    const builtin = offers.filter((o) => o.entry.type === 'builtin');
    expect(builtin.map((o) => [o.entry.name, o.why])).toEqual([
      ['builtin-anthropic', 'ANTHROPIC_API_KEY is set'],
      ['builtin-google', 'GEMINI_API_KEY is set, GOOGLE_GEMINI_BASE_URL names the endpoint'],
    ]);
    expect(builtin[1]?.entry).toMatchObject({ api: 'google', baseURL: 'http://127.0.0.1:9/v1beta' });
    // GEMINI_API_KEY is not the variable the runtime reads: the key is handed over in memory only.
    expect(builtin[1]?.inMemory).toEqual({ apiKey: 'gm-test' });
    expect(JSON.stringify(builtin.map((o) => o.entry))).not.toContain('-test');
    expect(await discoverEngines({}, emptyProject())).not.toContainEqual(
      expect.objectContaining({ entry: expect.objectContaining({ type: 'builtin' }) }),
    );
  });

  // A probe's `agentlane init` wrote OPENAI_BASE_URL with its password and `?api_key=` into agentlane.json.
  it('keeps a base URL holding credentials in memory only, out of the entry init writes', async () => {
    const url = 'https://user:gw-pass-0001@gateway.example/v1?api_key=gw-key-0002';
    const offers = await discoverEngines(
      { OPENAI_API_KEY: 'sk-openai-test', OPENAI_BASE_URL: url },
      emptyProject(),
    );
    const openai = offers.find((o) => o.entry.name === 'builtin-openai');
    expect(openai?.inMemory).toEqual({ baseURL: url });
    expect(JSON.stringify(openai?.entry)).not.toContain('gw-');
    // The ACP agents and OpenCode found on the same variable alike.
    const project = projectWith(['codex-acp', 'opencode']);
    const found = await discoverEngines({ OPENAI_API_KEY: 'sk-openai-test', OPENAI_BASE_URL: url }, project);
    const codex = found.find((o) => o.entry.name === 'codex');
    const opencode = found.find((o) => o.entry.type === 'opencode');
    expect(codex?.inMemory).toMatchObject({ modelBaseUrl: expect.stringContaining('gw-pass-0001') });
    expect(opencode?.inMemory).toMatchObject({
      config: { provider: { openai: { options: { baseURL: url } } } },
    });
    for (const offer of [codex, opencode]) expect(JSON.stringify(offer?.entry)).not.toContain('gw-');
  });

  it('offers the ACP agents installed in the project or on PATH whose provider key is set, naming the variable only', async () => {
    const project = projectWith(['claude-agent-acp', 'gemini']);
    const onPath = projectWith(['codex-acp']);
    const env = {
      PATH: join(onPath, 'node_modules', '.bin'),
      ANTHROPIC_API_KEY: 'sk-ant-secret',
      ANTHROPIC_BASE_URL: 'http://127.0.0.1:9/',
      OPENAI_API_KEY: 'sk-openai-secret',
      OPENAI_BASE_URL: 'https://gateway.example/v1',
    };
    const acp = (await discoverEngines(env, project)).filter((o) => o.entry.type === 'acp');
    // Gemini CLI is installed but GEMINI_API_KEY is not set: it could not answer, so it is not offered.
    expect(acp.map((o) => [o.entry.name, o.why])).toEqual([
      [
        'claude',
        "claude-agent-acp found in the project's node_modules, ANTHROPIC_API_KEY is set, ANTHROPIC_BASE_URL names the endpoint",
      ],
      ['codex', 'codex-acp found on PATH, OPENAI_API_KEY is set, OPENAI_BASE_URL names the endpoint'],
    ]);
    expect(acp[0]?.entry).toMatchObject({
      preset: 'claude-code',
      entry: join(project, 'claude-agent-acp.js'),
      modelBaseUrl: 'http://127.0.0.1:9',
      apiKeyEnv: 'ANTHROPIC_API_KEY',
      network: 'loopback',
    });
    // The presets add /v1 themselves; a public endpoint needs the network engines are otherwise kept from.
    expect(acp[1]?.entry).toMatchObject({ modelBaseUrl: 'https://gateway.example', network: 'open' });
    expect(JSON.stringify(acp)).not.toContain('secret');
    expect(acp[0]?.env).toEqual(['ANTHROPIC_API_KEY', 'ANTHROPIC_BASE_URL']);
  });

  it('offers OpenCode found in the project on the first provider with a key, the key in memory only', async () => {
    const project = projectWith(['opencode']);
    const offers = await discoverEngines(
      { GEMINI_API_KEY: 'gm-secret', GOOGLE_GENERATIVE_AI_BASE_URL: 'http://localhost:9/v1beta' },
      project,
    );
    const opencode = offers.filter((o) => o.entry.type === 'opencode');
    expect(opencode).toHaveLength(1);
    expect(opencode[0]?.why).toBe(
      "opencode found in the project's node_modules, GEMINI_API_KEY is set, GOOGLE_GENERATIVE_AI_BASE_URL names the endpoint",
    );
    expect(opencode[0]?.entry).toMatchObject({
      name: 'opencode',
      binary: join(project, 'opencode.js'),
      network: 'loopback',
      config: {
        model: 'google/gemini-2.5-flash',
        provider: { google: { options: { baseURL: 'http://localhost:9/v1beta' } } },
      },
    });
    expect(JSON.stringify(opencode[0]?.entry)).not.toContain('gm-secret');
    expect(opencode[0]?.inMemory).toEqual({ env: { GOOGLE_GENERATIVE_AI_API_KEY: 'gm-secret' } });
    expect(
      (await discoverEngines({}, project)).filter((o) => o.entry.type === 'opencode'),
      'no provider key, no offer',
    ).toEqual([]);
  });

  it('does not offer an engine whose start probe fails, and says why', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'probe-'));
    const quits = join(dir, 'quits.mjs');
    writeFileSync(quits, 'process.stderr.write("no model configured\\n"); process.exit(3);\n');
    const entry = { name: 'quitter', type: 'acp', command: process.execPath, args: [quits] } as EngineConfig;
    const lines: string[] = [];
    const result = await probeOffers([{ entry, why: 'found for the test', env: [] }], {
      timeoutMs: 10_000,
      progress: (l) => lines.push(l),
    });
    expect(result.drivers).toEqual([]);
    expect(result.unavailable).toHaveLength(1);
    expect(result.unavailable[0]?.name).toBe('quitter');
    expect(result.unavailable[0]?.reason).toMatch(/no model configured|exit/);
    expect(lines).toEqual(['agentlane: checking engine quitter (found for the test)…']);
  }, 30_000);
});
