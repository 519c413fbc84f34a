import type { JsonObject, JsonValue, ToolFinalStatus } from '@agentlane/contract';
import {
  asNumber,
  asObject,
  asString,
  compact,
  idEntries,
  idGet,
  idHas,
  idSet,
  isObject,
  listOf,
} from '@agentlane/engine-kit';
import { makeArtifact, sha256Hex, unifiedDiff } from './artifacts.js';
import { addTool, type DiffSeen, ownTool, type ToolState } from './state.js';
import type { Step } from './step.js';
import { closeText } from './text.js';
import { toolKind } from './tool-kind.js';

type NativeStatus = 'pending' | 'in_progress' | 'completed' | 'failed';

function nativeStatus(value: unknown): NativeStatus | undefined {
  return value === 'pending' || value === 'in_progress' || value === 'completed' || value === 'failed'
    ? value
    : undefined;
}

function durationMs(from: string, to: string): number | undefined {
  const d = Date.parse(to) - Date.parse(from);
  return Number.isFinite(d) && d >= 0 ? d : undefined;
}

/**
 * The tool's own run time when the engine reports one (Codex: `duration {secs, nanos}`, or
 * `started_at_ms`/`completed_at_ms` in rawInput/rawOutput). Arrival times also count the approval wait
 * and the transport, so the engine's figure wins when there is one.
 */
function nativeDurationMs(tool: ToolState, rawOutput: JsonValue | undefined): number | undefined {
  const out = asObject(rawOutput);
  const duration = asObject(out?.duration);
  const secs = asNumber(duration?.secs);
  const nanos = asNumber(duration?.nanos);
  if (secs !== undefined && secs >= 0) return Math.round(secs * 1000 + (nanos ?? 0) / 1e6);
  const completed = asNumber(out?.completed_at_ms);
  let started: number | undefined;
  try {
    started = tool.inputSig ? asNumber(asObject(JSON.parse(tool.inputSig))?.started_at_ms) : undefined;
  } catch {
    started = undefined;
  }
  return completed !== undefined && started !== undefined && completed >= started
    ? Math.round(completed - started)
    : undefined;
}

/** `content` replaces the whole collection; keep the latest diff per path. */
function absorbDiffs(tool: ToolState, content: JsonValue[]): void {
  for (const item of content) {
    if (!isObject(item) || item.type !== 'diff') continue;
    const path = asString(item.path);
    const newText = asString(item.newText);
    if (path === undefined || newText === undefined) continue;
    const diff: DiffSeen = { path, oldText: asString(item.oldText) ?? null, newText };
    tool.diffs = [...tool.diffs.filter((d) => d.path !== path), diff];
  }
}

/** Plain text of `type: content` items, for outputs and errors. */
function contentText(content: JsonValue[]): string {
  return content
    .map((item) =>
      isObject(item) && item.type === 'content' ? asString(asObject(item.content)?.text) : undefined,
    )
    .filter((t): t is string => t !== undefined)
    .join('\n');
}

/** The unified-diff artifact of a diff, with its preview and line counts. */
export function diffArtifact(step: Step, diff: DiffSeen) {
  const { patch, additions, deletions } = unifiedDiff(diff.path, diff.oldText, diff.newText);
  const artifact = makeArtifact(patch, 'text/x-diff');
  step.addArtifact(artifact.stored);
  return { withPreview: artifact.withPreview, additions, deletions };
}

/**
 * tool_call, tool_call_update and the toolCall inside session/request_permission all land here.
 * Patch semantics: only changed fields are present. An unseen id starts the tool first. Returns the id the
 * tool has in the canonical stream (a reused toolCallId gets a derived one, see toolIdFor).
 */
export function onToolUpdate(
  step: Step,
  update: JsonObject,
  origin: 'tool_call' | 'update' | 'permission',
): string | undefined {
  const nativeId = asString(update.toolCallId);
  if (!nativeId) {
    step.warn('acp.tool_without_id', 'a tool call update without toolCallId', update);
    return undefined;
  }
  const id = toolIdFor(step, nativeId, origin, update);
  onToolPatch(step, id, update, origin);
  return id;
}

