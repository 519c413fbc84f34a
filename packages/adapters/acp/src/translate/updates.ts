import type {
  JsonObject,
  PlanEntry,
  PlanEntryPriority,
  PlanEntryStatus,
  SlashCommand,
} from '@agentlane/contract';
import { asNumber, asObject, asString, compact, isBase64, isObject, listOf } from '@agentlane/engine-kit';
import { makeArtifact } from './artifacts.js';
import { emitMetadata, emitMode } from './session.js';
import type { Step } from './step.js';
import { appendMessage, appendReasoning, closeText } from './text.js';
import { onToolUpdate } from './tools.js';

const PLAN_STATUS: readonly PlanEntryStatus[] = ['pending', 'in_progress', 'completed', 'cancelled'];
const PLAN_PRIORITY: readonly PlanEntryPriority[] = ['high', 'medium', 'low'];

/** One `session/update` notification → canonical events (protocol-map §1A-ii). */
export function onSessionUpdate(step: Step, params: JsonObject): void {
  const update = asObject(params.update);
  if (!update) {
    step.warn('acp.bad_update', 'a session/update without an update object', params);
    return;
  }
  const kind = asString(update.sessionUpdate);
  switch (kind) {
    case 'agent_message_chunk':
    case 'user_message_chunk':
      onChunk(step, kind === 'user_message_chunk' ? 'user' : 'assistant', update);
      return;
    case 'agent_thought_chunk':
      onThought(step, update);
      return;
    case 'tool_call':
      onToolUpdate(step, update, 'tool_call');
      return;
    case 'tool_call_update':
      onToolUpdate(step, update, 'update');
      return;
    case 'plan':
      onPlan(step, update);
      return;
    case 'available_commands_update':
      onCommands(step, update.availableCommands);
      return;
    case 'current_mode_update': {
      const modeId = asString(update.currentModeId);
      if (!modeId) {
        step.warn('acp.bad_update', 'current_mode_update without currentModeId', update);
        return;
      }
      step.state.currentModeId = modeId;
      emitMode(step);
      return;
    }
    case 'config_option_update': {
      const options = listOf(update.configOptions).filter(isObject);
      const before = step.state.configOptions.find((o) => o.category === 'mode')?.currentValue;
      step.state.configOptions = options;
      emitMetadata(step);
      const mode = options.find((o) => o.category === 'mode');
      if (mode && mode.currentValue !== before) {
        step.state.currentModeId = asString(mode.currentValue) ?? step.state.currentModeId;
        emitMode(step);
      }
      return;
    }
    case 'session_info_update': {
      const title = asString(update.title);
      if (title !== undefined) step.emitHere({ kind: 'session.metadata', payload: { title } });
      return;
    }
    case 'usage_update': {
      // Context-window usage (tokens in context / window size) and the cumulative session cost.
      const cost = asObject(update.cost);
      const amount = cost ? asNumber(cost.amount) : undefined;
      step.emitHere({
        kind: 'usage.updated',
        payload: compact({
          scope: 'session',
          contextUsedTokens: asNumber(update.used),
          contextWindowTokens: asNumber(update.size),
          cost: amount !== undefined ? { amount, currency: asString(cost?.currency) ?? 'USD' } : undefined,
        }),
      });
      return;
    }
    case 'notice': {
      const severity = asString(update.severity) ?? 'info';
      const message =
        [asString(update.title), asString(update.description)].filter(Boolean).join(': ') || 'notice';
      if (severity === 'error') {
        step.emitHere({
          kind: 'harness.error',
          payload: { code: 'acp.notice', message, fatal: false, detail: update },
        });
      } else step.warn('acp.notice', message, update);
      return;
    }
    case 'subagent_update':
      onSubagent(step, update);
      return;
    default:
      step.warn(
        'acp.unhandled_update',
        `an ACP session/update agentlane does not translate: ${kind ?? '?'}`,
        update,
      );
  }
}

/**
 * During a session/load replay the history (messages, thoughts, tools) was already shown in earlier runs:
 * only the session's current settings (commands, mode, config, title) are taken from it.
 */
export function onReplayedUpdate(step: Step, params: JsonObject): void {
  const kind = asString(asObject(params.update)?.sessionUpdate);
  const settings = [
    'available_commands_update',
    'current_mode_update',
    'config_option_update',
    'session_info_update',
  ];
  if (kind && settings.includes(kind)) onSessionUpdate(step, params);
}

