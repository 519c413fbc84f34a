import type { JsonObject, JsonValue, ToolRunningStatus } from '@agentlane/contract';
import { asNumber, asObject, asString, jsonKey } from '@agentlane/engine-kit';
import { namespaceOf } from './session-tree.js';
import { entriesOf, ownEntry, putEntry, setToolOpen, type ToolPartState } from './state.js';
import type { Step } from './step.js';
import { completeTool } from './tool-completion.js';
import { startTool, streamOutput, type ToolEmitContext, type ToolUpdate } from './tool-update.js';

/**
 * Tool parts: pending → running (→ running …) → completed | error. Every update is a whole snapshot;
 * this turns them into one tool.started, tool.progress for what changed, and one tool.completed.
 * bash publishes its cumulative output while running: the new tail becomes terminal.output.
 */

export function onToolPart(out: Step, part: JsonObject): void {
  const partId = asString(part.id);
  const messageId = asString(part.messageID);
  const toolState = asObject(part.state);
  const status = asString(toolState?.status);
  if (!partId || !messageId || !toolState || !status) {
    out.warn('opencode.malformed_tool_part', 'a tool part without id, messageID or state.status');
    return;
  }
  const callId = asString(part.callID) ?? partId;
  const tool = toolFor(out, callId, part, partId, messageId);
  // Terminal states are final; a later update (e.g. time.compacted after compaction) changes nothing.
  if (tool.done) return;
  const identity = { nativeMessageId: messageId, nativePartId: partId };
  const u = readUpdate(out, callId, tool, toolState, identity);
  if (status === 'pending' || status === 'running') onRunning(u, status);
  else if (status === 'completed' || status === 'error') completeTool(u, status);
  else out.warn('opencode.unknown_tool_status', `tool ${callId} has an unknown status "${status}"`);
}

/** The call's state, created on its first part. */
function toolFor(
  out: Step,
  callId: string,
  part: JsonObject,
  partId: string,
  messageId: string,
): ToolPartState {
  const state = out.state;
  const known = ownEntry(state, 'tools', callId);
  if (known) return known;
  const tool: ToolPartState = {
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
  return putEntry(state, 'tools', callId, tool);
}

/** Reads the snapshot; its start time and the child session a task runs are kept on the call. */
function readUpdate(
  out: Step,
  callId: string,
  tool: ToolPartState,
  toolState: JsonObject,
  identity: ToolEmitContext['identity'],
): ToolUpdate {
  const metadata = asObject(toolState.metadata);
  const time = asObject(toolState.time);
  tool.startMs = asNumber(time?.start) ?? tool.startMs;
  const childId = asString(metadata?.sessionId);
  if (tool.name === 'task' && childId) tool.childSessionId = childId;
  return {
    out,
    callId,
    tool,
    toolState,
    input: toolState.input ?? {},
    title: asString(toolState.title) ?? null,
    metadata,
    time,
    ctx: { identity, namespace: namespaceOf(out.state, tool.sessionId) },
  };
}

/** pending or running: tool.started the first time, then tool.progress for what changed; bash's output tail. */
function onRunning(u: ToolUpdate, status: ToolRunningStatus): void {
  if (!u.tool.started) startTool(u, status);
  else emitProgress(u, status);
  streamOutput(u, asString(u.metadata?.output), null);
}

function emitProgress(u: ToolUpdate, status: ToolRunningStatus): void {
  const { tool, input, title } = u;
  const progress: {
    toolCallId: string;
    status: ToolRunningStatus;
    title?: string;
    input?: JsonValue;
    partialOutput?: string;
  } = { toolCallId: u.callId, status };
  const inputJson = jsonKey(input);
  if (inputJson !== tool.inputJson) {
    tool.inputJson = inputJson;
    progress.input = input;
  }
  if (title !== null && title !== tool.title) {
    tool.title = title;
    progress.title = title;
  }
  const output = asString(u.metadata?.output);
  if (output !== undefined && output !== tool.output && tool.name !== 'bash') {
    progress.partialOutput = output.slice(-2048);
  }
  if (progress.input === undefined && progress.title === undefined && progress.partialOutput === undefined)
    return;
  tool.progressCount += 1;
  u.out.emit(
    `tool.progress:${u.callId}:${tool.progressCount}`,
    { kind: 'tool.progress', payload: progress },
    u.ctx,
  );
}

/** At the end of the source: a tool that never finished is cancelled (after a cancel) or failed. */
export function closeOpenTools(out: Step): void {
  for (const [callId, seen] of entriesOf(out.state, 'tools')) {
    if (seen.done || !seen.started) continue;
    const tool = ownEntry(out.state, 'tools', callId) as ToolPartState;
    tool.done = true;
    setToolOpen(out.state, callId, false);
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
