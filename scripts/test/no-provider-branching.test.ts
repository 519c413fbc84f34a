import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { plantedTrees, runGate } from './support/planted';

const gate = join(import.meta.dirname, '..', 'gates', 'no-provider-branching.mjs');
const plant = plantedTrees('agentlane-branching');

const run = (...args: string[]) => runGate(gate, ...args);

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
