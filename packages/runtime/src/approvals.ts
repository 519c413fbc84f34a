import type { JsonValue } from '@agentlane/contract';
import type { ModelMessage, ToolResultPart } from 'ai';

type ToolResultOutput = ToolResultPart['output'];

import type { DefinedTool } from './tools/define-tool.js';

/**
 * Approvals go through the AI SDK's own tool-approval flow:
 * 1. every tool is declared to the SDK with `needsApproval` (below), so the SDK itself emits a
 *    `tool-approval-request` stream part for a call that needs one;
 * 2. the runtime shows the card (approval.requested) and waits for the answer through TurnIO;
 * 3. the answer goes back to the SDK as a `tool-approval-response` part in the next model call's messages
 *    (with the matching `tool-approval-request` part on the assistant message), so a denied call reaches the
 *    model as the SDK's own `execution-denied` tool result (the SDK reports it as `tool-output-denied`).
 * The runtime still executes approved calls itself (audit, cancellation and checkpoints stay its own); the
 * SDK skips an approval whose call already has a result.
 */
export interface AnsweredApproval {
  /** The approval id the SDK generated in its tool-approval-request part. */
  sdkApprovalId: string;
  toolCallId: string;
  approved: boolean;
  reason?: string;
}

/** What the SDK is told when the user rejects a call; it becomes the execution-denied result's reason. */
export const DENIED_REASON = 'The user rejected this tool call.';

/** The conversation's record of a denial (checkpoints hold it as the SDK's execution-denied output). */
export function deniedOutput(reason: string): JsonValue {
  return { type: 'execution-denied', reason };
}

/** A stored tool-result output that is a denial → the SDK's execution-denied output, else null. */
export function asDeniedOutput(output: JsonValue): ToolResultOutput | null {
  if (typeof output !== 'object' || output === null || Array.isArray(output)) return null;
  if (output.type !== 'execution-denied') return null;
  return {
    type: 'execution-denied',
    ...(typeof output.reason === 'string' ? { reason: output.reason } : {}),
  };
}

/**
 * The SDK's `needsApproval` for a defined tool. An input that fails validation needs no approval (the runtime
 * answers it with a tool error and never runs it); a deciding function that throws fails closed (approval
 * asked, and the runtime turns the same error into a tool error before showing a card).
 */
export function sdkNeedsApproval(def: DefinedTool, workspace: string) {
  return async (input: unknown): Promise<boolean> => {
    if (def.check(input).length > 0) return false;
    if (typeof def.needsApproval !== 'function') return def.needsApproval === true;
    try {
      return (await def.needsApproval(input as never, { workspace })) !== null;
    } catch {
      return true;
    }
  };
}

/**
 * Adds the answered approvals of the last tool step as the SDK's approval parts: the request part on the
 * assistant message that made the call, the response part on the last tool message (which must be the last
 * message, as the SDK only reads approvals there). A denied call's stored result is left out of that
 * message so the SDK itself writes the denial the model reads.
 */
export function withApprovalParts(messages: ModelMessage[], answered: AnsweredApproval[]): ModelMessage[] {
  const last = messages.at(-1);
  if (answered.length === 0 || last?.role !== 'tool') return messages;
  const denied = new Set(answered.filter((a) => !a.approved).map((a) => a.toolCallId));
  const out = messages.map((m, i) => {
    if (m.role === 'assistant' && typeof m.content !== 'string') {
      const own = answered.filter((a) =>
        (m.content as Exclude<typeof m.content, string>).some(
          (p) => p.type === 'tool-call' && p.toolCallId === a.toolCallId,
        ),
      );
      if (own.length === 0) return m;
      return {
        ...m,
        content: [
          ...m.content,
          ...own.map((a) => ({
            type: 'tool-approval-request' as const,
            approvalId: a.sdkApprovalId,
            toolCallId: a.toolCallId,
          })),
        ],
      };
    }
    if (i === messages.length - 1 && m.role === 'tool')
      return {
        ...m,
        content: [
          ...m.content.filter((p) => !(p.type === 'tool-result' && denied.has(p.toolCallId))),
          ...answered.map((a) => ({
            type: 'tool-approval-response' as const,
            approvalId: a.sdkApprovalId,
            approved: a.approved,
            ...(a.reason !== undefined ? { reason: a.reason } : {}),
          })),
        ],
      };
    return m;
  });
  return out;
}
