import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  answer,
  type FakeModelServer,
  startFakeModelServer,
  toolThenAnswer,
  writeFileTool,
} from '@agentlane/fake-model-server';
import {
  engineEntries,
  freePort,
  type ServeProcess,
  startServeProcess,
  waitForEngineTranscript,
} from '@agentlane/test-engines';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kill, spawnAcp } from './support/acp-process';
import { agentText } from './support/acp-text';

/**
 * `agentlane acp --engine claude --server URL` spawned and driven by the SDK's client side, as a client of a
 * real `agentlane serve` process whose engine is the pinned Claude Code ACP agent on the fake model server.
 * The agent process, agentlane and Claude Code are all SIGKILLed; a new agent on the restarted server lists,
 * loads and resumes the session, and Claude Code continues its own conversation.
 */
const entry = engineEntries().claude;
if (!entry) {
  if (process.env.CI === 'true') throw new Error('Claude Code ACP is not installed in testing/engines');
  console.warn('[skip] agentlane acp --server: the pinned Claude Code ACP is not installed');
}

let fake: FakeModelServer;
let dir: string;
let work: string;
const processes: ServeProcess[] = [];

const startServe = async (port: number) => {
  const serve = await startServeProcess([
    ...['--port', String(port), '--db', join(dir, 'agentlane.db'), '--config', join(dir, 'agentlane.json')],
    ...['--run-lease-ms', '1000', '--run-lease-renew-ms', '250'],
  ]);
  processes.push(serve);
  return serve;
};

/** SIGKILLs agentlane serve and the engine processes it started (only its own children). */
async function crash(serve: ServeProcess): Promise<void> {
  const pid = serve.child.pid;
  const children = execFileSync('ps', ['-o', 'pid=', '--ppid', String(pid)], { encoding: 'utf8' })
    .split('\n')
    .map((line) => Number(line.trim()))
    .filter((n) => n > 0);
  await serve.kill();
  for (const child of children) {
    try {
      process.kill(-child, 'SIGKILL');
    } catch {
      try {
        process.kill(child, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
  }
}

beforeAll(async () => {
  if (!entry) return;
  fake = await startFakeModelServer();
  dir = await mkdtemp(join(tmpdir(), 'agentlane-acp-server-'));
  work = await mkdtemp(join(tmpdir(), 'agentlane-acp-server-work-'));
  const engine = {
    name: 'claude',
    type: 'acp',
    preset: 'claude-code',
    entry,
    modelBaseUrl: fake.url,
    homeRoot: join(dir, 'homes'),
  };
  await writeFile(
    join(dir, 'agentlane.json'),
    JSON.stringify({ workDir: work, recordedSessions: false, engines: [engine] }),
  );
}, 60_000);

afterAll(async () => {
  for (const serve of processes) await crash(serve).catch(() => {});
  await fake?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
  if (work) await rm(work, { recursive: true, force: true });
});

describe.skipIf(!entry)('agentlane acp --server (a client of agentlane serve, Claude Code behind it)', () => {
  it('a prompt with a permission request; everything killed; a new agent lists, loads and resumes the session', async () => {
    // The agent waits for its server: both start side by side.
    const port = await freePort();
    const args = ['--engine', 'claude', '--server', `http://127.0.0.1:${port}`];
    const first = spawnAcp(args);
    let serve = await startServe(port);
    await first.conn.agent.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
    const { sessionId } = await first.conn.agent.request('session/new', { cwd: work, mcpServers: [] });
    const target = join(work, 'hello.txt');
    fake.setScenario(toolThenAnswer({ tool: writeFileTool(target, 'hi\n'), answer: 'Done: hello.txt.' }));
    const result = await first.conn.agent.request('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: 'Create hello.txt' }],
    });
    expect(result.stopReason).toBe('end_turn');
    expect(first.asked.length).toBe(1);
    expect(await readFile(target, 'utf8')).toBe('hi\n');
    const said = agentText(first.updates);
    expect(said).toContain('Done: hello.txt.');
    // The editor's session is the server's thread (the web UI shows the same one).
    expect((await fetch(`${serve.api}/sessions/${sessionId}`)).status).toBe(200);

    // Claude Code writes its transcript after answering: crash everything once it is there.
    await waitForEngineTranscript(join(dir, 'homes'), 'Done: hello.txt.');
    await kill(first.child);
    await crash(serve);
    const second = spawnAcp(args);
    serve = await startServe(port);
    const init = await second.conn.agent.request('initialize', {
      protocolVersion: 1,
      clientCapabilities: {},
    });
    // Claude Code's session was opened once: its negotiated flags say it can reattach, so resume is offered.
    const meta = init.agentCapabilities?._meta as
      | { agentlane: { capabilities: Record<string, boolean> | null } }
      | undefined;
    const flags = meta?.agentlane.capabilities;
    expect(flags?.resume || flags?.load).toBe(true);
    expect(init.agentCapabilities?.sessionCapabilities?.resume).toEqual({});
    const list = await second.conn.agent.request('session/list', {});
    expect(list.sessions.map((s) => s.sessionId)).toContain(sessionId);
    await second.conn.agent.request('session/load', { sessionId, cwd: work, mcpServers: [] });
    expect(second.updates[0]?.update).toMatchObject({
      sessionUpdate: 'user_message_chunk',
      content: { text: 'Create hello.txt' },
    });
    expect(agentText(second.updates)).toBe(said);
    await second.conn.agent.request('session/resume', { sessionId, cwd: work, mcpServers: [] });

    fake.setScenario(answer('Still here.'));
    const requests = fake.modelRequests().length;
    const loaded = second.updates.length;
    const next = await second.conn.agent.request('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: 'Are you still there?' }],
    });
    expect(next.stopReason).toBe('end_turn');
    expect(agentText(second.updates.slice(loaded))).toBe('Still here.');
    // A new Claude Code process continued its own session: the earlier turn went to the model again.
    const sent = JSON.stringify(
      fake
        .modelRequests()
        .slice(requests)
        .map((r) => r.body),
    );
    expect(sent).toContain('Create hello.txt');
    expect(existsSync(target)).toBe(true);
    expect(second.stderr()).not.toContain('Error');
    await kill(second.child);
  }, 120_000);
});
