import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { plantedTrees, runGate } from './support/planted';

const gate = join(import.meta.dirname, '..', 'gates', 'source-size.mjs');
const plant = plantedTrees('agentlane-size');

const run = (...args: string[]) => runGate(gate, ...args);

const body = (lines: number) => Array.from({ length: lines }, (_, i) => `  const v${i} = ${i};`).join('\n');

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
