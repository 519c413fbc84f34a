import type { JsonObject } from '@agentlane/contract';
import { asBoolean, asNumber, asObject, asString, openTurnOnce } from '@agentlane/engine-kit';
import { namespaceOf } from './session-tree.js';
import {
  entriesOf,
  entryOf,
  type MessageState,
  nextCount,
  ownEntry,
  type PartState,
  putEntry,
} from './state.js';
import type { Step } from './step.js';

/**
 * Text and reasoning parts. OpenCode announces a part with a whole-part snapshot (`message.part.updated`),
 * streams increments (`message.part.delta`), and ends it with a final snapshot. Deltas are emitted at most
 * once (keyed by part and offset); a snapshot that extends what was streamed yields the missing tail; a
 * snapshot that disagrees is the truth and reaches clients as a revision of message.completed.
 */

export function ensureMessage(
  out: Step,
  messageId: string,
  sessionId: string,
  role: 'user' | 'assistant',
): MessageState {
  const state = out.state;
  let message = ownEntry(state, 'messages', messageId);
  if (!message) {
    message = { sessionId, role, started: false, completed: false, textParts: [], completedText: null };
    putEntry(state, 'messages', messageId, message);
  }
  if (!message.started) {
    message.started = true;
    out.emit(
      `message.started:${messageId}`,
      { kind: 'message.started', payload: { messageId, role: message.role } },
      { identity: { nativeMessageId: messageId }, namespace: namespaceOf(state, sessionId) },
    );
  }
  return message;
}

/**
 * A part or delta of a message no message.updated announced is read as an assistant message's, as it always
 * was; one warning per message says the engine sent it (a counter in the state, so it depends on the frames).
 */
export function checkAnnounced(out: Step, messageId: string, code: string, what: string): void {
  if (entryOf(out.state, 'messages', messageId)) return;
  if (nextCount(out.state, `unannounced:${messageId}`) > 1) return;
  out.warn(
    code,
    `${what} of message ${messageId}, which no message.updated announced; read as an assistant message`,
    { messageId },
  );
}

export function onTextLikePart(out: Step, part: JsonObject, type: 'text' | 'reasoning'): void {
  const state = out.state;
  const partId = asString(part.id);
  const messageId = asString(part.messageID);
  const sessionId = asString(part.sessionID) ?? state.rootSessionId ?? '';
  if (!partId || !messageId) {
    out.warn('opencode.malformed_part', `a ${type} part without id or messageID`);
    return;
  }
  const role = entryOf(state, 'messages', messageId)?.role ?? 'assistant';
  // A recorded trace without harness frames: the user's prompt opens the turn.
  if (role === 'user' && state.turn === 'none' && sessionId === state.rootSessionId) {
    openTurnOnce(out, { prompt: asString(part.text) ?? '' });
  }
  const message = ensureMessage(out, messageId, sessionId, role);
  const time = asObject(part.time);
  let entry = ownEntry(state, 'parts', partId);
  if (!entry) {
    entry = {
      messageId,
      sessionId,
      type,
      streamedLength: 0,
      diverged: false,
      text: '',
      ended: false,
      startMs: asNumber(time?.start) ?? null,
      endMs: null,
      hidden: asBoolean(part.synthetic) === true || asBoolean(part.ignored) === true,
    };
    putEntry(state, 'parts', partId, entry);
    if (type === 'text' && !entry.hidden) message.textParts.push(partId);
  }
  if (entry.ended) return;
  const snapshot = asString(part.text);
  if (snapshot !== undefined) {
    // The streamed prefix must survive the snapshot; if it does not, the snapshot wins and streaming stops.
    if (!entry.diverged && !snapshot.startsWith(entry.text.slice(0, entry.streamedLength)))
      entry.diverged = true;
    entry.text = snapshot;
  }
  const end = asNumber(time?.end);
  // User text has no streaming and no end time: its snapshot is the whole message.
  const ended = end !== undefined || message.role === 'user';
  if (ended) {
    entry.ended = true;
    entry.endMs = end ?? null;
  }
  if (message.role === 'user') {
    completeMessage(out, messageId);
    return;
  }
  flushDelta(out, partId, entry);
  if (entry.ended) closePart(out, partId, entry);
}

