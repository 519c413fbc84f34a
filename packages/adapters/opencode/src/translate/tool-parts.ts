import type { JsonObject, JsonValue, ToolRunningStatus } from '@agentlane/contract';
import { asArray, asNumber, asObject, asString, jsonKey } from '@agentlane/engine-kit';
import { INLINE_OUTPUT_LIMIT, makeArtifact } from './artifacts.js';
import { fileArtifact, fileChangeFromTool } from './files.js';
import { namespaceOf } from './session-tree.js';
import { completeChild } from './sessions.js';
import type { ToolPartState } from './state.js';
import type { Step } from './step.js';
import { isFileTool, toolKindOf } from './tool-kind.js';

/**
 * Tool parts: pending → running (→ running …) → completed | error. Every update is a whole snapshot;
 * this turns them into one tool.started, tool.progress for what changed, and one tool.completed.
 * bash publishes its cumulative output while running: the new tail becomes terminal.output.
 */

const ABORTED = 'Tool execution aborted';

export function onToolPart(out: Step, part: JsonObject): void {
  const state = out.state;
  const partId = asString(part.id);
  const messageId = asString(part.messageID);
  const toolState = asObject(part.state);
  const status = asString(toolState?.status);
  if (!partId || !messageId || !toolState || !status) {
    out.warn('opencode.malformed_tool_part', 'a tool part without id, messageID or state.status');
    return;
  }
  const callId = asString(part.callID) ?? partId;
  let tool = state.tools[callId];
  if (!tool) {
    tool = {
      partId,
      messageId,
      sessionId: asString(part.sessionID) ?? state.rootSessionId ?? '',
      name: asString(part.tool) ?? 'unknown',
      started: false,
      done: false,
      inputJson: '',
      title: null,
      output: '',
      progressCount: 0,
      startMs: null,
      childSessionId: null,
    };
    state.tools[callId] = tool;
  }
  // Terminal states are final; a later update (e.g. time.compacted after compaction) changes nothing.
  if (tool.done) return;
  const input = toolState.input ?? {};
  const title = asString(toolState.title) ?? null;
  const metadata = asObject(toolState.metadata);
  const time = asObject(toolState.time);
  tool.startMs = asNumber(time?.start) ?? tool.startMs;
  const ctx = {
    identity: { nativeMessageId: messageId, nativePartId: partId },
    namespace: namespaceOf(state, tool.sessionId),
  };
  const childId = asString(metadata?.sessionId);
  if (tool.name === 'task' && childId) tool.childSessionId = childId;

  if (status === 'pending' || status === 'running') {
    const running: ToolRunningStatus = status;
    if (!tool.started) {
      startTool(out, callId, tool, input, running, title, ctx);
    } else {
      const progress: {
        toolCallId: string;
        status: ToolRunningStatus;
        title?: string;
        input?: JsonValue;
        partialOutput?: string;
      } = { toolCallId: callId, status: running };
      const inputJson = jsonKey(input);
      if (inputJson !== tool.inputJson) {
        tool.inputJson = inputJson;
        progress.input = input;
      }
      if (title !== null && title !== tool.title) {
        tool.title = title;
        progress.title = title;
      }
      const output = asString(metadata?.output);
      if (output !== undefined && output !== tool.output && tool.name !== 'bash') {
        progress.partialOutput = output.slice(-2048);
      }
      if (
        progress.input !== undefined ||
        progress.title !== undefined ||
        progress.partialOutput !== undefined
      ) {
        tool.progressCount += 1;
        out.emit(
          `tool.progress:${callId}:${tool.progressCount}`,
          { kind: 'tool.progress', payload: progress },
          ctx,
        );
      }
    }
    streamOutput(out, callId, tool, input, asString(metadata?.output), null, ctx);
    return;
  }

  if (status !== 'completed' && status !== 'error') {
    out.warn('opencode.unknown_tool_status', `tool ${callId} has an unknown status "${status}"`);
    return;
  }
  if (!tool.started) startTool(out, callId, tool, input, 'running', title, ctx);
  tool.done = true;
  const durationMs = durationOf(time);
  if (status === 'completed') {
    const output = asString(toolState.output) ?? '';
    if (tool.name === 'bash') {
      const exit = asNumber(metadata?.exit);
      streamOutput(out, callId, tool, input, asString(metadata?.output), exit ?? null, ctx);
    }
    const payload: {
      toolCallId: string;
      status: 'completed';
      output?: JsonValue;
      outputArtifact?: ReturnType<typeof makeArtifact>['withPreview'];
      durationMs?: number;
    } = { toolCallId: callId, status: 'completed' };
    if (output.length > INLINE_OUTPUT_LIMIT) {
      const artifact = makeArtifact(output, 'text/plain');
      out.addArtifact(artifact.stored);
      payload.outputArtifact = artifact.withPreview;
    } else {
      payload.output = output;
    }
    if (durationMs !== undefined) payload.durationMs = durationMs;
    if (isFileTool(tool.name)) fileChangeFromTool(out, callId, tool.name, asObject(input), metadata);
    (asArray(toolState.attachments) ?? []).forEach((attachment, index) => {
      const file = asObject(attachment);
      if (file) fileArtifact(out, `artifact:${callId}:${index}`, file, { toolCallId: callId });
    });
    out.emit(`tool.completed:${callId}`, { kind: 'tool.completed', payload }, ctx);
    if (tool.childSessionId) completeChild(out, tool.childSessionId, 'completed', output);
    return;
  }
  const error = asString(toolState.error) ?? 'tool failed';
  const cancelled = error === ABORTED || out.state.cancelRequested || out.state.aborted;
  const payload: { toolCallId: string; status: 'failed' | 'cancelled'; error: string; durationMs?: number } =
    {
      toolCallId: callId,
      status: cancelled ? 'cancelled' : 'failed',
      error,
    };
  if (durationMs !== undefined) payload.durationMs = durationMs;
  out.emit(`tool.completed:${callId}`, { kind: 'tool.completed', payload }, ctx);
  if (tool.childSessionId) completeChild(out, tool.childSessionId, payload.status, error);
}

