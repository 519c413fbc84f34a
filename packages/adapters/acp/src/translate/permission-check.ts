import { isObject } from '@agentlane/engine-kit';

/**
 * Whether a session/request_permission can be offered to the user at all. The driver refuses such a
 * request with a JSON-RPC error and the translator offers no approval for it (a harness.warning says why),
 * so both must judge the same frame the same way: this one pure function does it for both.
 *
 * - `bad_permission_request`: the params the ACP SDK (2.4.0, `zRequestPermissionRequest`) rejects before
 *   agentlane's handler runs (the agent gets "invalid params"): no sessionId, no toolCall.toolCallId, an
 *   option without a string optionId and name, or of a kind outside the four. Checked here too, so no
 *   approval is offered that nobody could answer.
 * - `ambiguous_permission_options`: two options share an optionId. The answer names an optionId only, so
 *   "Reject" could be recorded, and reach the agent, as "Allow": refused rather than guessed.
 * - `foreign_session`: the request is for another session than the one this run drives.
 */
export type PermissionProblem = {
  code: 'bad_permission_request' | 'ambiguous_permission_options' | 'foreign_session';
  message: string;
};

const KINDS = new Set(['allow_once', 'allow_always', 'reject_once', 'reject_always']);

function optionsProblem(options: unknown): PermissionProblem | null {
  if (!Array.isArray(options)) return bad('its options are not a list');
  const seen = new Set<string>();
  for (const option of options) {
    if (!isObject(option) || typeof option.optionId !== 'string' || typeof option.name !== 'string')
      return bad('an option has no string optionId and name');
    if (typeof option.kind !== 'string' || !KINDS.has(option.kind))
      return bad(`an option has the unknown kind ${JSON.stringify(option.kind ?? null)}`);
    if (seen.has(option.optionId)) {
      return {
        code: 'ambiguous_permission_options',
        message: `two options of the permission request share the optionId ${JSON.stringify(option.optionId)}`,
      };
    }
    seen.add(option.optionId);
  }
  return null;
}

function bad(why: string): PermissionProblem {
  return { code: 'bad_permission_request', message: `a malformed permission request: ${why}` };
}

/** `ownSessionId`: the ACP session this run drives, when known (the request must be for it). */
export function permissionProblem(params: unknown, ownSessionId: string | null): PermissionProblem | null {
  if (!isObject(params)) return bad('no params object');
  if (typeof params.sessionId !== 'string') return bad('no sessionId');
  const toolCall = params.toolCall;
  if (!isObject(toolCall) || typeof toolCall.toolCallId !== 'string') return bad('no toolCall.toolCallId');
  const problem = optionsProblem(params.options);
  if (problem) return problem;
  if (ownSessionId !== null && params.sessionId !== ownSessionId) {
    return {
      code: 'foreign_session',
      message: `a permission request for the session ${params.sessionId}, not this run's ${ownSessionId}`,
    };
  }
  return null;
}
