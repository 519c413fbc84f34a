import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

const gate = join(import.meta.dirname, '..', 'gates', 'source-size.mjs');
const roots: string[] = [];

function plant(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'agentlane-size-'));
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

const body = (lines: number) => Array.from({ length: lines }, (_, i) => `  const v${i} = ${i};`).join('\n');

afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

describe('source-size gate', () => {
  it('passes the repository as it is (the known long functions may stay, not grow)', () => {
    const { status, out } = run();
    expect(out).toContain('source-size: ok');
    expect(status).toBe(0);
  });

  it('fails on a planted long file and a planted long function, naming them; tests are not checked', () => {
    const root = plant({
      'packages/a/src/long-file.ts': Array.from({ length: 401 }, (_, i) => `export const c${i} = ${i};`).join(
        '\n',
      ),
      'packages/adapters/b/src/long-function.ts': `export function tooLong() {\n${body(100)}\n}\n`,
      'packages/a/src/fine.ts': `export const fine = () => {\n${body(90)}\n};\n`,
      'packages/a/src/x.test.ts': `export function inATest() {\n${body(200)}\n}\n`,
    });
    const { status, out } = run(root);
    expect(status).toBe(1);
    expect(out).toMatch(/packages\/a\/src\/long-file\.ts: 401 lines \(at most 400\)/);
    expect(out).toMatch(/packages\/adapters\/b\/src\/long-function\.ts:1: function tooLong is 102 lines/);
    expect(out).not.toMatch(/fine\.ts|inATest/);
  });
});