function onChunk(step: Step, role: 'user' | 'assistant', update: JsonObject): void {
  const content = asObject(update.content);
  const nativeId = asString(update.messageId) ?? null;
  if (!content) {
    step.warn('acp.bad_update', 'a message chunk without content', update);
    return;
  }
  if (content.type === 'text') {
    appendMessage(step, role, nativeId, textOf(step, content, update));
    return;
  }
  // Images, audio and embedded resources become artifacts next to the message.
  const data = asString(content.data);
  const resource = asObject(content.resource);
  const text = resource ? asString(resource.text) : undefined;
  const body = data !== undefined ? Buffer.from(data, 'base64') : text;
  if (body === undefined) {
    step.warn('acp.unhandled_content', `a ${String(content.type)} chunk`, update);
    return;
  }
  // Buffer skips what is not base64: the artifact holds what it decoded, and the warning says it is garbage.
  if (data !== undefined && !isBase64(data)) {
    step.warn('acp.image_data_invalid', `a ${String(content.type)} block whose data is not base64`, {
      type: content.type ?? null,
      dataLength: data.length,
    });
  }
  const type =
    asString(content.mimeType) ??
    (resource ? asString(resource.mimeType) : undefined) ??
    'application/octet-stream';
  const artifact = makeArtifact(body, type);
  step.addArtifact(artifact.stored);
  step.emitHere({
    kind: 'artifact.created',
    payload: compact({
      artifact: artifact.withPreview.artifact,
      name: resource ? asString(resource.uri) : undefined,
      preview: typeof body === 'string' ? artifact.withPreview.preview : undefined,
      messageId: step.state.message?.id,
    }),
  });
}

/** A text content block's text; one that is not a string reads as '' and is a warning. */
function textOf(step: Step, content: JsonObject, update: JsonObject): string {
  const text = asString(content.text);
  if (text === undefined) step.warn('acp.bad_update', 'a text chunk whose text is not a string', update);
  return text ?? '';
}

/** A thought: only text is shown; a chunk without content, or with other content, is a warning. */
function onThought(step: Step, update: JsonObject): void {
  const content = asObject(update.content);
  if (!content) step.warn('acp.bad_update', 'a thought chunk without content', update);
  else if (content.type !== 'text')
    step.warn('acp.unhandled_content', `a ${String(content.type)} thought chunk`, update);
  else appendReasoning(step, asString(update.messageId) ?? null, textOf(step, content, update));
}

/**
 * The whole plan (it replaces the previous one). `entries` that is not an array reads as an empty plan,
 * an entry that is not an object is left out, and an entry without string content or a known status reads
 * as '' / `pending` (an unknown priority is left out): each with a warning, one per kind per frame.
 */
function onPlan(step: Step, update: JsonObject): void {
  closeText(step);
  if (!Array.isArray(update.entries)) {
    step.warn('acp.plan_entries_invalid', 'a plan whose entries is not an array; read as an empty plan', {
      entries: update.entries ?? null,
    });
  }
  const invalid: number[] = [];
  const entries: PlanEntry[] = [];
  listOf(update.entries).forEach((e, index) => {
    if (!isObject(e)) {
      invalid.push(index);
      return;
    }
    const content = asString(e.content);
    const status = asString(e.status) as PlanEntryStatus;
    const priority = asString(e.priority) as PlanEntryPriority;
    const priorityOk = e.priority === undefined || PLAN_PRIORITY.includes(priority);
    if (content === undefined || !PLAN_STATUS.includes(status) || !priorityOk) invalid.push(index);
    entries.push(
      compact({
        content: content ?? '',
        status: PLAN_STATUS.includes(status) ? status : 'pending',
        priority: PLAN_PRIORITY.includes(priority) ? priority : undefined,
      }),
    );
  });
  if (invalid.length > 0) {
    step.warn(
      'acp.plan_entry_invalid',
      'plan entries that are not objects or lack string content or a known status or priority',
      { indexes: invalid.slice(0, 20), count: invalid.length },
    );
  }
  step.emitHere({ kind: 'plan.updated', payload: { entries } });
}

/** The full catalog replaces the previous one; an unchanged catalog emits nothing. */
export function onCommands(step: Step, available: unknown): void {
  const commands: SlashCommand[] = listOf(available)
    .filter(isObject)
    .map((c) =>
      compact({
        name: asString(c.name) ?? '',
        description: asString(c.description) ?? '',
        inputHint: asString(asObject(c.input)?.hint),
      }),
    )
    .filter((c) => c.name.length > 0);
  const sig = JSON.stringify(commands);
  if (sig === step.state.commandsSig) return;
  step.state.commandsSig = sig;
  step.emitHere({ kind: 'commands.updated', payload: { commands } });
}

/** Unstable sub-agent updates: first sight starts a child, idle completes it (for now), others update it. */
function onSubagent(step: Step, update: JsonObject): void {
  const childId = asString(update.sessionId);
  if (!childId) {
    step.warn('acp.bad_update', 'subagent_update without sessionId', update);
    return;
  }
  const stateValue = asObject(update.state);
  const childState = asString(stateValue?.state) ?? asString(update.state);
  if (!(childId in step.state.children)) {
    step.state.children[childId] = false;
    step.emitHere({
      kind: 'child.started',
      payload: compact({
        childSessionId: childId,
        title: asString(update.title),
        description: asString(update.description),
      }),
    });
  }
  if (childState === 'idle') {
    step.state.children[childId] = true;
    step.emitHere({ kind: 'child.completed', payload: { childSessionId: childId, status: 'completed' } });
  } else if (childState) {
    const known = ['running', 'idle', 'requires_action', 'unknown'] as const;
    const s = (known as readonly string[]).includes(childState)
      ? (childState as (typeof known)[number])
      : 'unknown';
    step.emitHere({
      kind: 'child.updated',
      payload: compact({ childSessionId: childId, state: s, title: asString(update.title) }),
    });
  }
}
