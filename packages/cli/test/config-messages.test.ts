import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readConfigFile } from '../src/config';
import { runCli } from './run-cli';

const dir = mkdtempSync(join(tmpdir(), 'agentlane-config-msg-'));
const file = (name: string, content: unknown) => {
  const path = join(dir, name);
  writeFileSync(path, JSON.stringify(content));
  return path;
};

describe('config file messages', () => {
  it('a value outside a set lists what is allowed (engine type, log level)', () => {
    const badType = file('type.json', { engines: [{ name: 'x', type: 'nope' }] });
    expect(() => readConfigFile(badType)).toThrow(
      `config file ${badType}: engines.0.type must be one of "acp", "opencode", "replay", "builtin", "external"`,
    );
    const badLevel = file('level.json', { logLevel: 'loud' });
    expect(() => readConfigFile(badLevel)).toThrow(/logLevel must be one of "fatal", "error", .*"silent"$/);
  });

  it('doctor --config FOLDER says the config path is a folder, on one line', async () => {
    const r = await runCli(['doctor', '--config', dir, '--port', '0']);
    expect(r.status).toBe(1);
    expect(r.stdout.split('\n')).toContain(
      `problem  config: config file ${dir} is a folder, not a file — fix: correct the file or the flag it names`,
    );
    expect(r.stdout).not.toContain('EISDIR');
    expect(r.stderr).toBe('agentlane: doctor found 1 problem(s)\n');
  }, 60_000);
});
