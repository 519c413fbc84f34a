import { spawn, spawnSync } from 'node:child_process';
import { realpathSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type DefinedTool, type ToolContext, workspaceTools } from '../src/index';
import { raceHook } from '../src/tools/workspace-fd';

/**
 * A folder of the workspace swapped for a link out of it between the tools' check and their use (what a
 * racing process does by chance): first deterministically, through the test seam that runs right before
 * each open, then with a real racing process for a bounded time.
 */
let base: string;
let work: string;
let outside: string;
const OUTSIDE = 'OUTSIDE-CONTENT';

beforeEach(async () => {
  // The real path: the tools name folders by it (tmpdir may be a link, as on macOS).
  base = realpathSync(await mkdtemp(join(tmpdir(), 'rt-race-')));
  work = join(base, 'work');
  outside = join(base, 'outside');
  await mkdir(join(work, 'd'), { recursive: true });
  await mkdir(outside);
  await writeFile(join(work, 'd', 'f.txt'), 'inside\n');
  await writeFile(join(outside, 'f.txt'), `${OUTSIDE}\n`);
  await writeFile(join(outside, 'only-outside.txt'), `${OUTSIDE}\n`);
});
afterEach(async () => {
  delete raceHook.beforeOpen;
  await rm(base, { recursive: true, force: true });
});

const tools = new Map(workspaceTools({ approveWrites: false }).map((t) => [t.name, t]));
const ctx = (): ToolContext => ({
  signal: new AbortController().signal,
  workspace: work,
  toolCallId: 'call_r',
  progress: () => {},
  terminal: () => true,
  fileChanged: () => {},
  artifact: () => {},
  ask: async () => ({ outcome: 'cancelled' }),
});
const run = (name: string, input: Record<string, unknown>) =>
  (tools.get(name) as DefinedTool).execute(input as never, ctx());
const outsideNames = async () => (await readdir(outside, { recursive: true })).sort();

/** Swaps work/d for a link to the outside folder the first time the tools are about to open `at`. */
function swapBefore(at: (path: string) => boolean): void {
  raceHook.beforeOpen = async (path) => {
    if (!at(path)) return;
    delete raceHook.beforeOpen;
    await rename(join(work, 'd'), join(work, 'd-moved'));
    await symlink(outside, join(work, 'd'));
  };
}
/** Moves work/d (the folder itself, held open by the tool) out of the workspace right before `at` is opened. */
function moveOutBefore(at: (path: string) => boolean): void {
  raceHook.beforeOpen = async (path) => {
    if (!at(path)) return;
    delete raceHook.beforeOpen;
    await rename(join(work, 'd'), join(outside, 'd'));
  };
}

describe('a folder swapped for a link between the check and the open', () => {
  it('write_file into it fails and creates nothing outside', async () => {
    swapBefore((p) => p === join(work, 'd'));
    await expect(run('write_file', { path: 'd/new.txt', content: 'x' })).rejects.toThrow(
      /not a folder \(or a link now\)|symlink|out of the workspace/,
    );
    expect(await outsideNames()).toEqual(['f.txt', 'only-outside.txt']);
  });

  it('write_file with folders to make: swapped before the level is made, no folder appears outside', async () => {
    swapBefore((p) => p === join(work, 'd'));
    await expect(run('write_file', { path: 'd/a/b/new.txt', content: 'x' })).rejects.toThrow();
    expect(await outsideNames()).toEqual(['f.txt', 'only-outside.txt']);
  });

  it('a file created in a folder that was moved out meanwhile is removed again, and the call fails', async () => {
    moveOutBefore((p) => p === join(work, 'd', 'new.txt'));
    await expect(run('write_file', { path: 'd/new.txt', content: 'x' })).rejects.toThrow(
      /path leads out of the workspace: d\/new.txt/,
    );
    // The folder is outside now (the test moved it), the file the call created in it is gone again.
    expect(await readdir(join(outside, 'd'))).toEqual(['f.txt']);
  });

  it('a folder made in a folder that was moved out meanwhile is removed again', async () => {
    moveOutBefore((p) => p === join(work, 'd', 'a'));
    await expect(run('write_file', { path: 'd/a/new.txt', content: 'x' })).rejects.toThrow(
      /path leads out of the workspace/,
    );
    expect(await readdir(join(outside, 'd'))).toEqual(['f.txt']);
  });

  it('read_file, list_files and search_files refuse or skip what the swap leads to', async () => {
    swapBefore((p) => p === join(work, 'd'));
    await expect(run('read_file', { path: 'd/f.txt' })).rejects.toThrow(/not a folder|symlink|out of/);
    await rm(join(work, 'd'));
    await rename(join(work, 'd-moved'), join(work, 'd'));

    swapBefore((p) => p === join(work, 'd'));
    await expect(run('list_files', { path: 'd' })).rejects.toThrow(/not a folder|symlink|out of/);
    await rm(join(work, 'd'));
    await rename(join(work, 'd-moved'), join(work, 'd'));

    swapBefore((p) => p === join(work, 'd'));
    const found = (await run('search_files', { pattern: 'i' })) as string[];
    expect(JSON.stringify(found)).not.toContain(OUTSIDE);
  });

  it('the workspace root itself swapped for a link right before its open is refused', async () => {
    raceHook.beforeOpen = async (path) => {
      if (path !== work) return;
      delete raceHook.beforeOpen;
      await rename(work, `${work}-moved`);
      await symlink(outside, work);
    };
    await expect(run('read_file', { path: 'f.txt' })).rejects.toThrow(
      /workspace folder .* replaced by a link/,
    );
  });

  it('plain calls still work through the open folders', async () => {
    await run('write_file', { path: 'd/x/y/new.txt', content: 'hello\n' });
    expect(await run('read_file', { path: 'd/x/y/new.txt' })).toBe('hello\n');
    expect(await run('list_files', { path: 'd' })).toEqual(['f.txt', 'x/']);
    expect(await run('search_files', { pattern: 'hello' })).toEqual(['d/x/y/new.txt:1: hello']);
  });
});

