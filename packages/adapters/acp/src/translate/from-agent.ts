import type { JsonObject } from '@agentlane/contract';
import { asObject, asString } from '@agentlane/engine-kit';
import { noteAgentRequest, takeCancelledByDriver } from './agent-requests.js';
import { onPermissionRequest } from './approvals.js';
import { lateUpdateIsReplay } from './replay.js';
import { onAgentResponse } from './responses.js';
import { rpcIdOf } from './rpc-key.js';
import { type AcpTranslatorConfig, flushPendingSession } from './session.js';
import type { Step } from './step.js';
import { openTurn } from './turn.js';
import { onReplayedUpdate, onSessionUpdate } from './updates.js';

/** A JSON-RPC message from the agent: a request to the client, a notification, or a response. */
export function fromAgent(step: Step, msg: JsonObject, config: AcpTranslatorConfig): void {
  const method = asString(msg.method);
  const id = rpcIdOf(msg.id);
  if (method !== undefined) {
    onAgentCall(step, method, id, asObject(msg.params) ?? {}, config);
    return;
  }
  if (id === undefined) {
    step.warn('acp.bad_frame', 'a JSON-RPC message without method or id', msg);
    return;
  }
  onAgentResponse(step, id, msg, config);
}

/** A request (with an id) or a notification (without) the agent sent. */
function onAgentCall(
  step: Step,
  method: string,
  id: string | number | undefined,
  params: JsonObject,
  config: AcpTranslatorConfig,
): void {
  const state = step.state;
  // In a live run a notification may slip between the session response and session.bound; only a
  // trace without harness frames starts the session from the response here.
  if (id !== undefined || !state.harnessSeen) flushPendingSession(step, config);
  // A trace with only the agent's side has no prompt request: the first update opens the turn. A replayed
  // update does not: it belongs to earlier runs, and the turn.started that follows carries the prompt.
  if (state.turn === 'none' && !state.replaying) openTurn(step, {});
  if (id !== undefined) onAgentRequest(step, method, id, params);
  else onAgentNotification(step, method, params);
}

function onAgentRequest(step: Step, method: string, id: string | number, params: JsonObject): void {
  const state = step.state;
  // A request from the agent (a permission) is live output: a late replay is over.
  if (!state.replaying) state.replayLate = false;
  const cancelled = method === 'session/request_permission' && takeCancelledByDriver(step, id);
  if (!noteAgentRequest(step, id, method)) return;
  if (method === 'session/request_permission') {
    // Over the driver's cap of pending requests: answered cancelled unasked, so nothing to offer the user.
    if (!cancelled) onPermissionRequest(step, id, params);
    return;
  }
  // Other client methods (fs/*, terminal/*) are not offered by agentlane; the driver refuses them.
  step.warn('acp.unhandled_request', `the agent asked for ${method}, which agentlane does not offer`);
}

function onAgentNotification(step: Step, method: string, params: JsonObject): void {
  if (method === 'session/update') {
    if (isForeign(step, params)) return;
    if (step.state.replaying || lateUpdateIsReplay(step, params)) onReplayedUpdate(step, params);
    else onSessionUpdate(step, params);
    return;
  }
  step.warn('acp.unhandled_notification', `an ACP notification agentlane does not translate: ${method}`);
}

/**
 * An update for another session than the one this run drives (known from the session response, session.bound
 * or the prompt) is not this thread's content: a warning, not a message in the wrong thread. Before the id is
 * known (an agent-only trace, frames ahead of the session response) nothing can be told apart.
 */
function isForeign(step: Step, params: JsonObject): boolean {
  const own = step.state.nativeSessionId;
  const sessionId = params.sessionId;
  if (own === null || sessionId === own) return false;
  step.warn(
    'acp.foreign_session',
    `a session/update for the session ${JSON.stringify(sessionId ?? null)}, not this run's ${own}; not translated`,
    params,
  );
  return true;
}