function startTool(
  out: Step,
  callId: string,
  tool: ToolPartState,
  input: JsonValue,
  status: ToolRunningStatus,
  title: string | null,
  ctx: { identity: { nativeMessageId: string; nativePartId: string }; namespace: string[] | undefined },
): void {
  tool.started = true;
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
  out.emit(`tool.started:${callId}`, { kind: 'tool.started', payload }, ctx);
}

/** bash output arrives cumulative: emit only the tail not yet seen, and the exit on completion. */
function streamOutput(
  out: Step,
  callId: string,
  tool: ToolPartState,
  input: JsonValue,
  output: string | undefined,
  exit: number | null,
  ctx: { identity: { nativeMessageId: string; nativePartId: string }; namespace: string[] | undefined },
): void {
  if (tool.name !== 'bash') {
    if (output !== undefined) tool.output = output;
    return;
  }
  const offset = output?.startsWith(tool.output) ? tool.output.length : 0;
  const chunk = output === undefined ? '' : output.slice(offset);
  if (output !== undefined) tool.output = output;
  const ending = tool.done;
  if (chunk.length === 0 && !ending) return;
  const command = asString(asObject(input)?.command);
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
  out.emit(key, { kind: 'terminal.output', payload }, ctx);
}

function durationOf(time: JsonObject | undefined): number | undefined {
  const start = asNumber(time?.start);
  const end = asNumber(time?.end);
  return start !== undefined && end !== undefined && end >= start ? end - start : undefined;
}

/** At the end of the source: a tool that never finished is cancelled (after a cancel) or failed. */
export function closeOpenTools(out: Step): void {
  for (const [callId, tool] of Object.entries(out.state.tools)) {
    if (tool.done || !tool.started) continue;
    tool.done = true;
    const cancelled = out.state.cancelRequested || out.state.aborted;
    out.emit(
      `tool.completed:${callId}`,
      {
        kind: 'tool.completed',
        payload: {
          toolCallId: callId,
          status: cancelled ? 'cancelled' : 'failed',
          error: cancelled ? 'cancelled' : 'the run ended before the tool finished',
        },
      },
      {
        identity: { nativeMessageId: tool.messageId, nativePartId: tool.partId },
        namespace: namespaceOf(out.state, tool.sessionId),
      },
    );
  }
}
