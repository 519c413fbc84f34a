import type { JsonValue } from '@agentlane/contract';
import { leftOpen, translateMeasured } from '@agentlane/engine-kit/testing';
import { describe, expect, it } from 'vitest';
import { acpTranslator } from '../src/index';
import { CTX, readJsonl, records } from './trace';

const fixture = readJsonl(new URL('./__fixtures__/claude-agent-acp.jsonl', import.meta.url).pathname);
const firstTool = fixture.findIndex((l) => JSON.stringify(l).includes('"sessionUpdate":"tool_call"'));
const sessionId = (fixture[firstTool] as { params: { sessionId: string } }).params.sessionId;

/** A recorded session's opening, then `n` tool calls that each ask for permission, none answered. */
function flood(n: number): JsonValue[] {
  const frames: JsonValue[] = fixture.slice(0, firstTool);
  for (let i = 0; i < n; i++) {
    const toolCallId = `toolu_flood_${i}`;
    const update = {
      toolCallId,
      sessionUpdate: 'tool_call',
      rawInput: {},
      status: 'pending',
      title: 'Write',
    };
    frames.push({
      jsonrpc: '2.0',
      method: 'session/update',
      params: { sessionId, update: { ...update, kind: 'edit' } },
    });
    frames.push({
      jsonrpc: '2.0',
      id: 1000 + i,
      method: 'session/request_permission',
      params: {
        sessionId,
        options: [{ kind: 'allow_once', name: 'Allow', optionId: 'allow' }],
        toolCall: { toolCallId, rawInput: { file_path: `/w/f${i}.txt` }, title: 'Write', kind: 'edit' },
      },
    });
  }
  return frames;
}

const translate = (frames: JsonValue[]) => translateMeasured(acpTranslator, records(frames), CTX);

describe('a flood of 2,000 permission requests', () => {
  it('each frame builds a bounded part of the state, not a copy of every open tool, approval and request', () => {
    const big = translate(flood(2000));
    const small = translate(flood(20));
    // Before: every frame copied the maps of open tools, approvals and agent requests, and the audit fold its
    // own two (2,000 requests took 8 s to translate). Now a step copies paths of persistent maps.
    expect(big.maxFresh - small.maxFresh).toBeLessThan(300);
    const count = (kind: string) => big.events.filter((e) => e.draft.kind === kind).length;
    expect(count('approval.requested')).toBe(2000);
    expect(count('approval.resolved')).toBe(2000); // the end of the source cancels each, once
    expect(leftOpen(big.events)).toEqual([]);
  });
});
