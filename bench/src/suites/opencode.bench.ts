import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { openCodeTranslator } from '@agentlane/adapter-opencode';
import type { JsonValue } from '@agentlane/contract';
import type { NativeFrameRecord } from '@agentlane/engine-kit';
import type { BenchResult } from '../types';

const CTX = { threadId: 't', runId: 'r', turnId: 'r', provider: 'opencode' };

/** A long streamed answer in OpenCode's native shape: one text part, `deltas` increments, a final snapshot. */
function longStream(deltas: number): JsonValue[] {
  const s = 'ses_bench';
  const m = 'msg_bench';
  const p = 'prt_bench';
  const frames: JsonValue[] = [
    { type: 'session.created', properties: { sessionID: s, info: { id: s, directory: '/w' } } },
    { type: 'session.status', properties: { sessionID: s, status: { type: 'busy' } } },
    {
      type: 'message.updated',
      properties: { sessionID: s, info: { id: m, sessionID: s, role: 'assistant' } },
    },
    {
      type: 'message.part.updated',
      properties: {
        sessionID: s,
        part: { id: p, messageID: m, sessionID: s, type: 'text', text: '', time: { start: 1 } },
      },
    },
  ];
  let text = '';
  for (let i = 0; i < deltas; i++) {
    const delta = `w${i} `;
    text += delta;
    frames.push({
      id: `evt_${i}`,
      type: 'message.part.delta',
      properties: { sessionID: s, messageID: m, partID: p, field: 'text', delta },
    });
  }
  frames.push({
    type: 'message.part.updated',
    properties: {
      sessionID: s,
      part: { id: p, messageID: m, sessionID: s, type: 'text', text, time: { start: 1, end: 2 } },
    },
  });
  frames.push({ type: 'session.status', properties: { sessionID: s, status: { type: 'idle' } } });
  return frames;
}

function translateAll(frames: JsonValue[]): number {
  const records: NativeFrameRecord[] = frames.map((frame, i) => ({
    runId: 'r',
    nativeSeq: i + 1,
    receivedAt: '2026-01-01T00:00:00.000Z',
    frame,
  }));
  let state = openCodeTranslator.initialState(CTX);
  let events = 0;
  const started = performance.now();
  for (const record of records) {
    const step = openCodeTranslator.translate(record, state, CTX);
    state = step.state;
    events += step.events.length;
  }
  events += openCodeTranslator.finish(state, CTX).events.length;
  if (events === 0) throw new Error('nothing translated');
  return performance.now() - started;
}

function best(frames: JsonValue[], rounds: number): number {
  let min = Number.POSITIVE_INFINITY;
  for (let i = 0; i < rounds; i++) min = Math.min(min, translateAll(frames));
  return min;
}

/** Throughput of the pure OpenCode translator on the recorded trace and on long streams. */
export async function run(): Promise<BenchResult[]> {
  const fixture = readFileSync(
    fileURLToPath(
      new URL('../../../packages/adapters/opencode/test/__fixtures__/opencode.jsonl', import.meta.url),
    ),
    'utf8',
  )
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as JsonValue);
  const results: BenchResult[] = [];
  const fixtureMs = best(fixture, 20);
  results.push({
    name: 'opencode translator: recorded trace',
    unit: 'frames/s',
    value: Math.round(fixture.length / (fixtureMs / 1000)),
    extra: `${fixture.length} frames in ${fixtureMs.toFixed(2)} ms`,
  });
  for (const deltas of [1_000, 10_000]) {
    const frames = longStream(deltas);
    const ms = best(frames, 3);
    results.push({
      name: `opencode translator: ${deltas} text deltas`,
      unit: 'frames/s',
      value: Math.round(frames.length / (ms / 1000)),
      extra: `${frames.length} frames in ${ms.toFixed(1)} ms`,
    });
  }
  return results;
}
