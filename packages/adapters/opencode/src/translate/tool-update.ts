import type { JsonObject, JsonValue, ToolRunningStatus } from '@agentlane/contract';
import { asObject, asString, jsonKey } from '@agentlane/engine-kit';
import type { ToolPartState } from './state.js';
import { setToolOpen } from './state.js';
import type { Step } from './step.js';
import { toolKindOf } from './tool-kind.js';

/** Where a tool part's events belong: its message and part, and the (child) session's namespace. */
export interface ToolEmitContext {
  identity: { nativeMessageId: string; nativePartId: string };
  namespace: string[] | undefined;
}

/** One snapshot of a tool part, read once, with the call's state it updates. */
export interface ToolUpdate {
  out: Step;
  callId: string;
  tool: ToolPartState;
  /** The part's `state`: status, input, title, metadata, time, output or error. */
  toolState: JsonObject;
  input: JsonValue;
  title: string | null;
  metadata: JsonObject | undefined;
  time: JsonObject | undefined;
  ctx: ToolEmitContext;
}

/** tool.started, once per call: what a later snapshot changes is compared with what this one said. */
export function startTool(u: ToolUpdate, status: ToolRunningStatus): void {
  const { out, callId, tool, input, title } = u;
  tool.started = true;
  setToolOpen(out.state, callId, true);
  tool.inputJson = jsonKey(input);
  tool.title = title;
  const payload: {
    toolCallId: string;
    name: string;
    kind: ReturnType<typeof toolKindOf>;
    input: JsonValue;
    status: ToolRunningStatus;
    title?: string;
  } = { toolCallId: callId, name: tool.name, kind: toolKindOf(tool.name), input, status };
  if (title !== null) payload.title = title;
  out.emit(`tool.started:${callId}`, { kind: 'tool.started', payload }, u.ctx);
}

/** bash output arrives cumulative: emit only the tail not yet seen, and the exit on completion. */
export function streamOutput(u: ToolUpdate, output: string | undefined, exit: number | null): void {
  const { out, callId, tool } = u;
  if (tool.name !== 'bash') {
    if (output !== undefined) tool.output = output;
    return;
  }
  const offset = output?.startsWith(tool.output) ? tool.output.length : 0;
  const chunk = output === undefined ? '' : output.slice(offset);
  if (output !== undefined) tool.output = output;
  const ending = tool.done;
  if (chunk.length === 0 && !ending) return;
  const command = asString(asObject(u.input)?.command);
  const payload: {
    terminalId: string;
    toolCallId: string;
    stream: 'stdout';
    chunk: string;
    command?: string;
    exit?: { code: number | null };
  } = { terminalId: callId, toolCallId: callId, stream: 'stdout', chunk };
  if (command) payload.command = command;
  if (ending) payload.exit = { code: exit };
  const key = ending ? `terminal.exit:${callId}` : `terminal.output:${callId}:${offset}:${out.frameKey}`;
  out.emit(key, { kind: 'terminal.output', payload }, u.ctx);
}
