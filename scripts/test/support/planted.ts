import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';

/**
 * Temp trees of planted files for the gate tests, removed after each test (the hook is registered by the
 * test file that calls this once, at its top level).
 */
export function plantedTrees(prefix: string): (files: Record<string, string>) => string {
  const roots: string[] = [];
  afterEach(() => {
    for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
  });
  return (files) => {
    const root = mkdtempSync(join(tmpdir(), `${prefix}-`));
    roots.push(root);
    for (const [name, text] of Object.entries(files)) {
      mkdirSync(join(root, name, '..'), { recursive: true });
      writeFileSync(join(root, name), text);
    }
    return root;
  };
}

/** Runs a gate script (a .mjs file) as CI does: its exit status and everything it printed. */
export function runGate(gate: string, ...args: string[]): { status: number | null; out: string } {
  const result = spawnSync(process.execPath, [gate, ...args], { encoding: 'utf8' });
  return { status: result.status, out: `${result.stdout}${result.stderr}` };
}
