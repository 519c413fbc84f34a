import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { JsonValue } from '@agentlane/contract';
import type {
  EngineSession,
  NativeFrameRecord,
  SessionBinding,
  TranslatedEvent,
} from '@agentlane/engine-kit';
import { afterEach, describe, expect, it } from 'vitest';
import { createDriver } from '../src';

// A real process speaking ACP over stdio (test/__fixtures__/eager-agent.mjs): it writes a notification in the
// same write as every session response, the race Claude Code runs with its 0 ms command-catalog timer.
const agent = fileURLToPath(new URL('./__fixtures__/eager-agent.mjs', import.meta.url));
const root = mkdtempSync(join(tmpdir(), 'agentlane-acp-driver-'));
const driver = createDriver({ name: 'eager', command: process.execPath, args: [agent], homeRoot: root });

const open: EngineSession[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});

async function openSession(frames: JsonValue[], generation: number, previous?: SessionBinding) {
  const session = await driver.openSession({
    threadId: 'thr_driver',
    workDir: root,
    generation,
    ...(previous ? { previous } : {}),
    emit: (frame) => frames.push(frame),
  });
  open.push(session);
  return session;
}

type Wire = { dir?: string; msg?: { id?: unknown; method?: string; result?: unknown }; harness?: string };
const wire = (f: JsonValue | undefined) => (f ?? {}) as Wire;

function translate(frames: JsonValue[]): TranslatedEvent[] {
  const ctx = { threadId: 'thr_driver', runId: 'run_1', turnId: 'run_1', provider: driver.provider };
  let state = driver.translator.initialState(ctx);
  const events: TranslatedEvent[] = [];
  frames.forEach((frame, i) => {
    const record: NativeFrameRecord = {
      runId: 'run_1',
      nativeSeq: i + 1,
      receivedAt: new Date().toISOString(),
      frame,
    };
    const step = driver.translator.translate(record, state, ctx);
    state = step.state;
    events.push(...step.events);
  });
  return events;
}

describe('ACP driver: session binding and process liveness', () => {
  it('records session.bound right after the session response, before a notification sent with it', async () => {
    const frames: JsonValue[] = [];
    await openSession(frames, 3);
    const request = wire(frames.find((f) => wire(f).msg?.method === 'session/new')).msg?.id;
    const response = frames.findIndex(
      (f) => wire(f).dir === 'agent->client' && wire(f).msg?.id === request && !wire(f).msg?.method,
    );
    expect(response).toBeGreaterThan(0);
    expect(wire(frames[response + 1]).harness).toBe('session.bound');
    // The notification that came in the same write is kept, after session.bound.
    expect(frames.slice(response + 2).some((f) => wire(f).msg?.method === 'session/update')).toBe(true);
    const started = translate(frames).filter((e) => e.draft.kind === 'session.started');
    expect(started).toHaveLength(1);
    expect(started[0]?.draft.payload).toMatchObject({ generation: 3, origin: 'new' });
  });

  it('after session/load the bound generation survives the notification too', async () => {
    const first: JsonValue[] = [];
    const before = await openSession(first, 1);
    const binding = before.binding;
    await before.close();
    const frames: JsonValue[] = [];
    const after = await openSession(frames, 2, binding);
    expect(after.binding.nativeSessionId).toBe(binding.nativeSessionId);
    const bound = frames.findIndex((f) => wire(f).harness === 'session.bound');
    const request = frames.find((f) => wire(f).msg?.method === 'session/load');
    expect(wire(frames[bound - 1]).msg?.id).toBe(wire(request).msg?.id);
    const started = translate(frames).find((e) => e.draft.kind === 'session.started');
    expect(started?.draft.payload).toMatchObject({ generation: 2, origin: 'load' });
  });

  it('passes every JSON-RPC frame on with the line it crossed stdio in (the raw sidecar), a turn too', async () => {
    const opened: { frame: JsonValue; raw?: string | Uint8Array }[] = [];
    const session = await driver.openSession({
      threadId: 'thr_driver',
      workDir: root,
      generation: 1,
      emit: (frame, raw) => opened.push({ frame, raw }),
    });
    open.push(session);
    const turn: { frame: JsonValue; raw?: string | Uint8Array }[] = [];
    const outcome = await session.runTurn(
      { threadId: 'thr_driver', runId: 'run_1', turnId: 'run_1', prompt: 'hi' },
      {
        emit: (frame, raw) => turn.push({ frame, raw }),
        signal: new AbortController().signal,
        awaitApproval: async () => ({ outcome: 'cancelled' }),
        awaitQuestion: async () => ({ outcome: 'cancelled' }),
      },
    );
    expect(outcome).toEqual({ outcome: 'completed' });
    const all = [...opened, ...turn];
    const rpc = all.filter((f) => wire(f.frame).msg !== undefined);
    expect(rpc.map((f) => wire(f.frame).msg?.method ?? 'response')).toEqual(
      expect.arrayContaining(['initialize', 'session/new', 'session/prompt', 'session/update', 'response']),
    );
    for (const f of rpc) {
      expect(typeof f.raw).toBe('string');
      expect(JSON.parse(String(f.raw))).toEqual(wire(f.frame).msg);
    }
    // The eager agent's answer, byte for byte as it wrote it.
    expect(turn.map((f) => f.raw)).toContain(
      JSON.stringify({
        jsonrpc: '2.0',
        method: 'session/update',
        params: {
          sessionId: session.binding.nativeSessionId,
          update: {
            sessionUpdate: 'agent_message_chunk',
            content: { type: 'text', text: 'hello from the eager agent' },
          },
        },
      }),
    );
    // Frames agentlane makes itself carry no raw bytes.
    for (const f of all.filter((x) => wire(x.frame).msg === undefined)) expect(f.raw).toBeUndefined();
  });

  it('isAlive() turns false when the engine process dies between turns', async () => {
    const session = await openSession([], 1);
    expect(session.isAlive?.()).toBe(true);
    const pid = (session as unknown as { process: { pid: number } }).process.pid;
    const gone = (session as unknown as { process: { exited: Promise<unknown> } }).process.exited;
    process.kill(-pid, 'SIGKILL');
    await gone;
    expect(session.isAlive?.()).toBe(false);
  });

  it('sends session/cancel again until the agent ends the cancelled prompt (one can be missed)', async () => {
    const session = await openSession([], 1);
    const turn: JsonValue[] = [];
    const abort = new AbortController();
    const outcome = session.runTurn(
      { threadId: 'thr_driver', runId: 'run_1', turnId: 'run_1', prompt: 'wait for a cancel' },
      {
        emit: (frame) => {
          turn.push(frame);
          // The agent has started the prompt: cancel it.
          if (JSON.stringify(frame).includes('"waiting"')) abort.abort();
        },
        signal: abort.signal,
        awaitApproval: async () => ({ outcome: 'cancelled' }),
        awaitQuestion: async () => ({ outcome: 'cancelled' }),
      },
    );
    expect(await outcome).toEqual({ outcome: 'cancelled' });
    const cancels = turn.filter((f) => wire(f).msg?.method === 'session/cancel');
    expect(cancels.length).toBeGreaterThanOrEqual(2);
  });
});
