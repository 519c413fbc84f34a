import { idDelete, idGet, idSet } from '@agentlane/engine-kit';
import { rpcIdOf, rpcKey } from './rpc-key.js';
import type { Step } from './step.js';

/**
 * The agent's requests the client has not answered yet, by JSON-RPC id. An agent that sends a second
 * request under an id still pending (twice the same permission id) cannot have both answered: a response
 * names the id only, so one answer would settle both (one "allow" approving "delete prod db" and
 * "read readme"). The driver refuses the second with a JSON-RPC error and says so in a frame just before it
 * (driver/request-ledger.ts); here it is a harness.warning and nothing else, and that error, when it comes,
 * is taken as the refusal, not as the first request's answer. A trace without the driver's frames (the
 * agent's side only, or recorded before) is judged by the same rule from this run's own books.
 */

/**
 * The driver's `duplicate_request_id` warning (already emitted as a harness.warning), recorded just before the
 * request it refused: the driver's books last the session, so it may know a pending id this run does not.
 */
export function noteRefusedByDriver(step: Step, id: unknown): void {
  const rpc = rpcIdOf(id);
  if (rpc === undefined) return;
  const key = rpcKey(rpc);
  step.state.refuseNext = idSet(step.state.refuseNext, key, (idGet(step.state.refuseNext, key) ?? 0) + 1);
}

/**
 * The driver's `too_many_pending_permissions` warning (already emitted), recorded just before the permission
 * request it answered cancelled at once: the request is the agent's (its answer will come), but no approval.
 */
export function noteCancelledByDriver(step: Step, id: unknown): void {
  const rpc = rpcIdOf(id);
  if (rpc === undefined) return;
  const key = rpcKey(rpc);
  step.state.cancelNext = idSet(step.state.cancelNext, key, (idGet(step.state.cancelNext, key) ?? 0) + 1);
}

/** Whether the driver flagged this permission request as answered cancelled unasked (and takes the flag). */
export function takeCancelledByDriver(step: Step, id: string | number): boolean {
  const state = step.state;
  const key = rpcKey(id);
  const flagged = idGet(state.cancelNext, key) ?? 0;
  if (flagged === 0) return false;
  state.cancelNext =
    flagged > 1 ? idSet(state.cancelNext, key, flagged - 1) : idDelete(state.cancelNext, key);
  return true;
}

/** Registers a request; false (after a warning) when its id is still pending, and then it is refused. */
export function noteAgentRequest(step: Step, id: string | number, method: string): boolean {
  const state = step.state;
  const key = rpcKey(id);
  const flagged = idGet(state.refuseNext, key) ?? 0;
  if (flagged > 0) {
    state.refuseNext =
      flagged > 1 ? idSet(state.refuseNext, key, flagged - 1) : idDelete(state.refuseNext, key);
    state.refusedRequests = idSet(state.refusedRequests, key, (idGet(state.refusedRequests, key) ?? 0) + 1);
    return false;
  }
  const pending = idGet(state.agentRequests, key);
  if (pending === undefined) {
    state.agentRequests = idSet(state.agentRequests, key, method);
    return true;
  }
  state.refusedRequests = idSet(state.refusedRequests, key, (idGet(state.refusedRequests, key) ?? 0) + 1);
  step.warn(
    'acp.duplicate_request_id',
    `the agent sent ${method} under the id ${JSON.stringify(id)} of its ${pending} still pending; agentlane refused it`,
    { id, method, pendingMethod: pending },
  );
  return false;
}

/**
 * The client answered the id: the method of the request it answers, or undefined when it is the refusal of
 * a request sent again under a pending id (or answers nothing the trace holds).
 */
export function takeAgentRequest(step: Step, id: string | number, isError: boolean): string | undefined {
  const state = step.state;
  const key = rpcKey(id);
  const refused = idGet(state.refusedRequests, key) ?? 0;
  if (isError && refused > 0) {
    state.refusedRequests =
      refused > 1 ? idSet(state.refusedRequests, key, refused - 1) : idDelete(state.refusedRequests, key);
    return undefined;
  }
  const method = idGet(state.agentRequests, key);
  state.agentRequests = idDelete(state.agentRequests, key);
  return method;
}
