import { acpTranslator } from '@agentlane/adapter-acp';
import type { JsonValue } from '@agentlane/contract';
import { adapterTranslatorThroughput } from '../translators/throughput';
import type { BenchResult } from '../types';

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

/** Throughput of the pure ACP translator on the recorded Claude Code trace and on long streams. */
export async function run(): Promise<BenchResult[]> {
  return adapterTranslatorThroughput({
    name: 'acp translator',
    translator: acpTranslator,
    provider: 'acp',
    fixture: {
      label: 'recorded Claude Code trace',
      path: 'acp/test/__fixtures__/claude-agent-acp.wire.jsonl',
    },
    streams: { sizes: [1_000, 10_000], unit: 'message chunks', build: longStream },
  });
}
