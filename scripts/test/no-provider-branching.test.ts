import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

const gate = join(import.meta.dirname, '..', 'gates', 'no-provider-branching.mjs');
const roots: string[] = [];

function plant(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'agentlane-branching-'));
  roots.push(root);
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(root, name, '..'), { recursive: true });
    writeFileSync(join(root, name), text);
  }
  return root;
}

function run(...args: string[]) {
  const result = spawnSync(process.execPath, [gate, ...args], { encoding: 'utf8' });
  return { status: result.status, out: `${result.stdout}${result.stderr}` };
}

afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

describe('no-provider-branching gate', () => {
  it('passes the code above the adapters as it is', () => {
    const { status, out } = run();
    expect(out).toContain('no-provider-branching: ok');
    expect(status).toBe(0);
  });

  it('fails on planted branching: comparisons, case labels and string tests, naming file and line', () => {
    const root = plant({
      'server/routes.ts': "export const f = (t: { engine: string }) => (t.engine === 'claude' ? 1 : 2);\n",
      'web/Picker.tsx':
        "export function P(p: { provider: string }) {\n  switch (p.provider) {\n    case 'opencode':\n      return null;\n  }\n  return null;\n}\n",
      'lane/pick.ts': "export const g = (name: string) => name.startsWith('codex') || 'Gemini' !== name;\n",
      'store/ok.ts':
        "// mentions claude in a comment, and a plain value is fine\nexport const label = 'claude';\n",
    });
    const { status, out } = run(root);
    expect(status).toBe(1);
    expect(out).toMatch(/server[/\\]routes\.ts:1: branches on the engine name 'claude' \(comparison\)/);
    expect(out).toMatch(/web[/\\]Picker\.tsx:3: branches on the engine name 'opencode' \(case label\)/);
    expect(out).toMatch(/lane[/\\]pick\.ts:1: branches on the engine name 'codex' \(startsWith\(\)\)/);
    expect(out).toMatch(/lane[/\\]pick\.ts:1: branches on the engine name 'Gemini' \(comparison\)/);
    expect(out).not.toContain('ok.ts');
    expect(out).toContain('4 violation(s)');
  });
});
