import { execFileSync } from 'node:child_process';
import { link, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { JsonValue } from '@agentlane/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DefinedTool, type ToolContext, workspaceTools } from '../src/index';

/** A workspace and, next to it on the same file system, an "outside" folder holding a file the agent must not touch. */
let base: string;
let work: string;
let outside: string;
const SECRET = 'outside content\n';

beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), 'rt-escape-'));
  work = join(base, 'work');
  outside = join(base, 'outside');
  await mkdir(work);
  await mkdir(outside);
  await writeFile(join(outside, 'secret.txt'), SECRET);
  await writeFile(join(work, 'inside.txt'), 'inside\n');
  await symlink(join(outside, 'not-yet.txt'), join(work, 'dangling'));
  await symlink(join(outside, 'secret.txt'), join(work, 'to-secret'));
  await symlink(outside, join(work, 'outdir'));
  await symlink(join(work, 'inside.txt'), join(work, 'to-inside'));
  await link(join(outside, 'secret.txt'), join(work, 'hard'));
  execFileSync('mkfifo', [join(work, 'fifo')]);
});
afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

const tools = new Map(workspaceTools({ approveWrites: false }).map((t) => [t.name, t]));
const changed: JsonValue[] = [];
const ctx: ToolContext = {
  signal: new AbortController().signal,
  get workspace() {
    return work;
  },
  toolCallId: 'call_x',
  progress: () => {},
  terminal: () => true,
  fileChanged: (c) => changed.push(c as never),
  artifact: () => {},
  ask: async () => ({ outcome: 'cancelled' }),
};
const run = (name: string, input: Record<string, unknown>) =>
  (tools.get(name) as DefinedTool).execute(input as never, ctx);
const secret = () => readFile(join(outside, 'secret.txt'), 'utf8');

describe('special files and odd paths', () => {
  it('a FIFO nobody writes to is refused at once, by every file tool (its open used to wait forever)', async () => {
    // Five in a row: before, four waiting opens held all of libuv's file threads and every later file
    // operation of the process waited behind them.
    for (let i = 0; i < 5; i++)
      await expect(run('read_file', { path: 'fifo' })).rejects.toThrow(/not a regular file/);
    await expect(run('write_file', { path: 'fifo', content: 'x' })).rejects.toThrow(/not a regular file/);
    await expect(run('edit_file', { path: 'fifo', oldText: 'a', newText: 'b' })).rejects.toThrow(
      /not a regular file/,
    );
    expect(await run('read_file', { path: 'inside.txt' })).toMatchObject({});
  });

  it('a NUL in a path is refused without naming where the workspace is', async () => {
    const error = await run('read_file', { path: 'sub\u0000/x' }).catch((e: Error) => e);
    expect(String(error)).toMatch(/NUL/);
    expect(String(error)).not.toContain(work);
  });
});

describe('workspace confinement against links', () => {
  it('write_file refuses a dangling symlink that points out (no file appears outside)', async () => {
    await expect(run('write_file', { path: 'dangling', content: 'x' })).rejects.toThrow(/symlink/);
    await expect(readFile(join(outside, 'not-yet.txt'), 'utf8')).rejects.toThrow(/ENOENT/);
  });

  it('write_file refuses a symlink to an outside file and a symlinked folder that leads out', async () => {
    await expect(run('write_file', { path: 'to-secret', content: 'x' })).rejects.toThrow(/symlink/);
    await expect(run('write_file', { path: 'outdir/new.txt', content: 'x' })).rejects.toThrow(/symlink/);
    await expect(run('write_file', { path: 'outdir/secret.txt', content: 'x' })).rejects.toThrow(/symlink/);
    expect(await secret()).toBe(SECRET);
    await expect(readFile(join(outside, 'new.txt'), 'utf8')).rejects.toThrow(/ENOENT/);
  });

  it('read, write and edit refuse a hard link to an outside file, and the file is left as it was', async () => {
    await expect(run('read_file', { path: 'hard' })).rejects.toThrow(/hard links/);
    await expect(run('write_file', { path: 'hard', content: 'x' })).rejects.toThrow(/hard links/);
    await expect(run('edit_file', { path: 'hard', oldText: 'outside', newText: 'pwned' })).rejects.toThrow(
      /hard links/,
    );
    expect(await secret()).toBe(SECRET);
    expect(await run('search_files', { pattern: 'outside content' })).toEqual([]);
  });

  it('reads refuse links out; a link that stays inside may be read, never written through', async () => {
    await expect(run('read_file', { path: 'to-secret' })).rejects.toThrow(/out of the workspace/);
    await expect(run('read_file', { path: 'outdir/secret.txt' })).rejects.toThrow(/out of the workspace/);
    expect(await run('read_file', { path: 'to-inside' })).toBe('inside\n');
    await expect(run('write_file', { path: 'to-inside', content: 'x' })).rejects.toThrow(/symlink/);
    expect(await readFile(join(work, 'inside.txt'), 'utf8')).toBe('inside\n');
  });

  it('plain files still work: create, overwrite, edit, read', async () => {
    changed.length = 0;
    await run('write_file', { path: 'sub/new.txt', content: 'one\n' });
    await run('write_file', { path: 'sub/new.txt', content: 'two\n' });
    await run('edit_file', { path: 'sub/new.txt', oldText: 'two', newText: 'three' });
    expect(await run('read_file', { path: 'sub/new.txt' })).toBe('three\n');
    expect(changed.map((c) => (c as { change: string }).change)).toEqual(['created', 'modified', 'modified']);
  });
});
