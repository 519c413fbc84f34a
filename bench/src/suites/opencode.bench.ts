import { openCodeTranslator } from '@agentlane/adapter-opencode';
import type { JsonValue } from '@agentlane/contract';
import { adapterTranslatorThroughput } from '../translators/throughput';
import type { BenchResult } from '../types';

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

/** Throughput of the pure OpenCode translator on the recorded trace and on long streams. */
export async function run(): Promise<BenchResult[]> {
  return adapterTranslatorThroughput({
    name: 'opencode translator',
    translator: openCodeTranslator,
    provider: 'opencode',
    fixture: { label: 'recorded trace', path: 'opencode/test/__fixtures__/opencode.jsonl' },
    streams: { sizes: [1_000, 10_000], unit: 'text deltas', build: longStream },
  });
}
