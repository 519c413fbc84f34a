import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { agentlaneFromSource } from '@agentlane/test-engines';
import { afterEach, describe, expect, it } from 'vitest';
import { kill, spawnAcp } from './support/acp-process';
import { agentText } from './support/acp-text';

describe('agentlane acp (spawned, the SDK client side as the client)', () => {
  const cleanup: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const c of cleanup.splice(0).reverse()) await c();
  });

  // The SDK refuses a message over 32 MiB and cancels its reader: stdin's next chunk was then enqueued into
  // the cancelled stream, and the process died with a TypeError's stack and without its shutdown.
  it('a message over the SDK limit ends the connection with one line on stderr and a clean exit', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'acp-big-'));
    cleanup.push(() => rm(dir, { recursive: true, force: true }));
    const config = join(dir, 'agentlane.json');
    await writeFile(config, JSON.stringify({ recordedSessions: true, workDir: dir, engines: [] }));
    const child = spawn(
      process.execPath,
      agentlaneFromSource([
        'acp',
        '--engine',
        'replay-claude-code',
        '--db',
        join(dir, 'a.db'),
        '--config',
        config,
      ]),
      { stdio: ['pipe', 'pipe', 'pipe'] },
    );
    cleanup.push(() => kill(child));
    // The agent stops reading: what is still written to it fails with EPIPE, which is expected here.
    child.stdin.on('error', () => undefined);
    let stderr = '';
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    let stdout = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const init = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: 1, clientCapabilities: {} },
    };
    child.stdin.write(`${JSON.stringify(init)}\n`);
    for (const deadline = Date.now() + 20_000; !stdout.includes('"id":1'); ) {
      if (Date.now() > deadline) throw new Error(`no initialize answer; stderr: ${stderr}`);
      await new Promise((r) => setTimeout(r, 20));
    }
    const big = JSON.stringify({
      jsonrpc: '2.0',
      id: 2,
      method: 'session/list',
      params: { cursor: 'x'.repeat(33 * 1024 * 1024) },
    });
    child.stdin.write(`${big}\n`);
    // More input after it, as an editor would keep writing.
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'session/list', params: {} })}\n`);
    expect(await exited).toBe(0);
    expect(stderr).toMatch(/agentlane acp: the client's stream ended/);
    expect(stderr).not.toMatch(/TypeError|\n\s+at /);
  }, 60_000);

  it('offers an engine found from the environment, as serve does (it was "unknown engine")', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'acp-found-'));
    cleanup.push(() => rm(dir, { recursive: true, force: true }));
    const config = join(dir, 'agentlane.json');
    await writeFile(config, JSON.stringify({ discover: true, workDir: dir, engines: [] }));
    const saved = { key: process.env.OPENAI_API_KEY, url: process.env.OPENAI_BASE_URL };
    process.env.OPENAI_API_KEY = 'sk-test-found-in-env';
    process.env.OPENAI_BASE_URL = 'http://127.0.0.1:9/v1';
    let agent: ReturnType<typeof spawnAcp>;
    try {
      agent = spawnAcp(['--engine', 'builtin-openai', '--db', join(dir, 'a.db'), '--config', config]);
    } finally {
      if (saved.key === undefined) delete process.env.OPENAI_API_KEY;
      else process.env.OPENAI_API_KEY = saved.key;
      if (saved.url === undefined) delete process.env.OPENAI_BASE_URL;
      else process.env.OPENAI_BASE_URL = saved.url;
    }
    cleanup.push(() => kill(agent.child));
    const init = await agent.conn.agent.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
    expect(init.agentInfo?.name).toBe('agentlane');
    const { sessionId } = await agent.conn.agent.request('session/new', { cwd: dir, mcpServers: [] });
    expect(sessionId).toBeTruthy();
    expect(agent.stderr()).not.toContain('unknown engine');
  });

  it('a replayed Claude Code session; the process is killed and a new one loads the session from the store (no resume: not advertised)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'acp-proc-'));
    cleanup.push(() => rm(dir, { recursive: true, force: true }));
    const config = join(dir, 'agentlane.json');
    await writeFile(config, JSON.stringify({ recordedSessions: true, workDir: dir, engines: [] }));
    const args = ['--engine', 'replay-claude-code', '--db', join(dir, 'a.db'), '--config', config];

    const first = spawnAcp(args);
    cleanup.push(() => kill(first.child));
    const init = await first.conn.agent.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
    expect(init.agentInfo?.name).toBe('agentlane');
    const { sessionId } = await first.conn.agent.request('session/new', { cwd: dir, mcpServers: [] });
    const result = await first.conn.agent.request('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: 'Create hello.txt' }],
    });
    expect(result.stopReason).toBe('end_turn');
    const said = agentText(first.updates);
    expect(said).toContain('Done: hello.txt was written.');
    await kill(first.child);

    // A new agent process on the same database: the session is listed, loads with its history, resumes.
    const second = spawnAcp(args);
    cleanup.push(() => kill(second.child));
    const init2 = await second.conn.agent.request('initialize', {
      protocolVersion: 1,
      clientCapabilities: {},
    });
    const list = await second.conn.agent.request('session/list', {});
    expect(list.sessions.map((s) => s.sessionId)).toContain(sessionId);
    await second.conn.agent.request('session/load', { sessionId, cwd: dir, mcpServers: [] });
    expect(second.updates[0]?.update).toMatchObject({ sessionUpdate: 'user_message_chunk' });
    expect(agentText(second.updates)).toBe(said);
    // The recording cannot reattach its engine's session: resume is neither advertised nor served.
    expect(init2.agentCapabilities?.sessionCapabilities?.resume).toBeUndefined();
    const resume = second.conn.agent.request('session/resume', { sessionId, cwd: dir, mcpServers: [] });
    await expect(resume).rejects.toMatchObject({ code: -32601 });
    expect(second.stderr()).not.toContain('Error');
  }, 180_000);
});
