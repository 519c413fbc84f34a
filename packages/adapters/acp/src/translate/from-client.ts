import type { JsonObject } from '@agentlane/contract';
import { asObject, asString, idSet } from '@agentlane/engine-kit';
import { takeAgentRequest } from './agent-requests.js';
import { onPermissionAnswer } from './approvals.js';
import { endReplay, startReplay } from './replay.js';
import { rpcIdOf, rpcKey } from './rpc-key.js';
import { type AcpTranslatorConfig, flushPendingSession } from './session.js';
import type { Step } from './step.js';
import { openTurn, promptText } from './turn.js';

/** A JSON-RPC message the client (the driver) sent: a request or notification, or its answer to the agent. */
export function fromClient(step: Step, msg: JsonObject, config: AcpTranslatorConfig): void {
  const state = step.state;
  const method = asString(msg.method);
  const id = rpcIdOf(msg.id);
  if (method !== undefined) {
    const params = asObject(msg.params) ?? {};
    if (id !== undefined) state.clientRequests = idSet(state.clientRequests, rpcKey(id), { method, params });
    if (method === 'session/prompt') {
      // The client prompts its own session: a later run on the same engine has no session response to
      // learn it from, and updates for any other session are not this run's (from-agent.ts).
      state.nativeSessionId ??= asString(params.sessionId) ?? null;
      endReplay(step, true);
      // What the agent sends after this is the new turn's: a burst of late frames is over.
      state.lateBurst = false;
      flushPendingSession(step, config);
      // A trace recorded without the harness has no turn.started frame: the prompt request opens the turn.
      if (state.turn === 'none') openTurn(step, { prompt: promptText(params) });
    }
    if (method === 'session/cancel') state.cancelRequested = true;
    if (method === 'session/load') startReplay(step);
    return;
  }
  if (id !== undefined) onClientAnswer(step, id, msg);
}

/** Our answer to an agent request: only a permission answer resolves something. */
function onClientAnswer(step: Step, id: string | number, msg: JsonObject): void {
  const requestMethod = takeAgentRequest(step, id, msg.error !== undefined);
  if (requestMethod === 'session/request_permission') onPermissionAnswer(step, id, msg);
}
