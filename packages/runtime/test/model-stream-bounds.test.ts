import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineTool } from '@agentlane/adapter-builtin';
import { Type } from 'typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AHEAD_CHARS } from '../src/turn/stream-flow';
import {
  chunk,
  counter,
  endless,
  hostileServer,
  ROLE,
  runTurn,
  sse,
  warnings,
  workspace,
} from './hostile-model';

const model = hostileServer();
const work = workspace('rt-bounds-');

type Sent = { bytes: number; ms: number; closedByClient: boolean };
/** A handler's report, awaited after the turn. */
function sent(): { report: (s: Sent) => void; done: Promise<Sent> } {
  let report!: (s: Sent) => void;
  const done = new Promise<Sent>((r) => {
    report = r;
  });
  return { report, done };
}

/** Counts the bytes the engine reads from model responses (global fetch wrapped) until `stop`. */
function countRead(): { bytes: () => number; stop: () => void } {
  const real = globalThis.fetch;
  let bytes = 0;
  globalThis.fetch = async (input, init) => {
    const response = await real(input, init);
    if (!response.body) return response;
    const counted = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          bytes += chunk.byteLength;
          controller.enqueue(chunk);
        },
      }),
    );
    return new Response(counted, { status: response.status, headers: response.headers });
  };
  return {
    bytes: () => bytes,
    stop: () => {
      globalThis.fetch = real;
    },
  };
}

describe('an endless answer', () => {
  let outputDir = '';
  beforeAll(async () => {
    outputDir = await mkdtemp(join(tmpdir(), 'rt-endless-out-'));
  });
  afterAll(async () => {
    await rm(outputDir, { recursive: true, force: true });
  });

  it('is stopped once the turn’s text passes its bound and its overflow bound; the overflow file is capped', async () => {
    const s = sent();
    const text = chunk({ content: 'x'.repeat(8000) });
    // Bounded by the test: without the stop it would read 200 MB (or 20 s) and keep all of it.
    model.script(endless(() => text, { bytes: 200_000_000, ms: 20_000, head: ROLE }, s.report));
    const read = countRead();
    const r = await runTurn(model.url, work.dir, {
      turnTextBytes: 100_000,
      turnTextOverflowBytes: 200_000,
      outputDir,
    }).finally(read.stop);
    const server = await s.done;
    expect(r.outcome.outcome).toBe('failed');
    expect(r.outcome.error).toMatch(
      /the model's answer passed 300000 bytes \(turnTextBytes 100000 \+ turnTextOverflowBytes 200000\)/,
    );
    expect(warnings(r.events).map((w) => w.code)).toEqual(['output_limit', 'model_text_limit']);
    // The call was aborted: the engine read the bound and what the SDK may hold ahead of the reader
    // (AHEAD_CHARS, stream-flow.ts; 550 kB in all here), not 200 MB (all of which the SDK held before, 2 GB
    // of memory per stream); the server saw it go away.
    expect(read.bytes()).toBeLessThan(300_000 + AHEAD_CHARS + 256 * 1024);
    expect(server.closedByClient).toBe(true);
    expect(server.bytes).toBeLessThan(16_000_000);
    // What was read past the bound is in the overflow file, which holds no more than its bound.
    const files = await readdir(outputDir);
    const sizes = await Promise.all(files.map(async (f) => (await stat(join(outputDir, f))).size));
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(200_000);
    const artifact = r.frames.find((f) => (f as { rt?: string }).rt === 'artifact') as {
      file: { bytes: number };
    };
    expect(artifact.file.bytes).toBe(200_000);
    const row = r.audit.find((a) => a.call_class === 'model');
    expect(row).toMatchObject({ status: 'error' });
  });
});

