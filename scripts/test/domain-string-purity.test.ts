import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runPurityGate, scanForForbiddenLiterals } from '../gates/domain-string-purity';
import { plantedTrees } from './support/planted';

const gate = join(import.meta.dirname, '..', 'gates', 'domain-string-purity.ts');
const plant = plantedTrees('agentlane-purity');

describe('domain-string purity gate', () => {
  it('passes the real contract source', () => {
    const lines: string[] = [];
    expect(
      runPurityGate(join(import.meta.dirname, '..', '..', 'packages', 'contract', 'src'), (l) =>
        lines.push(l),
      ),
    ).toBe(0);
  });

  it('fails on a planted vendor name, case-insensitively, and names file and line', () => {
    const root = plant({
      'ok.ts': 'export const a = 1;\n',
      'deep/leak.ts': '// fine\nconst x = "ClaudeAgent";\n',
    });
    const hits = scanForForbiddenLiterals(root);
    expect(hits).toEqual([
      {
        file: join('deep', 'leak.ts'),
        line: 2,
        literal: 'claude',
        family: 'vendor',
        text: 'const x = "ClaudeAgent";',
      },
    ]);
    expect(runPurityGate(root, () => {})).toBe(1);
  });

  it.each([
    ['session/prompt', "method: 'session/prompt'"],
    ['request_permission', 'if (m === "session/request_permission")'],
    ['message.part.updated', "case 'message.part.updated':"],
    ['agent_message_chunk', "sessionUpdate === 'agent_message_chunk'"],
    ['zed', 'built by Zed Industries'],
    ['openai', 'const base = "https://api.openai.com";'],
  ])('catches %s', (literal, line) => {
    const hits = scanForForbiddenLiterals(plant({ 'a.ts': `${line}\n` }));
    expect(hits.map((h) => h.literal)).toContain(literal);
  });

  it('does not flag ordinary words that contain a short name', () => {
    expect(
      scanForForbiddenLiterals(plant({ 'a.ts': 'const serialized = normalized; // recognized\n' })),
    ).toEqual([]);
  });

  it('exits non-zero as a process on a planted literal', () => {
    const root = plant({ 'src/events.ts': "export const provider = 'gemini';\n" });
    const result = spawnSync(process.execPath, ['--import', 'tsx', gate, root], { encoding: 'utf8' });
    expect(result.status).toBe(1);
    expect(result.stdout).toContain('forbidden vendor literal "gemini"');
  });
});
