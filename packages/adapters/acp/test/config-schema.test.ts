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
