import { execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createDriver } from '@agentlane/adapter-acp';
import {
  answer,
  type FakeModelServer,
  slowStream,
  toolThenAnswer,
  writeFileTool,
} from '@agentlane/fake-model-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backdateGeminiSessions, waitForEngineTranscript } from '../src/index';
// The OpenCode suite's small stack helper (serve's composition around given drivers, SSE follower).
import { post, rawBesideFrames, startStack, ThreadStream } from './opencode-stack';
import { installedAcpEngines, presets, until } from './support/acp-engines';
import { answerApproval, type Canonical, cancelMidMessage, done, requestedApproval } from './support/api';
import { type Fixture, startFixture } from './support/fixture';

const { entries, engines: ENGINES } = installedAcpEngines('HTTP end-to-end');

type Run = { run: { runId: string } };

/** The engine processes this test process spawned whose command line names `entry`. */
function enginePids(entry: string): number[] {
  const out = execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(process.pid)], { encoding: 'utf8' });
  return out
    .split('\n')
    .filter((line) => line.includes(entry))
    .map((line) => Number(line.trim().split(/\s+/)[0]))
    .filter((pid) => pid > 0);
}

function exists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe.each(ENGINES)('%s end to end through agentlane’s HTTP API', { timeout: 300_000 }, (name) => {
  let fixture: Fixture;
  let fake: FakeModelServer;
  let dir: string;
  let work: string;
  let stack: Awaited<ReturnType<typeof startStack>>;
  let threadId: string;
  const kindsSeen = new Set<string>();

  const boot = async () => {
    const driver = createDriver(
      presets[name]({ entry: entries[name]!, modelBaseUrl: fake.url, homeRoot: join(dir, 'homes') }),
    );
    stack = await startStack({ db: join(dir, 'agentlane.db'), drivers: [driver], workDir: work });
  };

  const startRun = async (prompt: string) => {
    const created = await post(`${stack.api}/threads/${threadId}/runs`, { prompt });
    expect(created.status).toBe(201);
    return (created.json as Run).run.runId;
  };

  const getRun = async (runId: string) =>
    ((await (await fetch(`${stack.api}/runs/${runId}`)).json()) as { run: Record<string, unknown> }).run;
  const getSession = async () =>
    (
      (await (await fetch(`${stack.api}/sessions/${threadId}`)).json()) as {
        session: { generation: number; nativeSessionId: string | null };
      }
    ).session;

  const collect = (events: Canonical[]) => {
    for (const e of events) kindsSeen.add(e.type);
  };

  beforeAll(async () => {
    fixture = await startFixture(`agentlane-acp-http-${name}`);
    ({ fake, dir, work } = fixture);
    await boot();
  }, 60_000);

  afterAll(async () => {
    console.info(`[${name} e2e] canonical kinds: ${[...kindsSeen].join(', ')}`);
    await stack?.stop();
    await fixture?.close();
  });

  it('a prompt writes a file after the approval is answered through the API', async () => {
    const target = join(work, 'hello.txt');
    fake.setScenario(
      toolThenAnswer({ tool: writeFileTool(target, 'Hello over HTTP!\n'), answer: 'Done: hello.txt.' }),
    );
    const session = await post(`${stack.api}/sessions`, { engine: name, title: 'e2e', workDir: work });
    expect(session.status).toBe(201);
    threadId = (session.json as { session: { id: string } }).session.id;
    const stream = new ThreadStream(`${stack.api}/threads/${threadId}/events`);
    const runId = await startRun('Create hello.txt');
    await stream.waitFor((events) => events.some((e) => e.type === 'approval.requested'));
    const { payload, allowOnce: option } = requestedApproval(stream);
    expect(option).toBeDefined();
    await answerApproval(stack.api, runId, payload?.approvalId, option?.optionId);
    await stream.waitFor(done(runId));
    stream.close();

    expect(await readFile(target, 'utf8')).toBe('Hello over HTTP!\n');
    const events = stream.canonical(runId);
    collect(events);
    const kinds = events.map((e) => e.type);
    for (const kind of [
      'session.started',
      'turn.started',
      'tool.started',
      'approval.requested',
      'approval.resolved',
      'tool.completed',
      'message.completed',
      'turn.completed',
    ]) {
      expect(kinds, kind).toContain(kind);
    }
    // Every engine edits with a tool that reports a diff (Codex through apply_patch).
    expect(kinds).toContain('file.changed');
    const file = events.find((e) => e.type === 'file.changed');
    // Gemini sends a new file's diff with oldText "" rather than null, so it reads as a modification.
    const change = file?.event.kind === 'file.changed' ? file.event.payload.change : 'none';
    expect(name === 'gemini' ? ['created', 'modified'] : ['created']).toContain(change);
    const resolved = events.find((e) => e.type === 'approval.resolved');
    expect(resolved?.event.payload).toMatchObject({
      outcome: 'selected',
      optionId: option?.optionId,
      decision: 'allow_once',
    });
    const texts = events.flatMap((e) => (e.event.kind === 'message.completed' ? [e.event.payload.text] : []));
    expect(texts).toContain('Done: hello.txt.');
    expect(events.filter((e) => e.type === 'turn.completed')).toHaveLength(1);
    expect(events.find((e) => e.type === 'turn.completed')?.event.payload).toMatchObject({
      stopReason: 'end_turn',
    });

    // The raw sidecar holds each JSON-RPC line as it crossed the engine's stdio, next to its parsed frame.
    const stored = await rawBesideFrames(stack.store, runId);
    const rpc = stored.filter((r) => (r.frame as { msg?: unknown }).msg !== undefined);
    expect(rpc.length).toBeGreaterThan(5);
    for (const r of stored) {
      // Every JSON-RPC frame has its line; frames agentlane makes (harness, acp.commands) have none.
      if (!rpc.includes(r)) expect(r.storage).toBeNull();
      else if (r.storage !== 'inline') expect(r.bytes).toBeGreaterThan(8 * 1024);
      else expect(JSON.parse(r.text ?? '')).toEqual((r.frame as { msg?: unknown }).msg);
    }
    const lines = stored.map((r) => r.text ?? '');
    expect(lines.some((l) => l.includes('"session/request_permission"'))).toBe(true);
    expect(lines.some((l) => l.includes('"session/prompt"') && l.includes('Create hello.txt'))).toBe(true);
  });

  it('run.cancel mid-turn ends the turn cancelled', async () => {
    fake.setScenario(slowStream({ chunks: 400, delayMs: 50 }));
    const stream = new ThreadStream(`${stack.api}/threads/${threadId}/events`);
    const runId = await startRun('Talk slowly');
    await cancelMidMessage(stack.api, stream, runId);
    const events = stream.canonical(runId);
    collect(events);
    const ended = events.filter((e) => e.type === 'turn.completed');
    expect(ended).toHaveLength(1);
    expect(ended[0]?.event.payload).toMatchObject({ stopReason: 'cancelled' });
    // The contract has four run statuses: a cancelled run ends completed, with outcome cancelled and no error.
    const status = stream.events.filter((e) => e.type === 'run.status' && e.runId === runId).at(-1);
    expect(status).toMatchObject({ status: 'completed' });
    expect(await getRun(runId)).toMatchObject({ status: 'completed', outcome: 'cancelled', error: null });
  });

  it('after an agentlane restart the same thread takes a second prompt', async () => {
    await stack.stop();
    // Gemini only finds its session after a restart in a later minute: make it always so, so that the run
    // always goes through its history replay (streamed after the load response) instead of by the clock.
    if (name === 'gemini') expect(backdateGeminiSessions(join(dir, 'homes'))).toBeGreaterThan(0);
    fake.setScenario(answer('Still here after the restart.'));
    await boot();
    const stream = new ThreadStream(`${stack.api}/threads/${threadId}/events`);
    const runId = await startRun('Are you still there?');
    await stream.waitFor(done(runId));
    stream.close();
    const events = stream.canonical(runId);
    collect(events);
    const started = events.find((e) => e.type === 'session.started');
    const generation = started?.event.kind === 'session.started' ? started.event.payload.generation : 0;
    expect(generation).toBeGreaterThan(1);
    const texts = events.flatMap((e) => (e.event.kind === 'message.completed' ? [e.event.payload.text] : []));
    // The history an engine replays on load adds nothing: the new run holds its prompt and its answer only.
    expect(texts).toEqual(['Are you still there?', 'Still here after the restart.']);
    if (name === 'gemini') {
      expect(started?.event.payload).toMatchObject({ origin: 'load' });
      expect(events.filter((e) => e.type === 'context.marker')).toHaveLength(2);
    }
  });

  it('an engine that dies between runs is restarted before the next run, which continues the session', async () => {
    fake.setScenario(answer('Noted.'));
    const stream = new ThreadStream(`${stack.api}/threads/${threadId}/events`);
    const first = await startRun('Remember the word mango.');
    await stream.waitFor(done(first));
    // The engine keeps its own transcript and writes it after answering: kill it only once the turn is there.
    await waitForEngineTranscript(join(dir, 'homes'), 'Noted.');
    const before = await getSession();
    const pids = enginePids(entries[name]!);
    expect(pids.length).toBeGreaterThan(0);
    for (const pid of pids) process.kill(-pid, 'SIGKILL');
    // Gone means reaped (a zombie still answers signal 0), so agentlane has seen the exit too.
    await until(() => pids.every((pid) => !exists(pid)), 30_000);

    fake.setScenario(answer('The word was mango.'));
    const requests = fake.modelRequests().length;
    const next = await startRun('What was the word?');
    await stream.waitFor(done(next));
    stream.close();
    const events = stream.canonical(next);
    collect(events);
    expect(await getRun(next)).toMatchObject({ status: 'completed', outcome: 'completed', error: null });
    const texts = events.flatMap((e) => (e.event.kind === 'message.completed' ? [e.event.payload.text] : []));
    expect(texts).toContain('The word was mango.');
    const errors = events.flatMap((e) => (e.event.kind === 'harness.error' ? [e.event.payload] : []));
    expect(errors.every((e) => !e.fatal)).toBe(true);
    expect(errors.map((e) => e.message)).toContainEqual(
      expect.stringContaining('exited after the previous run'),
    );
    const started = events.find((e) => e.type === 'session.started');
    const payload = started?.event.kind === 'session.started' ? started.event.payload : null;
    const after = await getSession();
    expect(payload?.generation).toBe(after.generation);
    expect(after.generation).toBeGreaterThan(before.generation);
    if (after.nativeSessionId === before.nativeSessionId) {
      expect(['load', 'resume']).toContain(payload?.origin);
      // The restarted engine sent the earlier turn with the new prompt.
      expect(
        JSON.stringify(
          fake
            .modelRequests()
            .slice(requests)
            .map((r) => r.body),
        ),
      ).toContain('mango');
    } else {
      // The engine could not continue its own session: agentlane says so and goes on with a new one.
      console.warn(`${name} could not continue its session after its process died; a new one was started`);
      expect(payload?.origin).toBe('new');
      expect(errors.map((e) => e.message)).toContainEqual(expect.stringContaining('could not continue'));
    }
  });

  it('an engine killed mid-turn fails the run with a fatal harness.error; the thread keeps working', async () => {
    fake.setScenario(slowStream({ chunks: 400, delayMs: 50 }));
    const stream = new ThreadStream(`${stack.api}/threads/${threadId}/events`);
    const runId = await startRun('Talk slowly again');
    await stream.waitFor((events) =>
      events.some((e) => 'event' in e && e.event.runId === runId && e.type === 'message.delta'),
    );
    const pids = enginePids(entries[name]!);
    expect(pids.length).toBeGreaterThan(0);
    for (const pid of pids) process.kill(-pid, 'SIGKILL');
    await stream.waitFor(done(runId));
    const events = stream.canonical(runId);
    collect(events);
    const fatal = events.filter((e) => e.event.kind === 'harness.error' && e.event.payload.fatal);
    expect(fatal.length).toBeGreaterThanOrEqual(1);
    expect(events.find((e) => e.type === 'turn.completed')?.event.payload).toMatchObject({
      stopReason: 'error',
    });
    const status = stream.events.filter((e) => e.type === 'run.status' && e.runId === runId).at(-1);
    expect(status).toMatchObject({ status: 'failed' });

    fake.setScenario(answer('A new engine answers.'));
    const next = await startRun('Hello again');
    await stream.waitFor(done(next));
    stream.close();
    const after = stream.canonical(next);
    collect(after);
    const texts = after.flatMap((e) => (e.event.kind === 'message.completed' ? [e.event.payload.text] : []));
    expect(texts).toContain('A new engine answers.');
  });
});
