import type { JsonObject } from '@agentlane/contract';
import { asObject, asString, compact, idDelete, idGet, idSet, rpcId } from '@agentlane/engine-kit';
import { approvalIdFor, resolveApproval } from './approvals.js';
import { endReplay, startReplay } from './replay.js';
import { type AcpTranslatorConfig, flushPendingSession } from './session.js';
import type { Step } from './step.js';
import { openTurn, promptText } from './turn.js';

/** A JSON-RPC message the client (the driver) sent: a request or notification, or its answer to the agent. */
export function fromClient(step: Step, msg: JsonObject, config: AcpTranslatorConfig): void {
  const state = step.state;
  const method = asString(msg.method);
  const id = rpcId(msg.id);
  if (method !== undefined) {
    if (id !== undefined)
      state.clientRequests = idSet(state.clientRequests, id, { method, params: asObject(msg.params) ?? {} });
    if (method === 'session/prompt') {
      endReplay(step, true);
      flushPendingSession(step, config);
      // A trace recorded without the harness has no turn.started frame: the prompt request opens the turn.
      if (state.turn === 'none') openTurn(step, { prompt: promptText(asObject(msg.params) ?? {}) });
    }
    if (method === 'session/cancel') state.cancelRequested = true;
    if (method === 'session/load') startReplay(step);
    return;
  }
  if (id !== undefined) onClientAnswer(step, id, msg);
}

/** Our answer to an agent request: only a permission answer resolves something. */
function onClientAnswer(step: Step, id: string, msg: JsonObject): void {
  const requestMethod = idGet(step.state.agentRequests, id);
  step.state.agentRequests = idDelete(step.state.agentRequests, id);
  if (requestMethod !== 'session/request_permission') return;
  const outcome = asObject(asObject(msg.result)?.outcome);
  const selected = outcome?.outcome === 'selected';
  resolveApproval(
    step,
    approvalIdFor(id),
    compact({
      outcome: selected ? 'selected' : 'cancelled',
      optionId: selected ? asString(outcome?.optionId) : undefined,
    }),
  );
}