/**
 * A child process swaps work/d with a link to the outside folder as fast as it can, for at most RACE_MS,
 * while the tools run in a loop: nothing outside may be read, listed or made. The swap is atomic
 * (renameat2 RENAME_EXCHANGE, through python3 as the probe did) where python3 can call it, else two renames.
 */
const RACE_MS = 1_500;
const EXCHANGE = `
import ctypes, sys, time
libc = ctypes.CDLL(None, use_errno=True)
a, b = sys.argv[1].encode(), sys.argv[2].encode()
end = time.time() + ${RACE_MS / 1000}
while time.time() < end:
    libc.renameat2(-100, a, -100, b, 2)`;
const RENAMES = `
const fs = require('node:fs');
const [d, link, held] = process.argv.slice(1);
const end = Date.now() + ${RACE_MS};
while (Date.now() < end) {
  try { fs.renameSync(d, held); fs.renameSync(link, d); fs.renameSync(d, link); fs.renameSync(held, d); } catch {}
}`;
const canExchange =
  process.platform === 'linux' &&
  spawnSync('python3', ['-c', 'import ctypes; ctypes.CDLL(None).renameat2'], { stdio: 'ignore' }).status ===
    0;

describe('a racing process swapping a folder for a link', () => {
  it('never lets read, write, list or search reach the outside folder', async () => {
    await symlink(outside, join(work, 'd-link'));
    const [d, link] = [join(work, 'd'), join(work, 'd-link')];
    const swapper = canExchange
      ? spawn('python3', ['-c', EXCHANGE, d, link], { stdio: 'ignore' })
      : spawn(process.execPath, ['-e', RENAMES, d, link, join(work, 'd-held')], { stdio: 'ignore' });
    const ended = new Promise((r) => swapper.once('exit', r));
    const kill = setTimeout(() => swapper.kill('SIGKILL'), RACE_MS + 5_000);
    const seen: string[] = [];
    let calls = 0;
    try {
      const until = Date.now() + RACE_MS;
      while (Date.now() < until) {
        // A few names only, so the tree searched stays small; a name not made yet is a create.
        const n = calls++ % 8;
        const results = await Promise.allSettled([
          run('read_file', { path: 'd/f.txt' }),
          run('write_file', { path: `d/w${n}.txt`, content: 'w' }),
          run('write_file', { path: `d/m${n}/x.txt`, content: 'w' }),
          run('list_files', { path: 'd' }),
          run('search_files', { pattern: 'CONTENT' }),
        ]);
        for (const r of results) if (r.status === 'fulfilled') seen.push(JSON.stringify(r.value));
      }
    } finally {
      await ended;
      clearTimeout(kill);
    }
    expect(calls).toBeGreaterThan(10);
    expect(seen.join('\n')).not.toContain(OUTSIDE);
    expect(seen.join('\n')).not.toContain('only-outside.txt');
    expect(await outsideNames()).toEqual(['f.txt', 'only-outside.txt']);
  }, 20_000);
});
