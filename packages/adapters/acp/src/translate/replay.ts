import type { JsonObject } from '@agentlane/contract';
import { asObject, asString, idHas } from '@agentlane/engine-kit';
import { isSettingsUpdate } from './late-frames.js';
import type { Step } from './step.js';

/**
 * The history replay of `session/load`. The spec has the agent stream the history *before* it answers, but
 * Gemini CLI 0.61.0 answers first and streams the history afterwards (`streamHistory` is not awaited), so
 * the replay cannot end at the load response. It ends at the next `session/prompt` request instead: nothing
 * between the load and the prompt can belong to the new turn, since the agent has not seen the prompt yet.
 * The driver waits for the replay to go quiet before it prompts; should a replay still spill past the
 * prompt, the updates that can only be history (see lateUpdateIsReplay) are dropped until the first live one.
 */

/** The client sent session/load: what the agent sends next is history already shown in earlier runs. */
export function startReplay(step: Step): void {
  step.state.replaying = true;
  step.state.replayLate = false;
  step.emitHere({
    kind: 'context.marker',
    payload: {
      markerKind: 'reconciling',
      phase: 'start',
      label: 'The engine replays the session history',
      source: 'session/load',
    },
  });
}

/**
 * Closes the reconciling bracket. `late` (at the prompt request): history-only updates that still arrive
 * before the first live output are dropped too. A failed load or the end of the turn ends it for good.
 */
export function endReplay(step: Step, late: boolean): void {
  const state = step.state;
  if (!state.replaying) {
    if (!late) state.replayLate = false;
    return;
  }
  state.replaying = false;
  state.replayLate = late;
  step.emitHere({
    kind: 'context.marker',
    payload: {
      markerKind: 'reconciling',
      phase: 'end',
      label: 'History replay finished',
      source: 'session/load',
    },
  });
}

/**
 * After the prompt of a loaded session and before its first live output: whether a session/update is a late
 * piece of the replay. Only updates that cannot be new are taken as history: a user message chunk (ACP agents
 * do not echo the prompt; agentlane shows the prompt itself) and a tool call that is first seen already
 * finished. Message and thought text is ambiguous (Gemini's replay and live chunks look alike), so it counts
 * as live: a dropped answer would be worse than a merged one. The first live update ends the window.
 */
export function lateUpdateIsReplay(step: Step, params: JsonObject): boolean {
  const state = step.state;
  if (!state.replayLate) return false;
  // Settings updates are applied whether replayed or live.
  if (isSettingsUpdate(params)) return false;
  const update = asObject(params.update);
  const kind = asString(update?.sessionUpdate);
  if (kind === 'user_message_chunk') return true;
  if (kind === 'tool_call' && update) {
    const id = asString(update.toolCallId);
    const status = asString(update.status);
    if ((status === 'completed' || status === 'failed') && (!id || !idHas(state.tools, id))) return true;
  }
  state.replayLate = false;
  return false;
}