/** A status ACP does not define, or content that is not a list, is read as absent: a warning says so. */
function warnBadToolFields(step: Step, id: string, update: JsonObject): void {
  const given = (value: unknown) => value !== undefined && value !== null;
  if (given(update.status) && nativeStatus(update.status) === undefined) {
    step.warn('acp.tool_status_unknown', `tool ${id} has an unknown status; the update is read without it`, {
      toolCallId: id,
      status: update.status ?? null,
    });
  }
  if (given(update.content) && !Array.isArray(update.content)) {
    step.warn('acp.tool_content_invalid', `tool ${id} has content that is not a list; it is ignored`, {
      toolCallId: id,
      content: update.content ?? null,
    });
  }
}

function onToolPatch(
  step: Step,
  id: string,
  update: JsonObject,
  origin: 'tool_call' | 'update' | 'permission',
): void {
  closeText(step);
  const state = step.state;
  const status = nativeStatus(update.status);
  warnBadToolFields(step, id, update);
  const rawInput = update.rawInput;
  const title = asString(update.title);
  const content = Array.isArray(update.content) ? listOf(update.content) : null;
  let tool = ownTool(state, id);
  if (!tool) {
    const inputIsEmpty = rawInput === undefined || (isObject(rawInput) && Object.keys(rawInput).length === 0);
    tool = {
      name: asString(update.name) ?? title ?? asString(update.kind) ?? 'tool',
      kind: toolKind(update.kind),
      title: title ?? null,
      status: status === 'in_progress' ? 'running' : 'pending',
      inputSig: inputIsEmpty ? '' : JSON.stringify(rawInput),
      diffs: [],
      reported: [],
      startedAt: step.receivedAt,
    };
    addTool(state, id, tool);
    if (content) absorbDiffs(tool, content);
    step.emit(`tool.started:${id}`, {
      kind: 'tool.started',
      payload: compact({
        toolCallId: id,
        name: tool.name,
        title: title,
        kind: tool.kind,
        input: (rawInput ?? {}) as JsonValue,
        status: tool.status === 'running' ? 'running' : 'pending',
      }),
    });
  } else {
    if (content) absorbDiffs(tool, content);
    if (tool.status === 'completed' || tool.status === 'failed' || tool.status === 'cancelled') {
      // A late update after completion only matters for diffs it brings.
      if (tool.status === 'completed') reportFiles(step, id, tool);
      return;
    }
    if (update.kind !== undefined) tool.kind = toolKind(update.kind);
    const inputSig = rawInput === undefined ? tool.inputSig : JSON.stringify(rawInput);
    const inputChanged =
      inputSig !== tool.inputSig && !(isObject(rawInput) && Object.keys(rawInput).length === 0);
    const titleChanged = title !== undefined && title !== tool.title;
    const running = status === 'in_progress' && tool.status !== 'running';
    if (inputChanged) tool.inputSig = inputSig;
    if (titleChanged) tool.title = title ?? null;
    if (running) tool.status = 'running';
    if ((inputChanged || titleChanged || running) && origin !== 'permission') {
      step.emitHere({
        kind: 'tool.progress',
        payload: compact({
          toolCallId: id,
          status: tool.status === 'running' ? 'running' : 'pending',
          title: titleChanged ? (title ?? undefined) : undefined,
          input: inputChanged ? (rawInput as JsonValue) : undefined,
        }),
      });
    }
  }
  if (status === 'completed' || status === 'failed') {
    completeTool(step, id, status, update.rawOutput, content);
  }
}

/**
 * The canonical id of a tool call. ACP's `tool_call` announces a call (and so does a permission request's
 * toolCall: Codex asks first, then announces the call); under an id already seen:
 * - the earlier call is still open: it is applied as an update, silently. Codex announces a call in its
 *   permission request and then again in a tool_call: the same call, and a second tool would never complete.
 * - the earlier call has finished: the agent reused the id for a new call. It gets the derived id
 *   `<id>#<n>` (the first free n ≥ 2) and a harness.warning, so neither call's data is lost; the updates and
 *   permission requests under the native id go to the new call from then on. (A tool_call_update for a
 *   finished call still only adds the diffs it brings, as before.)
 */
function toolIdFor(
  step: Step,
  nativeId: string,
  origin: 'tool_call' | 'update' | 'permission',
  update: JsonObject,
): string {
  const state = step.state;
  const current = idGet(state.toolAliases, nativeId) ?? nativeId;
  const tool = idGet(state.tools, current);
  if (origin === 'update' || !tool || tool.status === 'pending' || tool.status === 'running') return current;
  let n = 2;
  while (idHas(state.tools, `${nativeId}#${n}`)) n++;
  const id = `${nativeId}#${n}`;
  state.toolAliases = idSet(state.toolAliases, nativeId, id);
  const what = origin === 'tool_call' ? 'tool_call' : 'permission request';
  step.warn(
    'acp.reused_tool_call_id',
    `a ${what} reuses the id ${nativeId} of a finished tool call: a new tool call ${id}`,
    update,
  );
  return id;
}

