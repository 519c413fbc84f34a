import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { acpTranslator } from '@agentlane/adapter-acp';
import type { JsonValue } from '@agentlane/contract';
import type { NativeFrameRecord } from '@agentlane/engine-kit';
import type { BenchResult } from '../types';

const CTX = { threadId: 't', runId: 'r', turnId: 'r', provider: 'acp' };

/** A long streamed ACP answer: a prompt, `chunks` thought and message chunks, the prompt response. */
function longStream(chunks: number): JsonValue[] {
  const update = (kind: string, text: string): JsonValue => ({
    dir: 'agent->client',
    msg: {
      jsonrpc: '2.0',
      method: 'session/update',
      params: { sessionId: 's', update: { sessionUpdate: kind, content: { type: 'text', text } } },
    },
  });
  const frames: JsonValue[] = [
    { harness: 'turn.started', prompt: 'bench' },
    {
      dir: 'client->agent',
      msg: { jsonrpc: '2.0', id: 2, method: 'session/prompt', params: { sessionId: 's', prompt: [] } },
    },
  ];
  for (let i = 0; i < chunks / 10; i++) frames.push(update('agent_thought_chunk', `t${i} `));
  for (let i = 0; i < chunks; i++) frames.push(update('agent_message_chunk', `word${i} `));
  frames.push({ dir: 'agent->client', msg: { jsonrpc: '2.0', id: 2, result: { stopReason: 'end_turn' } } });
  return frames;
}

function translateAll(frames: JsonValue[]): number {
  const records: NativeFrameRecord[] = frames.map((frame, i) => ({
    runId: 'r',
    nativeSeq: i + 1,
    receivedAt: '2026-01-01T00:00:00.000Z',
    frame,
  }));
  let state = acpTranslator.initialState(CTX);
  let events = 0;
  const started = performance.now();
  for (const record of records) {
    const step = acpTranslator.translate(record, state, CTX);
    state = step.state;
    events += step.events.length;
  }
  events += acpTranslator.finish(state, CTX).events.length;
  if (events === 0) throw new Error('nothing translated');
  return performance.now() - started;
}

function best(frames: JsonValue[], rounds: number): number {
  let min = Number.POSITIVE_INFINITY;
  for (let i = 0; i < rounds; i++) min = Math.min(min, translateAll(frames));
  return min;
}

/** Throughput of the pure ACP translator on the recorded Claude Code trace and on long streams. */
export async function run(): Promise<BenchResult[]> {
  const fixture = readFileSync(
    fileURLToPath(
      new URL(
        '../../../packages/adapters/acp/test/__fixtures__/claude-agent-acp.wire.jsonl',
        import.meta.url,
      ),
    ),
    'utf8',
  )
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as JsonValue);
  const results: BenchResult[] = [];
  const fixtureMs = best(fixture, 20);
  results.push({
    name: 'acp translator: recorded Claude Code trace',
    unit: 'frames/s',
    value: Math.round(fixture.length / (fixtureMs / 1000)),
    extra: `${fixture.length} frames in ${fixtureMs.toFixed(2)} ms`,
  });
  for (const chunks of [1_000, 10_000]) {
    const frames = longStream(chunks);
    const ms = best(frames, 3);
    results.push({
      name: `acp translator: ${chunks} message chunks`,
      unit: 'frames/s',
      value: Math.round(frames.length / (ms / 1000)),
      extra: `${frames.length} frames in ${ms.toFixed(1)} ms`,
    });
  }
  return results;
}
