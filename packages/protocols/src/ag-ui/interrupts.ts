import type { Interrupt } from '@ag-ui/core';
import type { ApprovalRequestedPayload, QuestionRequestedPayload } from '@agentlane/contract';

/** A pending approval as an AG-UI interrupt: the client answers with one of the offered option ids. */
export function approvalInterrupt(runId: string, p: ApprovalRequestedPayload): Interrupt {
  return interrupt({ kind: 'approval', runId, payload: p }, p.approvalId, 'tool_approval', p.title, {
    optionId: { type: 'string', enum: p.options.map((o) => o.optionId) },
    approved: { type: 'boolean' },
  });
}

/** A pending question as an AG-UI interrupt: the client answers with choice ids or text. */
export function questionInterrupt(runId: string, p: QuestionRequestedPayload): Interrupt {
  return interrupt({ kind: 'question', runId, payload: p }, p.questionId, 'question', p.prompt, {
    choiceIds: { type: 'array', items: { type: 'string', enum: p.choices.map((c) => c.id) } },
    text: { type: 'string' },
  });
}

interface Asked {
  kind: 'approval' | 'question';
  runId: string;
  payload: ApprovalRequestedPayload | QuestionRequestedPayload;
}

/** The interrupt's shape both share: its response schema's properties, the canonical payload as metadata. */
function interrupt(
  asked: Asked,
  id: string,
  reason: string,
  message: string,
  properties: Record<string, unknown>,
): Interrupt {
  const p = asked.payload;
  return {
    id,
    reason,
    message,
    ...(p.toolCallId ? { toolCallId: p.toolCallId } : {}),
    responseSchema: { type: 'object', properties },
    metadata: { agentlane: { kind: asked.kind, runId: asked.runId, ...p } },
  };
}
