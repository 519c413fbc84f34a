import { describe, expect, it } from 'vitest';
import { createDriver, parseAcpEngineOptions } from '../src';

describe('ACP engine options from a config file', () => {
  it('builds a preset with the model endpoint and a key read from the environment', () => {
    process.env.AGENTLANE_TEST_KEY = 'sk-test-key';
    try {
      const config = parseAcpEngineOptions({
        name: 'claude',
        preset: 'claude-code',
        entry: '/opt/claude-agent-acp/dist/index.js',
        modelBaseUrl: 'http://127.0.0.1:9999',
        apiKeyEnv: 'AGENTLANE_TEST_KEY',
      });
      expect(config.command).toBe(process.execPath);
      expect(config.args).toEqual(['/opt/claude-agent-acp/dist/index.js']);
      expect(config.env?.ANTHROPIC_BASE_URL).toBe('http://127.0.0.1:9999');
      expect(config.env?.ANTHROPIC_API_KEY).toBe('sk-test-key');
      expect(config.observed?.reasoning).toBe(true);
    } finally {
      delete process.env.AGENTLANE_TEST_KEY;
    }
  });

  it('builds the Qwen Code, Cline, Copilot and pi presets on an OpenAI-compatible endpoint', () => {
    const base = { modelBaseUrl: 'http://127.0.0.1:9999/', model: 'm1' };
    const qwen = parseAcpEngineOptions({
      name: 'qwen',
      preset: 'qwen-code',
      entry: '/q/cli-entry.js',
      ...base,
    });
    expect(qwen.args).toEqual(['/q/cli-entry.js', '--acp']);
    expect(qwen.env).toMatchObject({ OPENAI_BASE_URL: 'http://127.0.0.1:9999/v1', OPENAI_MODEL: 'm1' });
    expect(JSON.parse(qwen.homeFiles?.['.qwen/settings.json'] ?? '{}').tools).toEqual({
      approvalMode: 'default',
    });
    const cline = parseAcpEngineOptions({ name: 'cline', preset: 'cline', entry: '/c/cline', ...base });
    expect(cline).toMatchObject({ command: '/c/cline', args: ['--acp'] });
    expect(cline.env).toMatchObject({
      CLINE_PROVIDER: 'openai-compatible',
      CLINE_SESSION_BACKEND_MODE: 'local',
    });
    const providers = JSON.parse(cline.homeFiles?.['.cline/data/settings/providers.json'] ?? '{}');
    expect(providers.providers['openai-compatible'].settings.baseUrl).toBe('http://127.0.0.1:9999/v1');
    const copilot = parseAcpEngineOptions({
      name: 'copilot',
      preset: 'copilot',
      entry: '/g/copilot',
      ...base,
    });
    expect(copilot.env).toMatchObject({
      COPILOT_OFFLINE: 'true',
      COPILOT_PROVIDER_BASE_URL: 'http://127.0.0.1:9999/v1',
      COPILOT_MODEL: 'm1',
    });
    const pi = parseAcpEngineOptions({
      name: 'pi',
      preset: 'pi',
      entry: '/p/pi-acp/dist/index.js',
      node: '/opt/node22/bin/node',
      agentCommand: '/p/pi/cli.js',
      ...base,
    });
    expect(pi).toMatchObject({ command: '/opt/node22/bin/node', args: ['/p/pi-acp/dist/index.js'] });
    expect(pi.env?.PI_ACP_PI_COMMAND).toBe('/p/pi/cli.js');
    expect(pi.env?.PATH?.startsWith('/opt/node22/bin')).toBe(true);
    expect(Object.keys(pi.homeFiles ?? {})).toContain('.pi/agent/extensions/agentlane-approvals.js');
  });

  it('accepts a raw command and names the field of a bad entry', () => {
    expect(parseAcpEngineOptions({ name: 'x', command: 'my-agent', args: ['--acp'] })).toMatchObject({
      name: 'x',
      command: 'my-agent',
      args: ['--acp'],
    });
    expect(() => parseAcpEngineOptions({ name: 'x' })).toThrow(/command: required/);
    expect(() => parseAcpEngineOptions({ name: 'x', command: 'a', args: 'nope' })).toThrow(/args/);
    expect(() => parseAcpEngineOptions({ name: 'x', preset: 'codex', modelBaseUrl: 'http://h' })).toThrow(
      /entry/,
    );
    expect(() => parseAcpEngineOptions({ name: 'x', command: 'a', surprise: 1 })).toThrow(
      /invalid ACP engine options/,
    );
    expect(() =>
      parseAcpEngineOptions({ name: 'x', command: 'a', apiKeyEnv: 'AGENTLANE_UNSET_VAR' }),
    ).toThrow(/AGENTLANE_UNSET_VAR is not set/);
  });

  it('createDriver takes the same options and exposes the translator', () => {
    const driver = createDriver({ name: 'mine', command: 'my-agent' });
    expect(driver.name).toBe('mine');
    expect(driver.provider).toBe('acp');
    expect(typeof driver.translator.translate).toBe('function');
  });
});
