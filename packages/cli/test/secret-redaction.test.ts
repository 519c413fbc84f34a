import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { formatFinding, runDoctor } from '../src/commands/doctor';
import type { EngineConfig } from '../src/config';
import { probeOffers } from '../src/engine-probe';
import { serverRedactor } from '../src/secrets';

const KEY = 'sk-ant-api03-CLISECRETKEYVALUE0123456789';
const VAR = 'AGENTLANE_TEST_REDACT_VAR';

/** An "agent" that prints its key (argv[2]) and a header with it to stderr, then exits before negotiating. */
function leakyAgent(): string {
  const dir = mkdtempSync(join(tmpdir(), 'agentlane-redact-'));
  const script = join(dir, 'leaks.mjs');
  writeFileSync(
    script,
    'process.stderr.write("bad key " + process.argv[2] + " Authorization: Bearer hdr_0123456789abcdef\\n"); process.exit(3);\n',
  );
  return script;
}

afterEach(() => {
  delete process.env[VAR];
});

describe('secrets in what the CLI prints', () => {
  it('builds a redactor from apiKeyEnv, provider variables, credential options, in-memory keys and tokens', () => {
    const r = serverRedactor({
      env: { ANTHROPIC_API_KEY: 'anthropic-key-0001', [VAR]: 'named-key-00002' },
      engines: [
        { name: 'a', type: 'acp', apiKeyEnv: VAR, env: { OTHER_TOKEN: 'env-map-token-03' } } as EngineConfig,
      ],
      offers: [
        {
          entry: { name: 'b', type: 'builtin' } as EngineConfig,
          inMemory: { apiKey: 'in-memory-key-04' },
          why: 'w',
          env: [],
        },
      ],
      tokens: [{ token: 'server-token-0005' }],
    });
    const text = r.text(
      'anthropic-key-0001 named-key-00002 env-map-token-03 in-memory-key-04 server-token-0005',
    );
    expect(text).toBe(Array(5).fill('[REDACTED]').join(' '));
  });

  // A probe's tool printed AGENTLANE_DB: a name like no credential's, so the password was stored in events,
  // frames, the ledger and checkpoints.
  it('redacts the passwords of database URLs: the variable, the db setting, URLs in engine entries', () => {
    const r = serverRedactor({
      env: { AGENTLANE_DB: 'postgres://app:db-pass-env-0001@db.local/app' },
      engines: [
        { name: 'a', type: 'builtin', checkpoints: 'postgres://u:db%40pass-entry-02@h/c' } as EngineConfig,
      ],
      databases: ['postgres://u:db-pass-config-03@h/d?sslpassword=ssl-pass-000004'],
    });
    expect(
      r.text('db-pass-env-0001 db@pass-entry-02 db%40pass-entry-02 db-pass-config-03 ssl-pass-000004'),
    ).toBe(Array(5).fill('[REDACTED]').join(' '));
    // A URL without a password, or a value that is no URL, names nothing.
    expect(
      serverRedactor({ env: { HOME_URL: 'https://example.com/a?b=c', X: 'plain-text-value' } }).text(
        'example.com plain-text-value',
      ),
    ).toBe('example.com plain-text-value');
  });

  it("redacts the key from discovery's not-offered reason (health checks and the log line)", async () => {
    const entry = {
      name: 'leaky',
      type: 'acp',
      command: process.execPath,
      args: [leakyAgent(), KEY],
      env: { LEAKY_API_KEY: KEY },
    } as EngineConfig;
    const result = await probeOffers([{ entry, why: 'found for the test', env: ['LEAKY_API_KEY'] }], {
      timeoutMs: 10_000,
    });
    expect(result.unavailable).toHaveLength(1);
    const reason = result.unavailable[0]?.reason ?? '';
    expect(reason).toContain('[REDACTED]');
    expect(reason).not.toContain(KEY);
    expect(reason).not.toContain('hdr_0123456789abcdef');
  }, 30_000);

  it("redacts the key named by an engine's apiKeyEnv from doctor's findings", async () => {
    process.env[VAR] = KEY;
    const dir = mkdtempSync(join(tmpdir(), 'agentlane-redact-doctor-'));
    const configPath = join(dir, 'agentlane.json');
    writeFileSync(
      configPath,
      JSON.stringify({
        recordedSessions: false,
        engines: [
          {
            name: 'leaky',
            type: 'acp',
            command: process.execPath,
            args: [leakyAgent(), KEY],
            apiKeyEnv: VAR,
          },
        ],
      }),
    );
    const blocker = createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
    const port = String((blocker.address() as { port: number }).port);
    const findings = await runDoctor(
      { config: configPath, port, dataDir: dir, webRoot: join(dir, 'no-web') },
      { env: { [VAR]: KEY }, timeoutMs: 10_000 },
    );
    blocker.close();
    const lines = findings.map(formatFinding);
    const leaky = lines.find((l) => l.startsWith('problem  engine leaky:')) ?? '';
    expect(leaky).toContain('[REDACTED]');
    expect(lines.join('\n')).not.toContain(KEY);
    expect(lines.join('\n')).not.toContain('hdr_0123456789abcdef');
  }, 60_000);
});
