import type { JsonObject, JsonValue } from '@agentlane/contract';
import { asArray, asNumber, asObject, asString } from '@agentlane/engine-kit';
import { INLINE_OUTPUT_LIMIT, makeArtifact } from './artifacts.js';
import { fileArtifact, fileChangeFromTool } from './files.js';
import { completeChild } from './sessions.js';
import { setToolOpen } from './state.js';
import { isFileTool } from './tool-kind.js';
import { startTool, streamOutput, type ToolUpdate } from './tool-update.js';

const ABORTED = 'Tool execution aborted';

/** A terminal snapshot (completed or error): one tool.completed, and the child session a task ran ends. */
export function completeTool(u: ToolUpdate, status: 'completed' | 'error'): void {
  if (!u.tool.started) startTool(u, 'running');
  u.tool.done = true;
  setToolOpen(u.out.state, u.callId, false);
  if (status === 'completed') onCompleted(u);
  else onError(u);
}

/** The output inline or, when long, as an artifact; a file tool's change and the part's attachments too. */
function onCompleted(u: ToolUpdate): void {
  const { out, callId, tool, toolState, metadata } = u;
  const output = textField(u, 'output', '');
  if (tool.name === 'bash') streamOutput(u, asString(metadata?.output), asNumber(metadata?.exit) ?? null);
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
  const durationMs = durationOf(u.time);
  if (durationMs !== undefined) payload.durationMs = durationMs;
  if (isFileTool(tool.name)) fileChangeFromTool(out, callId, tool.name, asObject(u.input), metadata);
  (asArray(toolState.attachments) ?? []).forEach((attachment, index) => {
    const file = asObject(attachment);
    if (file) fileArtifact(out, `artifact:${callId}:${index}`, file, { toolCallId: callId });
  });
  out.emit(`tool.completed:${callId}`, { kind: 'tool.completed', payload }, u.ctx);
  if (tool.childSessionId) completeChild(out, tool.childSessionId, 'completed', output);
}

/** An aborted call (or any failure after a cancel or abort) is cancelled; else it failed. */
function onError(u: ToolUpdate): void {
  const { out, callId, tool } = u;
  const error = textField(u, 'error', 'tool failed');
  const cancelled = error === ABORTED || out.state.cancelRequested || out.state.aborted;
  const payload: { toolCallId: string; status: 'failed' | 'cancelled'; error: string; durationMs?: number } =
    {
      toolCallId: callId,
      status: cancelled ? 'cancelled' : 'failed',
      error,
    };
  const durationMs = durationOf(u.time);
  if (durationMs !== undefined) payload.durationMs = durationMs;
  out.emit(`tool.completed:${callId}`, { kind: 'tool.completed', payload }, u.ctx);
  if (tool.childSessionId) completeChild(out, tool.childSessionId, payload.status, error);
}

/**
 * The state's `output` or `error` text. A value that is not a string (a number, an object) reads as `fallback`,
 * as it always did, with a warning that the engine sent it.
 */
function textField(u: ToolUpdate, field: 'output' | 'error', fallback: string): string {
  const value = u.toolState[field];
  const text = asString(value);
  if (text !== undefined) return text;
  if (value !== undefined && value !== null) {
    u.out.warn(
      `opencode.tool_${field}_not_text`,
      `tool ${u.callId} has a ${field} that is not text (${Array.isArray(value) ? 'array' : typeof value}); read as ${JSON.stringify(fallback)}`,
      { toolCallId: u.callId, [field]: value },
    );
  }
  return fallback;
}

function durationOf(time: JsonObject | undefined): number | undefined {
  const start = asNumber(time?.start);
  const end = asNumber(time?.end);
  return start !== undefined && end !== undefined && end >= start ? end - start : undefined;
}