export function onPartDelta(out: Step, props: JsonObject): void {
  const state = out.state;
  const partId = asString(props.partID);
  const messageId = asString(props.messageID);
  const delta = asString(props.delta);
  const field = asString(props.field) ?? 'text';
  if (!partId || !messageId || delta === undefined) {
    out.warn('opencode.malformed_delta', 'message.part.delta without partID, messageID or delta');
    return;
  }
  if (field !== 'text') {
    out.warn('opencode.delta_field_unknown', `a message.part.delta of field "${field}"; it is not shown`, {
      partId,
      messageId,
      field: props.field ?? null,
    });
    return;
  }
  checkAnnounced(out, messageId, 'opencode.delta_unknown_message', 'a message.part.delta');
  let entry = ownEntry(state, 'parts', partId);
  if (!entry) {
    // A delta before its announcing snapshot: assume a text part, the common case.
    onTextLikePart(out, { id: partId, messageID: messageId, sessionID: props.sessionID ?? null }, 'text');
    entry = ownEntry(state, 'parts', partId);
    if (!entry) return;
  }
  if (entry.ended) return;
  // In step with the stream (the usual case): emit the delta as it came. Appending makes a rope and emitting
  // the fragment never reads the whole text back, so a delta costs O(delta) however long the part is (slicing
  // the appended text flattened it: one copy of the whole part per delta, quadratic, 3.9 GB at 840 KB).
  const inStep = entry.streamedLength === entry.text.length;
  entry.text += delta;
  if (inStep) emitDelta(out, partId, entry, delta);
  else flushDelta(out, partId, entry);
}

/**
 * Emits what the truth has beyond what was already streamed. Only lengths are compared here: appending a
 * delta keeps the prefix by construction, and snapshots check it once (comparing whole texts per delta would
 * make a long answer quadratic).
 */
function flushDelta(out: Step, partId: string, entry: PartState): void {
  if (entry.hidden || entry.diverged || entry.text.length <= entry.streamedLength) return;
  emitDelta(out, partId, entry, entry.text.slice(entry.streamedLength));
}

/** Emits `delta`, the text that follows what was streamed of the part so far. */
function emitDelta(out: Step, partId: string, entry: PartState, delta: string): void {
  if (entry.hidden || entry.diverged || delta === '') return;
  const offset = entry.streamedLength;
  entry.streamedLength += delta.length;
  const namespace = namespaceOf(out.state, entry.sessionId);
  const identity = { nativeMessageId: entry.messageId, nativePartId: partId };
  if (entry.type === 'text') {
    out.emit(
      `message.delta:${partId}:${offset}`,
      { kind: 'message.delta', payload: { messageId: entry.messageId, partId, delta } },
      { identity, namespace },
    );
  } else {
    out.emit(
      `reasoning.delta:${partId}:${offset}`,
      {
        kind: 'reasoning.delta',
        payload: { reasoningId: partId, partId, messageId: entry.messageId, delta },
      },
      { identity, namespace },
    );
  }
}

function closePart(out: Step, partId: string, entry: PartState): void {
  if (entry.type === 'reasoning') {
    if (entry.hidden) return;
    const payload: { reasoningId: string; messageId: string; text: string; durationMs?: number } = {
      reasoningId: partId,
      messageId: entry.messageId,
      text: entry.text,
    };
    if (entry.startMs !== null && entry.endMs !== null) payload.durationMs = entry.endMs - entry.startMs;
    out.emit(
      `reasoning.completed:${partId}`,
      { kind: 'reasoning.completed', payload },
      {
        identity: { nativeMessageId: entry.messageId, nativePartId: partId },
        namespace: namespaceOf(out.state, entry.sessionId),
      },
    );
    return;
  }
  // A text part that ends after its message completed corrects the completed text (a revision).
  if (entryOf(out.state, 'messages', entry.messageId)?.completed) completeMessage(out, entry.messageId);
}

/** The whole text of a message: its visible text parts, each at its truth. */
export function messageText(out: Step, message: MessageState): string {
  return message.textParts
    .map((id) => entryOf(out.state, 'parts', id)?.text ?? '')
    .filter((text) => text.length > 0)
    .join('\n\n');
}

/** Emits message.completed, or a revision of it when the text changed since the last one. */
export function completeMessage(out: Step, messageId: string): void {
  const seen = entryOf(out.state, 'messages', messageId);
  if (!seen) return;
  const text = messageText(out, seen);
  if (seen.completed && seen.completedText === text) return;
  const message = ownEntry(out.state, 'messages', messageId) as MessageState;
  message.completed = true;
  message.completedText = text;
  out.emit(
    `message.completed:${messageId}`,
    { kind: 'message.completed', payload: { messageId, role: message.role, text } },
    { identity: { nativeMessageId: messageId }, namespace: namespaceOf(out.state, message.sessionId) },
  );
}

/** At the end of the source: close reasoning and messages that never got their final snapshot. */
export function closeOpenParts(out: Step): void {
  for (const [partId, seen] of entriesOf(out.state, 'parts')) {
    if (seen.ended || seen.type !== 'reasoning') continue;
    const entry = ownEntry(out.state, 'parts', partId) as PartState;
    entry.ended = true;
    closePart(out, partId, entry);
  }
  for (const [messageId, message] of entriesOf(out.state, 'messages')) {
    if (message.started && !message.completed) completeMessage(out, messageId);
  }
}
