import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatFinding, runDoctor } from '../src/commands/doctor';
import { runInit } from '../src/commands/init';
import { readConfigFile } from '../src/config';

const tmp = () => mkdtempSync(join(tmpdir(), 'agentlane-doctor-'));

describe('agentlane init', () => {
  it('writes a commented config of the engines found, without their keys, that serve reads', async () => {
    const dir = tmp();
    const output = join(dir, 'agentlane.json');
    const lines: string[] = [];
    const env = { ANTHROPIC_API_KEY: 'sk-ant-init-secret', GEMINI_API_KEY: 'gm-init-secret' };
    const result = await runInit({ output, env, cwd: dir, progress: (l) => lines.push(l) });
    expect(result.written).toEqual(['builtin-anthropic', 'builtin-google']);
    expect(lines).toContain('agentlane: checking engine builtin-anthropic (ANTHROPIC_API_KEY is set)…');
    const text = readFileSync(output, 'utf8');
    expect(text).not.toContain('init-secret');
    expect(text).toContain(
      '// Built-in engine on Anthropic (claude-haiku-4-5): found because ANTHROPIC_API_KEY is set.',
    );
    expect(text).toContain('// Needs at run time: ANTHROPIC_API_KEY.');
    expect(text).toContain('// Note: from a config file the engine reads GOOGLE_GENERATIVE_AI_API_KEY');
    const config = readConfigFile(output);
    expect(config.engines?.map((e) => [e.name, e.type])).toEqual([
      ['builtin-anthropic', 'builtin'],
      ['builtin-google', 'builtin'],
    ]);
    await expect(runInit({ output, env, cwd: dir })).rejects.toThrow(
      /exists already \(pass --force to replace it\)/,
    );
  }, 60_000);
});

describe('agentlane doctor', () => {
  it('checks config, each engine, database, port and web build; one line per problem with the fix', async () => {
    const dir = tmp();
    const quits = join(dir, 'quits.mjs');
    writeFileSync(quits, 'process.stderr.write("no model configured\\n"); process.exit(3);\n');
    const configPath = join(dir, 'agentlane.json');
    writeFileSync(
      configPath,
      `// a comment\n${JSON.stringify({
        recordedSessions: false,
        engines: [
          { name: 'good', type: 'builtin', api: 'openai-chat', model: 'm', baseURL: 'http://127.0.0.1:9/v1' },
          { name: 'broken', type: 'acp', command: process.execPath, args: [quits] },
        ],
      })}`,
    );
    const blocker = createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
    const port = String((blocker.address() as { port: number }).port);
    const progress: string[] = [];
    const findings = await runDoctor(
      { config: configPath, port, dataDir: dir, webRoot: join(dir, 'no-web') },
      { env: {}, progress: (l) => progress.push(l) },
    );
    blocker.close();
    const lines = findings.map(formatFinding);
    expect(lines[0]).toBe(`ok       config ${configPath} is valid`);
    expect(lines).toContain('ok       engine good starts, negotiates and stops (configured)');
    const broken = lines.find((l) => l.startsWith('problem  engine broken:'));
    expect(broken).toMatch(/fix: correct engine "broken" in .*agentlane\.json/);
    expect(lines).toContain('ok       database sqlite opens and is migrated');
    expect(lines).toContain(
      `problem  port: port ${port} on 127.0.0.1 is in use — fix: stop what holds it, or pick another with --port`,
    );
    expect(lines.find((l) => l.startsWith('problem  web UI:'))).toContain('fix: run npm start once');
    expect(findings.filter((f) => !f.ok)).toHaveLength(3);
    expect(progress).toEqual([
      'checking engine good…',
      'checking engine broken…',
      'checking the database…',
      'checking the port…',
    ]);
  }, 60_000);

  it('stops at a config that does not parse, saying where', async () => {
    const dir = tmp();
    const configPath = join(dir, 'bad.json');
    writeFileSync(configPath, '{ "port": 1,\n  "engines": [ }');
    const findings = await runDoctor({ config: configPath }, { env: {} });
    expect(findings.map(formatFinding)).toEqual([
      `problem  config: config file ${configPath} is not valid JSON: ValueExpected at line 2 — fix: correct the file or the flag it names`,
    ]);
  });
});
