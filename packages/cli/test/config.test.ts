import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_LIMITS } from '@agentlane/server';
import { describe, expect, it } from 'vitest';
import { DEFAULT_PORT, resolveServeConfig } from '../src';

const dir = mkdtempSync(join(tmpdir(), 'agentlane-cli-'));
const file = (name: string, content: unknown) => {
  const path = join(dir, name);
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
};

describe('serve configuration', () => {
  it('defaults: loopback, the default port, SQLite in ./.data', () => {
    const c = resolveServeConfig({}, {});
    expect(c.host).toBe('127.0.0.1');
    expect(c.port).toBe(DEFAULT_PORT);
    expect(c.db).toBe(join(process.cwd(), '.data', 'agentlane.db'));
    expect(c.tokens).toEqual([]);
    expect(c.logLevel).toBe('info');
  });

  it('run slots: 16 by default, twice the per-token run cap, so one token parking runs takes at most half', () => {
    const c = resolveServeConfig({}, {});
    expect(c.maxConcurrentRuns).toBe(16);
    expect(DEFAULT_LIMITS.maxRunsPerToken * 2).toBeLessThanOrEqual(c.maxConcurrentRuns);
    expect(resolveServeConfig({ maxConcurrentRuns: '3' }, {}).maxConcurrentRuns).toBe(3);
  });

  it('flags win over environment, environment over the config file', () => {
    const config = file('c.json', {
      port: 1111,
      host: '127.0.0.2',
      db: 'rel.db',
      engines: [{ name: 'x', type: 'acp', command: 'y' }],
    });
    const fromFile = resolveServeConfig({ config }, {});
    expect(fromFile).toMatchObject({ port: 1111, host: '127.0.0.2', db: join(dir, 'rel.db') });
    expect(fromFile.engines[0]).toMatchObject({ name: 'x', type: 'acp', command: 'y' });
    const fromEnv = resolveServeConfig(
      { config },
      { AGENTLANE_PORT: '2222', AGENTLANE_DB: 'postgres://h/db' },
    );
    expect(fromEnv).toMatchObject({ port: 2222, db: 'postgres://h/db' });
    const fromFlags = resolveServeConfig(
      { config, port: '3333', host: '127.0.0.1' },
      { AGENTLANE_PORT: '2222' },
    );
    expect(fromFlags).toMatchObject({ port: 3333, host: '127.0.0.1' });
    const viaEnvConfig = resolveServeConfig({}, { AGENTLANE_CONFIG: config });
    expect(viaEnvConfig.port).toBe(1111);
  });

  it('AGENTLANE_TOKENS gives all-thread tokens', () => {
    const c = resolveServeConfig({}, { AGENTLANE_TOKENS: 'aaaaaaaaaaaaaaaaaaaa, bbbbbbbbbbbbbbbbbbbb' });
    expect(c.tokens.map((t) => t.threads)).toEqual(['*', '*']);
  });

  it('an empty AGENTLANE_TOKENS counts as unset and keeps the config file tokens; only commas is an error', () => {
    const config = file('tok.json', { tokens: [{ token: 'file-token-0123456789', threads: '*' }] });
    for (const empty of ['', '  ']) {
      const c = resolveServeConfig({ config }, { AGENTLANE_TOKENS: empty });
      expect(c.tokens.map((t) => t.token)).toEqual(['file-token-0123456789']);
    }
    expect(() => resolveServeConfig({ config }, { AGENTLANE_TOKENS: ' , ' })).toThrow(/holds no token/);
  });

  it('workspace root (default: the work folder), allowed hosts and limits', () => {
    const config = file('ws.json', {
      workDir: 'work',
      allowedHosts: ['box.lan'],
      limits: {
        maxRunsPerToken: 2,
        requestTimeoutMs: 5000,
        wrongTokensPerAddress: 5,
        wrongTokenWindowMs: 30000,
      },
    });
    const c = resolveServeConfig({ config }, {});
    expect(c.workspaceRoot).toBe(join(dir, 'work'));
    expect(c.allowedHosts).toEqual(['box.lan']);
    expect(c.limits).toEqual({
      maxRunsPerToken: 2,
      requestTimeoutMs: 5000,
      wrongTokensPerAddress: 5,
      wrongTokenWindowMs: 30000,
    });
    const flagged = resolveServeConfig(
      { config, workspaceRoot: '/srv/projects' },
      { AGENTLANE_ALLOWED_HOSTS: 'a.lan, b.lan' },
    );
    expect(flagged.workspaceRoot).toBe('/srv/projects');
    expect(flagged.allowedHosts).toEqual(['a.lan', 'b.lan']);
    expect(() => resolveServeConfig({ config: file('lim.json', { limits: { nope: 1 } }) }, {})).toThrow(
      /unknown field "nope"/,
    );
  });

  it('cancel grace and engine idle time: lane defaults, flag > environment > config file', () => {
    expect(resolveServeConfig({}, {})).toMatchObject({
      cancelGraceMs: 5000,
      engineIdleMs: 600_000,
      turnIdleMs: 3_600_000,
    });
    expect(resolveServeConfig({ turnIdleMs: '0' }, { AGENTLANE_TURN_IDLE_MS: '5' }).turnIdleMs).toBe(0);
    expect(resolveServeConfig({}, { AGENTLANE_TURN_IDLE_MS: '90000' }).turnIdleMs).toBe(90_000);
    const config = file('grace.json', { cancelGraceMs: 2000, engineIdleMs: 0 });
    expect(resolveServeConfig({ config }, {})).toMatchObject({ cancelGraceMs: 2000, engineIdleMs: 0 });
    const env = { AGENTLANE_CANCEL_GRACE_MS: '3000', AGENTLANE_ENGINE_IDLE_MS: '60000' };
    expect(resolveServeConfig({ config }, env)).toMatchObject({ cancelGraceMs: 3000, engineIdleMs: 60_000 });
    expect(resolveServeConfig({ config, cancelGraceMs: '10', engineIdleMs: '20' }, env)).toMatchObject({
      cancelGraceMs: 10,
      engineIdleMs: 20,
    });
    expect(() => resolveServeConfig({ cancelGraceMs: 'x' }, {})).toThrow(/--cancel-grace-ms/);
    expect(() =>
      resolveServeConfig({ config: file('lim2.json', { limits: { maxLocalStreams: 8 } }) }, {}),
    ).not.toThrow();
  });

  it('approval timeout: 15 minutes by default, flag > environment > config file, 0 for never', () => {
    expect(resolveServeConfig({}, {}).approvalTimeoutMs).toBe(900_000);
    const config = file('appr.json', { approvalTimeoutMs: 60_000 });
    expect(resolveServeConfig({ config }, {}).approvalTimeoutMs).toBe(60_000);
    const env = { AGENTLANE_APPROVAL_TIMEOUT_MS: '0' };
    expect(resolveServeConfig({ config }, env).approvalTimeoutMs).toBe(0);
    expect(resolveServeConfig({ config, approvalTimeoutMs: '5000' }, env).approvalTimeoutMs).toBe(5000);
    expect(() => resolveServeConfig({}, { AGENTLANE_APPROVAL_TIMEOUT_MS: '-5' })).toThrow(
      /AGENTLANE_APPROVAL_TIMEOUT_MS must be an integer/,
    );
    expect(() => resolveServeConfig({ config: file('appr2.json', { approvalTimeoutMs: 1.5 }) }, {})).toThrow(
      /approvalTimeoutMs/,
    );
  });

  it.each([
    ['a missing file', () => resolveServeConfig({ config: join(dir, 'nope.json') }, {}), /does not exist/],
    [
      'invalid JSON',
      () => resolveServeConfig({ config: file('bad.json', '{"port":') }, {}),
      /not valid JSON/,
    ],
    [
      'a wrong type',
      () => resolveServeConfig({ config: file('t.json', { port: 'x' }) }, {}),
      /port must be integer/,
    ],
    [
      'an unknown field',
      () => resolveServeConfig({ config: file('u.json', { prot: 1 }) }, {}),
      /unknown field "prot"/,
    ],
    [
      'an unknown engine type',
      () => resolveServeConfig({ config: file('e.json', { engines: [{ name: 'a', type: 'zzz' }] }) }, {}),
      /engines\.0/,
    ],
    [
      'a short token',
      () =>
        resolveServeConfig({ config: file('k.json', { tokens: [{ token: 'short', threads: '*' }] }) }, {}),
      /tokens\.0\.token/,
    ],
    ['a bad port flag', () => resolveServeConfig({ port: 'abc' }, {}), /--port must be a port number/],
    [
      'a bad AGENTLANE_PORT',
      () => resolveServeConfig({}, { AGENTLANE_PORT: '99999' }),
      /AGENTLANE_PORT must be a port number/,
    ],
    [
      'a bad --log-level',
      () => resolveServeConfig({ logLevel: 'loud' }, {}),
      /--log-level must be one of fatal, error, warn, info, debug, trace, silent, got "loud"/,
    ],
    [
      'a bad AGENTLANE_LOG_LEVEL',
      () => resolveServeConfig({}, { AGENTLANE_LOG_LEVEL: 'verbose' }),
      /AGENTLANE_LOG_LEVEL must be one of/,
    ],
  ])('refuses %s with one clear line', (_name, run, message) => {
    expect(run).toThrow(message);
  });
});
