import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readConfigFile, resolveServeConfig } from '../src/config';
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

  // A probe: a FIFO hung, /dev/zero ran out of memory, 100,000 `[` printed a RangeError's stack, a BOM was
  // "not valid JSON", heartbeatMs 1e12 overflowed the timer (a heartbeat every ms), and AGENTLANE_PORT was read
  // with Number() ('' is 0: a random port).
  it('refuses what is no config file, in one line, before reading it', () => {
    const fifo = join(dir, 'fifo.json');
    execFileSync('mkfifo', [fifo]);
    expect(() => readConfigFile(fifo)).toThrow(`config file ${fifo} is not a regular file`);
    expect(() => readConfigFile('/dev/zero')).toThrow('config file /dev/zero is not a regular file');
    const deep = join(dir, 'deep.json');
    writeFileSync(deep, `{"engines": ${'['.repeat(100_000)}${']'.repeat(100_000)}}`);
    expect(() => readConfigFile(deep)).toThrow(`config file ${deep} is nested too deeply`);
    const bom = join(dir, 'bom.json');
    writeFileSync(bom, `\uFEFF${JSON.stringify({ port: 7999 })}`);
    expect(readConfigFile(bom)).toEqual({ port: 7999 });
  });

  it('refuses timers past what Node can time, and ports that are not plain digits', () => {
    const hb = file('hb.json', { heartbeatMs: 1e12 });
    expect(() => readConfigFile(hb)).toThrow(`config file ${hb}: heartbeatMs must be <= 2147483647`);
    const limit = file('limit.json', { limits: { requestTimeoutMs: 1e13 } });
    expect(() => readConfigFile(limit)).toThrow(/limits\.requestTimeoutMs must be <= 2147483647/);
    for (const port of ['', '0x1F96', '1e3', ' 8038'])
      expect(() => resolveServeConfig({}, { AGENTLANE_PORT: port }), JSON.stringify(port)).toThrow(
        /AGENTLANE_PORT must be a port number/,
      );
    expect(resolveServeConfig({}, { AGENTLANE_PORT: '8038' }).port).toBe(8038);
  });

  // A probe: a token of 20 spaces (or with a newline) passed the 16-character minimum and locked the server
  // to every client; the same token listed twice kept only its first scope.
  it('refuses a token no client can send, and the same token twice', () => {
    const spaces = file('spaces.json', { tokens: [{ token: ' '.repeat(20), threads: '*' }] });
    expect(() => readConfigFile(spaces)).toThrow(/tokens\.0\.token must match pattern/);
    const token = 'tok-0123456789abcdef';
    const twice = file('twice.json', {
      tokens: [
        { token, threads: ['x'] },
        { token, threads: '*' },
      ],
    });
    expect(() => resolveServeConfig({ config: twice }, {})).toThrow(
      'tokens[1] is the same token as tokens[0]: give each token one entry, one scope',
    );
  });
});
