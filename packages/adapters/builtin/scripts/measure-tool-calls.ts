// Measures what translating a turn with many tool calls costs: the built-in engine runs one turn whose model
// asks for N tool calls in one message (the fake model server, its inputs streamed in 8-byte pieces); its
// native frames are then translated as the lane does, one frame after the other, and timed.
// Run: node --conditions=agentlane-source --import tsx packages/adapters/builtin/scripts/measure-tool-calls.ts
// (N=3000).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { JsonValue } from '@agentlane/contract';
import { startFakeModelServer } from '@agentlane/fake-model-server';
import { Type } from 'typebox';
import { createDriver, defineTool, runtimeTranslator } from '../src/index';

const N = Number(process.env.N ?? 3000);
const fake = await startFakeModelServer({
  script: [
    {
      toolCalls: Array.from({ length: N }, (_, i) => ({
        name: 'count',
        arguments: { n: i },
        id: `call_${i}`,
        argumentsChunkSize: 8,
      })),
    },
    { text: 'done' },
  ],
});
const work = await mkdtemp(join(tmpdir(), 'rt-tool-calls-'));
const count = defineTool({
  name: 'count',
  description: 'counts',
  inputSchema: Type.Object({ n: Type.Number() }),
  execute: async () => 'counted',
});
const driver = createDriver({
  api: 'openai-chat',
  model: 'fake-model',
  baseURL: `${fake.url}/v1`,
  apiKey: 'k',
  plan: false,
  workspaceTools: false,
  tools: [count],
});
const frames: JsonValue[] = [];
const emit = (f: JsonValue) => {
  frames.push(f);
};
const session = await driver.openSession({ threadId: 'thr_m', workDir: work, generation: 1, emit });
emit({ harness: 'turn.started', prompt: 'count' });
const outcome = await session.runTurn(
  { threadId: 'thr_m', runId: 'run_m', turnId: 'run_m', prompt: 'count' },
  {
    emit,
    signal: new AbortController().signal,
    awaitApproval: async () => ({ outcome: 'selected', optionId: 'allow' }),
    awaitQuestion: async () => ({ outcome: 'declined' }),
  },
);
emit({ harness: 'turn.ended', outcome: outcome.outcome });
if (outcome.error) console.log('turn error:', outcome.error);
await driver.dispose?.();
await fake.close();
await rm(work, { recursive: true, force: true });

const ctx = { threadId: 'thr_m', runId: 'run_m', turnId: 'run_m', provider: runtimeTranslator.provider };
const started = performance.now();
let state = runtimeTranslator.initialState(ctx);
let events = 0;
frames.forEach((frame, i) => {
  const step = runtimeTranslator.translate(
    {
      runId: 'run_m',
      nativeSeq: i + 1,
      receivedAt: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
      frame,
    },
    state,
    ctx,
  );
  state = step.state;
  events += step.events.length;
});
events += runtimeTranslator.finish(state, ctx).events.length;
const ms = performance.now() - started;
console.log(
  `${N} tool calls (${outcome.outcome}): ${frames.length} native frames → ${events} events, translated in ${Math.round(ms)} ms (${((ms * 1000) / frames.length).toFixed(1)} µs a frame)`,
);
