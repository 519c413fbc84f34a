import { join } from 'node:path';
import type { JsonValue } from '@agentlane/contract';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { acpTranslator } from '../src';
import { readJsonl, records, translateAll } from './trace';

const SESSION = 'sess-1';

function chunk(kind: 'agent_message_chunk' | 'agent_thought_chunk', text: string): JsonValue {
  return {
    dir: 'agent->client',
    msg: {
      jsonrpc: '2.0',
      method: 'session/update',
      params: { sessionId: SESSION, update: { sessionUpdate: kind, content: { type: 'text', text } } },
    },
  };
}

/** Splits text at the given cut points (sorted, deduplicated, inside the text). */
function splitAt(text: string, cuts: number[]): string[] {
  const points = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b);
  const parts: string[] = [];
  let from = 0;
  for (const p of points) {
    parts.push(text.slice(from, p));
    from = p;
  }
  parts.push(text.slice(from));
  return parts;
}

function trace(thought: string[], message: string[]): JsonValue[] {
  return [
    {
      dir: 'client->agent',
      msg: {
        jsonrpc: '2.0',
        id: 1,
        method: 'session/prompt',
        params: { sessionId: SESSION, prompt: [{ type: 'text', text: 'hi' }] },
      },
    },
    ...thought.map((t) => chunk('agent_thought_chunk', t)),
    ...message.map((t) => chunk('agent_message_chunk', t)),
    { dir: 'agent->client', msg: { jsonrpc: '2.0', id: 1, result: { stopReason: 'end_turn' } } },
  ];
}

describe('ACP text chunks re-split at random boundaries', () => {
  it('reassemble to the same message and reasoning text, with nothing duplicated', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1, maxLength: 80 }),
        fc.string({ minLength: 1, maxLength: 200 }),
        fc.array(fc.nat(), { maxLength: 12 }),
        fc.array(fc.nat(), { maxLength: 20 }),
        (thought, message, thoughtCuts, messageCuts) => {
          const { events } = translateAll(
            acpTranslator,
            records(trace(splitAt(thought, thoughtCuts), splitAt(message, messageCuts))),
          );
          const assistant = events.filter(
            (e) => e.event.draft.kind === 'message.completed' && e.event.draft.payload.role === 'assistant',
          );
          const reasoning = events.filter((e) => e.event.draft.kind === 'reasoning.completed');
          expect(assistant).toHaveLength(1);
          expect(reasoning).toHaveLength(1);
          expect(assistant[0]!.event.draft.payload).toMatchObject({ text: message });
          expect(reasoning[0]!.event.draft.payload).toMatchObject({ text: thought });
          const messageDeltas = events
            .flatMap((e) =>
              e.event.draft.kind === 'message.delta' && !e.event.draft.payload.messageId.endsWith(':prompt')
                ? [e.event.draft.payload.delta]
                : [],
            )
            .join('');
          const reasoningDeltas = events
            .flatMap((e) => (e.event.draft.kind === 'reasoning.delta' ? [e.event.draft.payload.delta] : []))
            .join('');
          expect(messageDeltas).toBe(message);
          expect(reasoningDeltas).toBe(thought);
          const keys = events.map((e) => e.event.key);
          expect(new Set(keys).size).toBe(keys.length);
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('translator purity', () => {
  it('never mutates the state it was given', () => {
    const wire = readJsonl(join(import.meta.dirname, '__fixtures__', 'claude-agent-acp.wire.jsonl'));
    const frames = [...wire, ...trace(['think ', 'more'], ['hello ', 'world'])];
    let state = acpTranslator.initialState({ threadId: 't', runId: 'r', turnId: 'r', provider: 'acp' });
    for (const record of records(frames)) {
      const before = JSON.stringify(state);
      const step = acpTranslator.translate(record, state, {
        threadId: 't',
        runId: 'r',
        turnId: 'r',
        provider: 'acp',
      });
      expect(JSON.stringify(state)).toBe(before);
      state = step.state;
    }
  });
});