describe('an endless tool-call input', () => {
  /** A tool call whose input never ends: its start, then pieces of 8,000 characters of one JSON string. */
  const head = `${ROLE}${chunk({
    tool_calls: [
      { index: 0, id: 'call_w', type: 'function', function: { name: 'write', arguments: '{"content":"' } },
    ],
  })}`;
  const piece = chunk({ tool_calls: [{ index: 0, function: { arguments: 'w'.repeat(8000) } }] });
  const write = defineTool({
    name: 'write',
    description: 'writes',
    inputSchema: Type.Object({ content: Type.String() }),
    execute: async () => 'written',
  });
  /** The characters of tool input the turn's frames and events carry. */
  const held = (r: Awaited<ReturnType<typeof runTurn>>) => {
    let frames = 0;
    for (const f of r.frames as { rt?: string; part?: { type?: string; delta?: string } }[])
      if (f.rt === 'part' && f.part?.type === 'tool-input-delta') frames += f.part.delta?.length ?? 0;
    let events = 0;
    for (const e of r.events)
      if (e.kind === 'tool.progress' && typeof e.payload.inputDelta === 'string')
        events += e.payload.inputDelta.length;
    return { frames, events };
  };

  it('is stopped once the call’s tool input passes toolInputBytes, read at the pace of the turn', async () => {
    const s = sent();
    // Bounded by the test: without the stop it would read 200 MB (or 20 s), all of it held by the provider.
    model.script(endless(() => piece, { bytes: 200_000_000, ms: 20_000, head }, s.report));
    const read = countRead();
    const r = await runTurn(model.url, work.dir, { tools: [write], toolInputBytes: 200_000 }).finally(
      read.stop,
    );
    const server = await s.done;
    expect(r.outcome.outcome).toBe('failed');
    expect(r.outcome.error).toMatch(
      /the model's tool-call input passed 200000 bytes \(toolInputBytes\): the call was stopped/,
    );
    expect(warnings(r.events).map((w) => w.code)).toEqual(['model_tool_input_limit']);
    // The engine read the bound and what the SDK may hold ahead of the reader (AHEAD_CHARS of deltas, text and
    // tool input alike, plus their SSE envelopes), not 200 MB; the server saw the client go away.
    expect(read.bytes()).toBeLessThan(200_000 + AHEAD_CHARS + 256 * 1024);
    expect(server.closedByClient).toBe(true);
    expect(server.bytes).toBeLessThan(16_000_000);
    // What the turn keeps of the input: at most the bound in its frames and events, none in its checkpoint.
    const kept = held(r);
    expect(kept.frames).toBeGreaterThan(100_000);
    expect(kept.frames).toBeLessThanOrEqual(200_000);
    expect(kept.events).toBe(kept.frames);
    expect(JSON.stringify(r.checkpoint ?? null).length).toBeLessThan(20_000);
    // The call was never run; its start is closed with the turn, and the model call's row says it failed.
    const done = r.events.filter((e) => e.kind === 'tool.completed').map((e) => e.payload);
    expect(done).toEqual([expect.objectContaining({ toolCallId: 'call_w', status: 'failed' })]);
    expect(r.audit.find((a) => a.call_class === 'model')).toMatchObject({ status: 'error' });
  });

  it('the default bound is 16 MiB of tool input a model call', async () => {
    const s = sent();
    model.script(endless(() => piece, { bytes: 200_000_000, ms: 60_000, head }, s.report));
    const read = countRead();
    const r = await runTurn(model.url, work.dir, { tools: [write] }).finally(read.stop);
    const server = await s.done;
    expect(r.outcome.error).toMatch(/the model's tool-call input passed 16777216 bytes \(toolInputBytes\)/);
    expect(server.closedByClient).toBe(true);
    // The bound and the read-ahead, in SSE chunks of 8,000 characters each.
    const perChar = Buffer.byteLength(piece) / 8000;
    expect(read.bytes()).toBeLessThan((16 * 1024 * 1024 + AHEAD_CHARS) * perChar + 1024 * 1024);
    expect(held(r).frames).toBeLessThanOrEqual(16 * 1024 * 1024);
  });
});

describe('a stream that never sends an event boundary', () => {
  it('fails the call at 16 MiB held without one, instead of buffering it all', async () => {
    const s = sent();
    const head = `${ROLE}data: {"id":"x","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"`;
    const piece = 'y'.repeat(1 << 16);
    model.script(endless(() => piece, { bytes: 150_000_000, ms: 15_000, head }, s.report));
    const r = await runTurn(model.url, work.dir);
    const server = await s.done;
    expect(r.outcome.outcome).toBe('failed');
    expect(r.outcome.error).toMatch(/more than 16777216 bytes without an event boundary/);
    expect(server.closedByClient).toBe(true);
    expect(server.bytes).toBeLessThan(40_000_000);
    expect(warnings(r.events).map((w) => w.code)).toContain('builtin.model_stream_error');
  });
});

describe('tool calls in one model step', () => {
  const calls = (n: number) =>
    sse([
      ROLE,
      ...Array.from({ length: n }, (_, i) =>
        chunk({
          tool_calls: [
            { index: i, id: `call_${i}`, type: 'function', function: { name: 'count', arguments: '{}' } },
          ],
        }),
      ),
      chunk({}, 'tool_calls'),
      'data: [DONE]\n\n',
    ]);
  it('past maxToolCallsPerStep are answered as refused, not run', async () => {
    const { ran, tool } = counter();
    model.script(calls(40));
    const before = model.requests.length;
    const r = await runTurn(model.url, work.dir, { tools: [tool], maxToolCallsPerStep: 5 });
    expect(r.outcome.outcome).toBe('completed');
    expect(ran.n).toBe(5);
    const done = r.events.filter((e) => e.kind === 'tool.completed').map((e) => e.payload);
    expect(done).toHaveLength(40);
    expect(done.filter((p) => p.status === 'completed')).toHaveLength(5);
    expect(done.filter((p) => p.status === 'failed').map((p) => p.error)).toEqual(
      Array(35).fill('not run: too many tool calls in one step (maxToolCallsPerStep 5)'),
    );
    const w = warnings(r.events).find((x) => x.code === 'tool_call_limit');
    expect(w?.message).toMatch(/asked for 40 tool calls in one step: the 35 past maxToolCallsPerStep \(5\)/);
    expect(r.audit.filter((a) => a.call_class === 'tool')).toHaveLength(40);
    // The model reads an answer for every call of the step.
    const next = model.requests[before + 1]?.body.messages as { role: string; content: string }[];
    const results = next.filter((m) => m.role === 'tool');
    expect(results).toHaveLength(40);
    expect(results.filter((m) => /too many tool calls/.test(m.content))).toHaveLength(35);
  });

  it('the default cap is 128', async () => {
    const { ran, tool } = counter();
    model.script(calls(130));
    const r = await runTurn(model.url, work.dir, { tools: [tool] });
    expect(r.outcome.outcome).toBe('completed');
    expect(ran.n).toBe(128);
    expect(warnings(r.events).map((w) => w.code)).toContain('tool_call_limit');
  });
});
