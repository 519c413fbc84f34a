import type { JsonValue } from '@agentlane/contract';
import { readJsonl } from './trace';

const fixture = readJsonl(new URL('./__fixtures__/claude-agent-acp.jsonl', import.meta.url).pathname);
const firstTool = fixture.findIndex((l) => JSON.stringify(l).includes('"sessionUpdate":"tool_call"'));
const sessionId = (fixture[firstTool] as { params: { sessionId: string } }).params.sessionId;

/**
 * A recorded Claude Code session's opening, then `n` tool calls that each ask for permission, none answered:
 * what the flood test and scripts/measure-permission-flood.ts translate.
 */
export function permissionFlood(n: number): JsonValue[] {
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
