import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AuditableCall, StreamEvent } from '@agentlane/contract';
import { type Scenario, startFakeModelServer } from '@agentlane/fake-model-server';
import { builtinServeConfig, startServeProcess } from '@agentlane/test-engines';
import { afterAll, describe, expect, it } from 'vitest';
import { post, ThreadStream } from './opencode-stack';

type ChatMessage = { role: string; content?: unknown; tool_calls?: unknown[]; tool_call_id?: string };
type Canonical = Extract<StreamEvent, { event: unknown }>;

/** `agentlane serve` on this test's config and database, as its own process (SIGKILLed like a crash). */
/** The error of a run whose process died: "engine process lost: <owner> stopped renewing its lease". */
const LOST = /^engine process lost: \S+ stopped renewing its lease$/;

const startServe = (configPath: string, db: string) =>
  startServeProcess(['--port', '0', '--db', db, '--config', configPath, '--run-lease-ms', '2000']);

async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const getJson = async (url: string) => (await fetch(url)).json() as Promise<Record<string, unknown>>;

async function startRun(api: string, threadId: string, prompt: string): Promise<string> {
  const created = await post(`${api}/threads/${threadId}/runs`, { prompt });
  return (created.json as { run: { runId: string } }).run.runId;
}

async function approveNext(api: string, stream: ThreadStream, runId: string, toolCallId: string) {
  const asked = () =>
    stream
      .canonical(runId)
      .find((e) => e.event.kind === 'approval.requested' && e.event.payload.toolCallId === toolCallId);
  await stream.waitFor(() => asked() !== undefined, 60_000);
  const event = asked()?.event;
  const approvalId = event?.kind === 'approval.requested' ? event.payload.approvalId : '';
  await post(`${api}/runs/${runId}/approvals/${approvalId}`, { outcome: 'selected', optionId: 'allow' });
}

async function waitCanonicalized(api: string, runId: string) {
  return waitFor(`run ${runId} canonicalized`, async () => {
    const { run } = (await getJson(`${api}/runs/${runId}`)) as {
      run: { status: string; canonicalizedAt: string | null; error: string | null };
    };
    return run.canonicalizedAt ? run : undefined;
  });
}

async function auditRows(api: string, threadId: string): Promise<AuditableCall[]> {
  const rows: AuditableCall[] = [];
  for (let cursor: string | null = null; ; ) {
    const page = (await getJson(
      `${api}/sessions/${threadId}/audit?limit=1000${cursor ? `&cursor=${cursor}` : ''}`,
    )) as { calls: AuditableCall[]; nextCursor: string | null };
    rows.push(...page.calls);
    if (!page.nextCursor) return rows;
    cursor = page.nextCursor;
  }
}

/** `agentlane serve` (killed at cleanup), a new session on it and its followed event stream. */
async function serveThread(
  cleanup: (() => Promise<void> | void)[],
  configPath: string,
  db: string,
  work: string,
) {
  const serve = await startServe(configPath, db);
  cleanup.push(() => serve.kill());
  const session = await post(`${serve.api}/sessions`, { engine: 'builtin', title: 'kill', workDir: work });
  const threadId = (session.json as { session: { id: string } }).session.id;
  const stream = new ThreadStream(`${serve.api}/threads/${threadId}/events`);
  cleanup.push(() => stream.close());
  return { serve, threadId, stream };
}

