import { RequestError, type RequestPermissionResponse } from '@agentclientprotocol/sdk';
import type { TurnIO } from '@agentlane/engine-kit';
import { permissionProblem } from '../translate/permission-check.js';
import type { RequestLedger } from './request-ledger.js';

const PERMISSION = 'session/request_permission';

/** Whether the SDK calls agentlane's permission handler for this request (its params passed the SDK's check). */
export function reachesPermissionHandler(method: unknown, params: unknown): boolean {
  return method === PERMISSION && permissionProblem(params, null)?.code !== 'bad_permission_request';
}

/** What the running turn offers a permission request: where answers come from, and the turn's end. */
export type PermissionTurn = { io: TurnIO | null; aborted: Promise<null> | null; sessionId: string | null };

/**
 * session/request_permission → the user's answer, through the approval the ledger gave the request. A request
 * that cannot be answered unambiguously is refused with a JSON-RPC error (the translator warns about the same
 * frame): an id still pending (one answer would settle both; request-ledger.ts), options sharing an optionId
 * (the answer could not say which was chosen), another session's request, or a null id. One over the cap
 * of pending requests, or sent after the turn's answer, is answered cancelled at once (request-ledger.ts).
 */
export async function answerPermission(
  ledger: RequestLedger,
  params: unknown,
  requestId: string | number | null,
  turn: PermissionTurn,
): Promise<RequestPermissionResponse> {
  if (requestId === null) throw RequestError.invalidRequest(undefined, 'a permission request needs an id');
  const verdict = ledger.take(requestId);
  if (verdict.kind === 'duplicate') {
    throw RequestError.invalidRequest(
      { id: requestId },
      `a request with the id ${JSON.stringify(requestId)} is still pending`,
    );
  }
  const cancelled: RequestPermissionResponse = { outcome: { outcome: 'cancelled' } };
  // Too many pending, or late: the ledger's frame told the translator that no approval is offered.
  if (verdict.kind === 'cancel') return cancelled;
  const problem = permissionProblem(params, turn.sessionId);
  if (problem) throw RequestError.invalidParams({ reason: problem.code }, problem.message);
  const { io, aborted } = turn;
  if (!io || io.signal.aborted || !aborted) return cancelled;
  // Every pending request waits on the turn's one abort promise: a flood of requests adds no listener.
  const answer = await Promise.race([io.awaitApproval(verdict.approvalId), aborted]);
  if (answer?.outcome === 'selected' && answer.optionId) {
    return { outcome: { outcome: 'selected', optionId: answer.optionId } };
  }
  return cancelled;
}
