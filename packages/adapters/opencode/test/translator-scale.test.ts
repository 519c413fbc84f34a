import type { JsonValue } from '@agentlane/contract';
import { leftOpen, translateMeasured } from '@agentlane/engine-kit/testing';
import { describe, expect, it } from 'vitest';
import { openCodeTranslator } from '../src/index';
import { CTX, readJsonl, records } from './trace';

const fixture = readJsonl(new URL('./__fixtures__/opencode.jsonl', import.meta.url).pathname);
const firstTool = fixture.findIndex((f) => JSON.stringify(f).includes('"type":"tool"'));
const completed = fixture.find((f) => JSON.stringify(f).includes('"status":"completed","input"'));

/** The recorded session up to its first tool, then `n` tool calls (pending, running, completed) in its turn. */
function manyTools(n: number): JsonValue[] {
  const frames = fixture.slice(0, firstTool);
  for (let i = 0; i < n; i++) {
    for (const status of ['pending', 'running', 'completed']) {
      const f = structuredClone(completed) as {
        id: string;
        properties: { part: { callID: string; id: string; state: { status: string; output?: string } } };
      };
      f.id = `evt_x${i}_${status}`;
      f.properties.part.callID = `call_x${i}`;
      f.properties.part.id = `prt_x${i}`;
      f.properties.part.state.status = status;
      if (status !== 'completed') delete f.properties.part.state.output;
      frames.push(f as unknown as JsonValue);
    }
  }
  return frames;
}

const translate = (frames: JsonValue[]) => translateMeasured(openCodeTranslator, records(frames), CTX);

describe('an OpenCode turn with 2,000 tool calls', () => {
  it('each frame builds a bounded part of the state, not a copy of every tool, part and message', () => {
    const big = translate(manyTools(2000));
    const small = translate(manyTools(20));
    // Before: every frame deep-copied the whole state (26,000 fields late in this turn; 4 s to translate).
    // Now a step copies what it changes and paths of persistent maps.
    expect(big.maxFresh - small.maxFresh).toBeLessThan(200);
    const count = (kind: string) => big.events.filter((e) => e.draft.kind === kind).length;
    expect(count('tool.started')).toBe(2000);
    expect(count('tool.completed')).toBe(2000);
    expect(leftOpen(big.events)).toEqual([]);
  });
});
