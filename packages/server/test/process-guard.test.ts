import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const guard = fileURLToPath(new URL('../src/process-guard.ts', import.meta.url));

/** A child Node process that rejects a promise nobody handles, with or without the guard. */
function child(withGuard: boolean) {
  const script = `
    ${
      withGuard
        ? `const { keepServingOnUnhandledRejection } = await import(${JSON.stringify(guard)});
    keepServingOnUnhandledRejection((line) => console.error(line));`
        : ''
    }
    Promise.reject(new Error('boom from a handler'));
    setTimeout(() => { console.log('still serving'); }, 100);
  `;
  return spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    encoding: 'utf8',
    timeout: 20_000,
  });
}

describe('keepServingOnUnhandledRejection', () => {
  it('logs an unhandled rejection and keeps the process alive (Node alone exits with 1)', () => {
    const bare = child(false);
    expect(bare.status).toBe(1);
    expect(bare.stdout).not.toContain('still serving');
    const guarded = child(true);
    expect(guarded.status).toBe(0);
    expect(guarded.stdout).toContain('still serving');
    expect(guarded.stderr).toContain('unhandled rejection (kept serving): Error: boom from a handler');
  });
});