/** A data folder, a workspace, the fake model server and a serve config naming one built-in engine. */
async function prepare(cleanup: (() => Promise<void> | void)[]) {
  const dir = await mkdtemp(join(tmpdir(), 'builtin-kill-'));
  const work = await mkdtemp(join(tmpdir(), 'builtin-kill-work-'));
  cleanup.push(
    () => rm(dir, { recursive: true, force: true }),
    () => rm(work, { recursive: true, force: true }),
  );
  let scenario: Scenario = () => ({ text: 'unexpected request' });
  const fake = await startFakeModelServer({ scenario: (request) => scenario(request) });
  cleanup.push(() => fake.close());
  const db = join(dir, 'agentlane.db');
  const configPath = join(dir, 'agentlane.json');
  // No `checkpoints`: serve keeps the engine's checkpoints in its own database by default.
  await writeFile(
    configPath,
    JSON.stringify(
      builtinServeConfig({ fakeUrl: fake.url, workDir: work, apiKey: 'sk-kill-test-key-0123456789' }),
    ),
  );
  return {
    work,
    db,
    configPath,
    setScenario: (next: Scenario) => {
      scenario = next;
    },
  };
}

describe('built-in engine: agentlane serve killed in the middle of the tool loop', () => {
  const cleanup: (() => Promise<void> | void)[] = [];
  afterAll(async () => {
    for (const c of cleanup.reverse()) await c();
  });

  it('crash recovery settles the run, nothing is duplicated, the next prompt carries the conversation', async () => {
    const { work, db, configPath, setScenario } = await prepare(cleanup);
    const pidFile = join(work, 'sleeper.pid');
    // The command the model runs in the second turn: it records its pid (to be reaped by the test, since a
    // SIGKILLed server cannot stop it) and blocks far longer than the test waits.
    const sleeper = 'echo $$ > sleeper.pid; exec sleep 120';
    const histories: ChatMessage[][] = [];
    setScenario((request) => {
      const body = request.body as { messages?: ChatMessage[]; tools?: unknown[] };
      const planning = !body.tools;
      const done = request.toolResultsSinceUserPrompt;
      switch (request.lastUserPrompt) {
        case 'Create hello.txt':
          if (planning) return { text: '1. Write hello.txt' };
          return done === 0
            ? {
                toolCalls: [
                  { name: 'write_file', arguments: { path: 'hello.txt', content: 'hi\n' }, id: 'call_k1' },
                ],
              }
            : { text: 'Written.' };
        case 'Look around, then wait for the build':
          if (planning) return { text: '1. List the files\n2. Wait for the build' };
          if (done === 0) return { toolCalls: [{ name: 'list_files', arguments: {}, id: 'call_k2' }] };
          return { toolCalls: [{ name: 'run_command', arguments: { command: sleeper }, id: 'call_k3' }] };
        default:
          if (planning) return { text: '1. Recall what happened' };
          histories.push(body.messages ?? []);
          return { text: 'The build wait was interrupted; hello.txt is there.' };
      }
    });

    // ---- first process: one complete turn, then a turn killed while its command runs
    const { serve: first, threadId, stream } = await serveThread(cleanup, configPath, db, work);

    const runA = await startRun(first.api, threadId, 'Create hello.txt');
    await approveNext(first.api, stream, runA, 'call_k1');
    expect((await waitCanonicalized(first.api, runA)).status).toBe('completed');

    const runB = await startRun(first.api, threadId, 'Look around, then wait for the build');
    await approveNext(first.api, stream, runB, 'call_k3');
    // The command is running: the tool loop is blocked inside a tool.
    await waitFor('the command to start', async () => (existsSync(pidFile) ? true : undefined));
    const rowsBeforeKill = await auditRows(first.api, threadId);
    await first.kill();
    stream.close();
    const sleeperPid = Number(readFileSync(pidFile, 'utf8').trim());
    cleanup.push(() => {
      try {
        process.kill(-sleeperPid, 'SIGKILL');
      } catch {
        // already gone
      }
    });

    // ---- second process on the same SQLite file: crash recovery settles run B
    const second = await startServe(configPath, db);
    cleanup.push(() => second.kill());
    const settled = await waitCanonicalized(second.api, runB);
    expect(settled.status).toBe('failed');
    // The error names the process that was lost (its lease ran out: the restarted server took the run).
    expect(settled.error).toMatch(LOST);

    const replay = new ThreadStream(`${second.api}/threads/${threadId}/events`);
    cleanup.push(() => replay.close());
    await replay.waitFor(() => replay.canonical(runB).some((e) => e.event.kind === 'turn.completed'), 30_000);
    const eventsB: Canonical[] = replay.canonical(runB);
    const kinds = (kind: string) => eventsB.filter((e) => e.event.kind === kind);
    expect(kinds('turn.completed').map((e) => e.event.payload)).toEqual([
      expect.objectContaining({ stopReason: 'error' }),
    ]);
    expect(kinds('turn.started')).toHaveLength(1);
    expect(kinds('harness.error').map((e) => e.event.payload)).toEqual([
      expect.objectContaining({ message: settled.error, fatal: true }),
    ]);
    // Each tool call of the killed run shows up once, the interrupted one included.
    const started = kinds('tool.started').map((e) =>
      e.event.kind === 'tool.started' ? e.event.payload.toolCallId : '',
    );
    expect(started).toEqual(['call_k2', 'call_k3']);
    // The interrupted command ends with the run instead of running forever in the thread.
    expect(kinds('tool.completed').map((e) => e.event.payload)).toEqual([
      expect.objectContaining({ toolCallId: 'call_k2', status: 'completed' }),
      expect.objectContaining({
        toolCallId: 'call_k3',
        status: 'failed',
        error: expect.stringMatching(LOST),
      }),
    ]);
    // No canonical event is delivered twice as two events: one eventId per delivery row's latest revision,
    // and delivery sequence numbers never repeat.
    const seqs = replay.events.flatMap((e) => ('event' in e ? [e.deliverySeq] : []));
    expect(new Set(seqs).size).toBe(seqs.length);

    // Ledger: the rows written before the kill are all there, once each, and re-translation added none twice.
    const rows = await auditRows(second.api, threadId);
    const keys = rows.map((r) => `${r.turn_id}/${r.stage_id}/${r.seq_within_turn}`);
    expect(new Set(keys).size).toBe(keys.length);
    const ofB = (list: AuditableCall[]) => list.filter((r) => r.turn_id === runB);
    // Written live, as each call ended: the plan call, step 1, its list_files call, step 2 (the command
    // itself never ended, so it has no row).
    expect(ofB(rowsBeforeKill).map((r) => `${r.stage_id}/${r.call_class}`)).toEqual([
      'anchor-plan/model',
      'tool-loop/model',
      'tool-loop/tool',
      'tool-loop/model',
    ]);
    // Settling the run wrote the one row missing: the command the kill cut off, failed, numbered after the
    // last row of the turn (its approval was given before the kill).
    expect(
      ofB(rows)
        .slice(0, 4)
        .map((r) => r.record_id),
    ).toEqual(ofB(rowsBeforeKill).map((r) => r.record_id));
    expect(ofB(rows).slice(4)).toEqual([
      expect.objectContaining({
        stage_id: 'tool-loop',
        seq_within_turn: 5,
        call_class: 'tool',
        status: 'error',
        payload: expect.objectContaining({
          kind: 'tool_call',
          toolCallId: 'call_k3',
          toolName: 'run_command',
          error: expect.stringMatching(LOST),
          approval: expect.objectContaining({ decision: 'allow_once' }),
        }),
      }),
    ]);
    expect(rows.map((r) => r.record_id)).toEqual(
      expect.arrayContaining(rowsBeforeKill.map((r) => r.record_id)),
    );

    // ---- the next prompt continues from the latest checkpoint with the whole conversation
    const runC = await startRun(second.api, threadId, 'What happened?');
    const doneC = await waitCanonicalized(second.api, runC);
    expect(doneC.status).toBe('completed');
    const history = histories[0] ?? [];
    // Turn A in full; turn B from its last good checkpoint (the end of anchor-plan: its prompt); then C, in
    // the same user message as B's prompt (turns alternate: never two user messages in a row).
    expect(history.filter((m) => m.role !== 'system').map((m) => m.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'assistant',
      'user',
    ]);
    expect(JSON.stringify(history.at(-1))).toContain('What happened?');
    const text = JSON.stringify(history);
    for (const needle of ['Create hello.txt', 'call_k1', 'Written.', 'Look around, then wait for the build'])
      expect(text).toContain(needle);
    expect(text).not.toContain('call_k3');
    expect(histories).toHaveLength(1);
  }, 180_000);

  it('a run killed while its approval waits ends with the approval cancelled by the system and nothing written', async () => {
    const { work, db, configPath, setScenario } = await prepare(cleanup);
    const histories: ChatMessage[][] = [];
    setScenario((request) => {
      const body = request.body as { messages?: ChatMessage[]; tools?: unknown[] };
      const planning = !body.tools;
      if (request.lastUserPrompt === 'Write later.txt') {
        if (planning) return { text: '1. Write later.txt' };
        return {
          toolCalls: [
            { name: 'write_file', arguments: { path: 'later.txt', content: 'x\n' }, id: 'call_p1' },
          ],
        };
      }
      if (planning) return { text: '1. Answer' };
      histories.push(body.messages ?? []);
      return { text: 'Nothing was written.' };
    });

    const { serve: first, threadId, stream } = await serveThread(cleanup, configPath, db, work);
    const run = await startRun(first.api, threadId, 'Write later.txt');
    await stream.waitFor(
      () => stream.canonical(run).some((e) => e.event.kind === 'approval.requested'),
      60_000,
    );
    await first.kill();
    stream.close();

    const second = await startServe(configPath, db);
    cleanup.push(() => second.kill());
    expect((await waitCanonicalized(second.api, run)).status).toBe('failed');
    const replay = new ThreadStream(`${second.api}/threads/${threadId}/events`);
    cleanup.push(() => replay.close());
    await replay.waitFor(() => replay.canonical(run).some((e) => e.event.kind === 'turn.completed'), 30_000);
    const events = replay.canonical(run);
    const payloads = (kind: string) =>
      events.filter((e) => e.event.kind === kind).map((e) => e.event.payload);
    expect(payloads('approval.resolved')).toEqual([
      expect.objectContaining({ approvalId: 'apr-call_p1', outcome: 'cancelled', answeredBy: 'system' }),
    ]);
    expect(payloads('tool.completed')).toEqual([
      expect.objectContaining({
        toolCallId: 'call_p1',
        status: 'failed',
        error: expect.stringMatching(LOST),
      }),
    ]);
    expect(existsSync(join(work, 'later.txt'))).toBe(false);
    // The write that never ran still has its ledger row: failed, its approval cancelled by the system.
    const ofRun = (await auditRows(second.api, threadId)).filter((r) => r.turn_id === run);
    expect(ofRun.map((r) => `${r.stage_id}/${r.call_class}/${r.status}`)).toEqual([
      'anchor-plan/model/ok',
      'tool-loop/model/ok',
      'tool-loop/tool/error',
    ]);
    expect(ofRun[2]?.payload).toMatchObject({
      toolCallId: 'call_p1',
      error: expect.stringMatching(LOST),
      approval: { decision: 'cancelled', answeredBy: 'system' },
    });

    // The next prompt resumes from the anchor-plan checkpoint of the killed run: its prompt, then the new one,
    // as one user message.
    const next = await startRun(second.api, threadId, 'Did you write it?');
    expect((await waitCanonicalized(second.api, next)).status).toBe('completed');
    expect(histories).toHaveLength(1);
    const history = histories[0] ?? [];
    expect(history.filter((m) => m.role !== 'system').map((m) => m.role)).toEqual(['user']);
    expect(JSON.stringify(history.at(-1))).toContain('Did you write it?');
    expect(JSON.stringify(history)).toContain('Write later.txt');
  }, 180_000);
});
