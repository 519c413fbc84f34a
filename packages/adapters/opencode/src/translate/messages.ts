import type { JsonObject } from '@agentlane/contract';
import { asNumber, asObject, asString } from '@agentlane/engine-kit';
import { fileArtifact, onPatchPart } from './files.js';
import { namespaceOf } from './session-tree.js';
import { costOf, joinModel, reportError, updateMode } from './sessions.js';
import { entryOf, putEntry } from './state.js';
import type { Step } from './step.js';
import { checkAnnounced, completeMessage, ensureMessage, onTextLikePart } from './text-parts.js';
import { onToolPart } from './tool-parts.js';

/** message.updated: user messages are announced by their text; assistant messages open at first sight. */
export function onMessageUpdated(out: Step, props: JsonObject): void {
  const state = out.state;
  const info = asObject(props.info);
  const id = asString(info?.id);
  const role = asString(info?.role);
  const sessionId = asString(info?.sessionID) ?? asString(props.sessionID) ?? state.rootSessionId ?? '';
  if (!info || !id || (role !== 'user' && role !== 'assistant')) {
    out.warn('opencode.malformed_message', 'message.updated without info.id or a known role');
    return;
  }
  if (role === 'user') {
    // Re-announcements of old user messages (summary updates) must not open a message in this run.
    if (!entryOf(state, 'messages', id))
      putEntry(state, 'messages', id, {
        sessionId,
        role,
        started: false,
        completed: false,
        textParts: [],
        completedText: null,
      });
    return;
  }
  const message = ensureMessage(out, id, sessionId, 'assistant');
  const isRoot = sessionId === state.rootSessionId;
  if (isRoot) {
    const model = joinModel(asString(info.providerID), asString(info.modelID));
    if (model && model !== state.modelId) {
      state.modelId = model;
      out.emit(`session.metadata:model:${out.frameKey}`, {
        kind: 'session.metadata',
        payload: { model: { id: model } },
      });
    }
    const agent = asString(info.agent) ?? asString(info.mode);
    if (agent) updateMode(out, agent);
    const finish = asString(info.finish);
    if (finish) state.lastFinish = finish;
  }
  const error = asObject(info.error);
  if (error) {
    const name = asString(error.name) ?? 'UnknownError';
    if (name === 'MessageAbortedError') {
      if (isRoot) state.aborted = true;
    } else {
      reportError(out, error, name);
    }
  }
  if (asNumber(asObject(info.time)?.completed) !== undefined && !message.completed) completeMessage(out, id);
}

export function onPartUpdated(out: Step, props: JsonObject): void {
  const part = asObject(props.part);
  const type = asString(part?.type);
  if (!part || !type) {
    out.warn('opencode.malformed_part', 'message.part.updated without part.type');
    return;
  }
  const partId = asString(part.id) ?? out.frameKey;
  const messageId = asString(part.messageID);
  const namespace = namespaceOf(out.state, asString(part.sessionID));
  if (messageId) checkAnnounced(out, messageId, 'opencode.part_unknown_message', `a ${type} part`);
  switch (type) {
    case 'text':
    case 'reasoning':
      onTextLikePart(out, part, type);
      return;
    case 'tool':
      onToolPart(out, part);
      return;
    case 'step-finish':
      onStepFinish(out, part, partId, namespace);
      return;
    case 'patch':
      onPatchPart(out, part);
      return;
    case 'file':
      if (messageId && entryOf(out.state, 'messages', messageId)?.role !== 'user') {
        fileArtifact(out, `artifact:${partId}`, part, { messageId });
      }
      return;
    case 'subtask': {
      // A user/command-requested subtask: the real child id arrives with session.created{parentID}.
      const description = asString(part.description);
      out.emit(
        `child.started:subtask:${partId}`,
        {
          kind: 'child.started',
          payload: { childSessionId: `subtask:${partId}`, ...(description ? { description } : {}) },
        },
        { namespace },
      );
      return;
    }
    case 'retry': {
      const error = asObject(part.error);
      out.warn('opencode.retry', asString(asObject(error?.data)?.message) ?? 'the model request is retried', {
        attempt: asNumber(part.attempt) ?? null,
      });
      return;
    }
    case 'step-start':
    case 'snapshot':
    case 'agent':
    case 'compaction':
      return;
    default:
      out.warn('opencode.unknown_part', `unknown part type "${type}"`, { type });
  }
}

function onStepFinish(out: Step, part: JsonObject, partId: string, namespace: string[] | undefined): void {
  const tokens = asObject(part.tokens);
  const cache = asObject(tokens?.cache);
  const payload: {
    scope: 'step';
    inputTokens?: number;
    outputTokens?: number;
    reasoningTokens?: number;
    cachedInputTokens?: number;
    cacheWriteTokens?: number;
    totalTokens?: number;
    cost?: { amount: number; currency: string };
    model?: string;
  } = { scope: 'step' };
  const fields = [
    ['inputTokens', tokens?.input],
    ['outputTokens', tokens?.output],
    ['reasoningTokens', tokens?.reasoning],
    ['cachedInputTokens', cache?.read],
    ['cacheWriteTokens', cache?.write],
    ['totalTokens', tokens?.total],
  ] as const;
  for (const [name, value] of fields) {
    const n = asNumber(value);
    if (n !== undefined) payload[name] = n;
  }
  Object.assign(payload, costOf(part.cost));
  if (out.state.modelId && !namespace) payload.model = out.state.modelId;
  out.emit(
    `usage.step:${partId}`,
    { kind: 'usage.updated', payload },
    { identity: { nativePartId: partId }, namespace },
  );
}
