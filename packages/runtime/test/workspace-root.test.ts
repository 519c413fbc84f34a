import { realpathSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { JsonValue } from '@agentlane/contract';
import type { TurnIO } from '@agentlane/engine-kit';
import { type FakeModelServer, type ModelReply, startFakeModelServer } from '@agentlane/fake-model-server';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  type DefinedTool,
  runStagedTurn,
  type SessionMemory,
  type ToolContext,
  type TurnDeps,
  workspaceTools,
} from '../src/index';

/**
 * The workspace folder replaced by a link out of it after the session started (an earlier, approved
 * command: `rm -r ws && ln -s /elsewhere ws`): every workspace tool refuses, in that turn and the next,
 * and a sub-agent started afterwards too.
 */
let base: string;
let work: string;
let outside: string;
const OUTSIDE = 'OUTSIDE-CONTENT\n';

beforeEach(async () => {
  base = realpathSync(await mkdtemp(join(tmpdir(), 'rt-root-')));
  work = join(base, 'ws');
  outside = join(base, 'outside');
  await mkdir(work);
  await mkdir(outside);
  await writeFile(join(work, 'inside.txt'), 'inside\n');
  await writeFile(join(outside, 'secret.txt'), OUTSIDE);
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

const outsideNames = async () => (await readdir(outside)).sort();
const REFUSED = /no longer resolves to .*ws, where the session started/;

describe('a workspace folder replaced after the root was pinned', () => {
  const tools = new Map(
    workspaceTools({ approveWrites: false, approveCommands: false }).map((t) => [t.name, t]),
  );
  const ctx = (): ToolContext => ({
    signal: new AbortController().signal,
    workspace: work,
    workspaceRoot: work,
    toolCallId: 'call_p',
    progress: () => {},
    terminal: () => true,
    fileChanged: () => {},
    artifact: () => {},
    ask: async () => ({ outcome: 'cancelled' }),
  });
  const run = (name: string, input: Record<string, unknown>) =>
    (tools.get(name) as DefinedTool).execute(input as never, ctx());

  it('every workspace tool refuses, and nothing outside is read or changed', async () => {
    expect(await run('read_file', { path: 'inside.txt' })).toBe('inside\n');
    await rename(work, `${work}-old`);
    await symlink(outside, work);
    await expect(run('read_file', { path: 'secret.txt' })).rejects.toThrow(REFUSED);
    await expect(run('write_file', { path: 'new.txt', content: 'x' })).rejects.toThrow(REFUSED);
    await expect(run('edit_file', { path: 'secret.txt', oldText: 'OUT', newText: 'x' })).rejects.toThrow(
      REFUSED,
    );
    await expect(run('list_files', {})).rejects.toThrow(REFUSED);
    await expect(run('search_files', { pattern: 'OUTSIDE' })).rejects.toThrow(REFUSED);
    await expect(run('run_command', { command: 'echo hi > made-by-command' })).rejects.toThrow(REFUSED);
    expect(await outsideNames()).toEqual(['secret.txt']);
    expect(await readFile(join(outside, 'secret.txt'), 'utf8')).toBe(OUTSIDE);
  });

  it('the approval card of a write (its diff reads the file) refuses too', async () => {
    await rename(work, `${work}-old`);
    await symlink(outside, work);
    const ask = workspaceTools().find((t) => t.name === 'write_file')?.needsApproval;
    if (typeof ask !== 'function') throw new Error('write_file asks by default');
    await expect(
      ask({ path: 'secret.txt', content: 'x' } as never, { workspace: work, workspaceRoot: work }),
    ).rejects.toThrow(REFUSED);
  });
});

/** The runtime pins the root itself: a real staged turn on the fake model server, two turns of one session. */
describe('the runtime pins the workspace root for the session', () => {
  let fake: FakeModelServer;
  beforeAll(async () => {
    fake = await startFakeModelServer({ script: [{ text: 'ok' }] });
  });
  afterAll(async () => {
    await fake?.close();
  });

  const session = (): SessionMemory => ({
    loaded: true,
    conversation: [],
    plan: [],
    checkpointId: undefined,
    saved: undefined,
  });
  const deps = (memory: SessionMemory, subagents = false, apiKey = 'k'): TurnDeps => ({
    threadId: 'thr_root',
    workspace: work,
    settings: { api: 'openai-chat', model: 'fake-model', baseURL: `${fake.url}/v1`, apiKey },
    tools: workspaceTools({ approveWrites: false, approveCommands: false }),
    plugins: [],
    saver: undefined,
    plan: false,
    maxSteps: 8,
    systemPrompt: 'test',
    clock: () => '2026-01-01T00:00:00.000Z',
    ids: (() => {
      let n = 0;
      return () => `id${++n}`;
    })(),
    session: memory,
    ...(subagents ? { subagents: { depth: 0, maxDepth: 2, plan: false } } : {}),
  });
  /** Runs one turn with `replies`; returns each tool call's end (status and error or output). */
  async function turn(d: TurnDeps, id: string, replies: ModelReply[]) {
    fake.setScenario(replies);
    const frames: JsonValue[] = [];
    const collect = (f: JsonValue) => {
      frames.push(f);
      const r = f as { rt?: string; frame?: JsonValue };
      if (r.rt === 'child' && r.frame) collect(r.frame);
    };
    const io: TurnIO = {
      emit: collect,
      signal: new AbortController().signal,
      awaitApproval: async () => ({ outcome: 'selected', optionId: 'allow' }),
      awaitQuestion: async () => ({ outcome: 'declined' }),
    };
    await runStagedTurn(d, { threadId: 'thr_root', runId: id, turnId: id, prompt: 'go' }, io);
    const ends = new Map<string, { status: string; error?: string; output?: JsonValue }>();
    for (const f of frames as { rt?: string; toolCallId?: string }[])
      if (f.rt === 'tool.end') ends.set(f.toolCallId as string, f as never);
    return ends;
  }
  const swap = `rm -r '${'WS'}' && ln -s '${'OUT'}' '${'WS'}'`;

  it('a command that swaps the folder for a link out: later calls and turns refuse', async () => {
    const memory = session();
    const d = deps(memory);
    const cmd = swap.replaceAll('WS', work).replaceAll('OUT', outside);
    const first = await turn(d, 'run_1', [
      { toolCalls: [{ name: 'run_command', arguments: { command: cmd }, id: 'call_swap' }] },
      { toolCalls: [{ name: 'read_file', arguments: { path: 'secret.txt' }, id: 'call_read' }] },
      { text: 'done' },
    ]);
    expect(first.get('call_swap')?.status).toBe('completed');
    expect(first.get('call_read')?.status).toBe('failed');
    expect(first.get('call_read')?.error).toMatch(REFUSED);

    const second = await turn(d, 'run_2', [
      {
        toolCalls: [
          { name: 'write_file', arguments: { path: 'new.txt', content: 'x' }, id: 'call_w' },
          { name: 'list_files', arguments: {}, id: 'call_l' },
        ],
      },
      { text: 'done' },
    ]);
    expect(second.get('call_w')?.error).toMatch(REFUSED);
    expect(second.get('call_l')?.error).toMatch(REFUSED);
    expect(await outsideNames()).toEqual(['secret.txt']);
  });

  it("a sub-agent started after the swap keeps its parent's root", async () => {
    const d = deps(session(), true);
    const cmd = swap.replaceAll('WS', work).replaceAll('OUT', outside);
    const ends = await turn(d, 'run_3', [
      { toolCalls: [{ name: 'run_command', arguments: { command: cmd }, id: 'call_swap' }] },
      { toolCalls: [{ name: 'task', arguments: { description: 'd', prompt: 'list' }, id: 'call_task' }] },
      { toolCalls: [{ name: 'list_files', arguments: {}, id: 'call_child_list' }] },
      { text: 'child done' },
      { text: 'parent done' },
    ]);
    expect(ends.get('call_swap')?.status).toBe('completed');
    expect(ends.get('call_child_list')?.status).toBe('failed');
    expect(ends.get('call_child_list')?.error).toMatch(REFUSED);
  });

  it("the model's configured key reaches no command, whatever variable holds it", async () => {
    const key = 'sk-configured-key-0123456789';
    process.env.HARMLESS_NAME = key;
    try {
      const ends = await turn(deps(session(), false, key), 'run_4', [
        { toolCalls: [{ name: 'run_command', arguments: { command: 'env' }, id: 'call_env' }] },
        { text: 'done' },
      ]);
      expect(ends.get('call_env')?.status).toBe('completed');
      expect(JSON.stringify(ends.get('call_env')?.output)).toContain('PATH=');
      expect(JSON.stringify(ends.get('call_env')?.output)).not.toContain(key);
    } finally {
      delete process.env.HARMLESS_NAME;
    }
  });
});
