import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { HttpError, workspaceGuard } from '../src/index';

const root = mkdtempSync(join(tmpdir(), 'agentlane-ws-guard-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
mkdirSync(join(root, 'ok'));
writeFileSync(join(root, 'afile'), 'x');
symlinkSync(join(root, 'loop2'), join(root, 'loop1'));
symlinkSync(join(root, 'loop1'), join(root, 'loop2'));

function refusal(workDir: string) {
  try {
    workspaceGuard(root)(workDir);
    return undefined;
  } catch (err) {
    return err;
  }
}

describe('a workDir that can never be a folder is a 400 naming the field', () => {
  it.each([
    ['a path under a file', join(root, 'afile', 'sub'), /through a file/],
    ['a loop of symbolic links', join(root, 'loop1', 'sub'), /loop of symbolic links/],
    ['a name too long', join(root, 'x'.repeat(300)), /too long/],
    ['a file', join(root, 'afile'), /names a file/],
  ])('%s', (_, workDir, why) => {
    const err = refusal(workDir);
    expect(err).toBeInstanceOf(HttpError);
    expect(err).toMatchObject({ field: 'body.workDir' });
    expect(String((err as Error).message)).toMatch(why);
  });

  it('folders inside the root, existing or not, pass', () => {
    expect(workspaceGuard(root)(join(root, 'ok'))).toBe(join(root, 'ok'));
    expect(workspaceGuard(root)(join(root, 'new', 'deeper'))).toBe(join(root, 'new', 'deeper'));
  });
});
