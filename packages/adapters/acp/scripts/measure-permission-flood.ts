/**
 * How long the ACP translator (with its audit fold) takes for a turn with N tool calls that each ask for
 * permission: `node --import tsx packages/adapters/acp/scripts/measure-permission-flood.ts 500 1000 2000`.
 * Each step of a turn must cost the same whatever came before it (a flood of permission requests was
 * quadratic: every frame copied every open tool and approval).
 */
import { readFileSync } from 'node:fs';
import type { JsonValue } from '@agentlane/contract';
import { acpTranslator } from '../src/index';
import { records, translateAll } from '../test/trace';

const fixture = new URL('../test/__fixtures__/claude-agent-acp.jsonl', import.meta.url);
const lines = readFileSync(fixture, 'utf8')
  .trim()
  .split('\n')
  .map((l) => JSON.parse(l) as JsonValue);
const firstTool = lines.findIndex((l) => JSON.stringify(l).includes('"sessionUpdate":"tool_call"'));
const head = lines.slice(0, firstTool);
const sessionId = (lines[firstTool] as { params: { sessionId: string } }).params.sessionId;

function flood(n: number): JsonValue[] {
  const frames: JsonValue[] = [...head];
  for (let i = 0; i < n; i++) {
    const toolCallId = `toolu_flood_${i}`;
    frames.push({
      jsonrpc: '2.0',
      method: 'session/update',
      params: {
        sessionId,
        update: {
          toolCallId,
          sessionUpdate: 'tool_call',
          rawInput: {},
          status: 'pending',
          title: 'Write',
          kind: 'edit',
          content: [],
          locations: [],
        },
      },
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

for (const arg of process.argv.slice(2).length > 0 ? process.argv.slice(2) : ['500', '1000', '2000']) {
  const n = Number(arg);
  const input = records(flood(n));
  const started = performance.now();
  const out = translateAll(acpTranslator, input).events;
  const ms = performance.now() - started;
  console.log(
    `${n} permission requests: ${ms.toFixed(0)} ms, ${(ms / n).toFixed(3)} ms each, ${out.length} events`,
  );
}