/** Ends a tool: tool.completed, terminal output of commands, and file.changed for the diffs it made. */
export function completeTool(
  step: Step,
  id: string,
  status: ToolFinalStatus,
  rawOutput: JsonValue | undefined,
  content: JsonValue[] | null,
): void {
  const tool = ownTool(step.state, id);
  if (!tool || tool.status === 'completed' || tool.status === 'failed' || tool.status === 'cancelled') return;
  tool.status = status;
  const text = content ? contentText(content) : '';
  const output: JsonValue | undefined =
    rawOutput !== undefined ? rawOutput : text.length > 0 ? text : undefined;
  const error =
    status === 'failed'
      ? text || (typeof rawOutput === 'string' ? rawOutput : undefined) || 'the tool failed'
      : status === 'cancelled'
        ? 'cancelled'
        : undefined;
  terminalOutput(step, id, tool, rawOutput);
  step.emit(`tool.completed:${id}`, {
    kind: 'tool.completed',
    payload: compact({
      toolCallId: id,
      status,
      output,
      error,
      durationMs: nativeDurationMs(tool, rawOutput) ?? durationMs(tool.startedAt, step.receivedAt),
    }),
  });
  if (status === 'completed') reportFiles(step, id, tool);
}

/** file.changed once per (tool, path, content), only for tools that completed: a rejected edit changed nothing. */
function reportFiles(step: Step, id: string, tool: ToolState): void {
  for (const diff of tool.diffs) {
    const sig = `${diff.path}:${sha256Hex(`${diff.oldText ?? '\u0000'}\u0001${diff.newText}`)}`;
    if (tool.reported.includes(sig)) continue;
    tool.reported.push(sig);
    const { withPreview, additions, deletions } = diffArtifact(step, diff);
    step.emit(`file.changed:${id}:${diff.path}`, {
      kind: 'file.changed',
      payload: {
        path: diff.path,
        change: diff.oldText === null ? 'created' : 'modified',
        toolCallId: id,
        diff: withPreview,
        additions,
        deletions,
      },
    });
  }
}

/**
 * Commands report stdout/stderr/exit in their raw output (e.g. `{stdout, stderr, exit_code}`); that becomes
 * terminal.output chunks keyed by the tool call, the last one carrying the exit.
 */
function terminalOutput(step: Step, id: string, tool: ToolState, rawOutput: JsonValue | undefined): void {
  const raw = asObject(rawOutput);
  if (!raw || tool.kind !== 'execute') return;
  const stdout = asString(raw.stdout);
  const stderr = asString(raw.stderr);
  if (stdout === undefined && stderr === undefined) return;
  const exitCode = asNumber(raw.exit_code) ?? asNumber(raw.exitCode) ?? null;
  const command = Array.isArray(raw.command)
    ? listOf(raw.command).map(String).join(' ')
    : asString(raw.command);
  const chunks: { stream: 'stdout' | 'stderr'; chunk: string }[] = [];
  if (stdout) chunks.push({ stream: 'stdout', chunk: stdout });
  if (stderr) chunks.push({ stream: 'stderr', chunk: stderr });
  if (chunks.length === 0) chunks.push({ stream: 'stdout', chunk: '' });
  chunks.forEach((c, i) => {
    const last = i === chunks.length - 1;
    step.emit(`terminal.output:${id}:${i}`, {
      kind: 'terminal.output',
      payload: compact({
        terminalId: id,
        toolCallId: id,
        stream: c.stream,
        chunk: c.chunk,
        command,
        exit: last ? { code: exitCode } : undefined,
      }),
    });
  });
}

/** A turn that ends leaves no tool running: open tools end cancelled (or failed when the turn failed). */
export function closeOpenTools(step: Step, status: 'cancelled' | 'failed'): void {
  for (const [id, tool] of idEntries(step.state.tools)) {
    if (tool.status === 'pending' || tool.status === 'running')
      completeTool(step, id, status, undefined, null);
  }
}
