import type { AgentContext, RequestPermissionResponse } from '@agentclientprotocol/sdk';
import type { ApprovalRequestedPayload, QuestionRequestedPayload } from '@agentlane/contract';
import type { AcpBackend } from './backend.js';
import { answerOfPermission, questionAsPermission } from './questions.js';

/** The run whose approval or question the ACP client is asked. */
export interface AskedRun {
  backend: AcpBackend;
  client: AgentContext;
  sessionId: string;
  runId: string;
}

/**
 * An approval as session/request_permission; the client's pick answers it. An answer the run no longer
 * takes (it settled, or another client answered first) is dropped.
 */
export async function askApproval(run: AskedRun, p: ApprovalRequestedPayload): Promise<void> {
  const response: RequestPermissionResponse = await run.client.request('session/request_permission', {
    sessionId: run.sessionId,
    toolCall: { toolCallId: p.toolCallId ?? p.approvalId, title: p.title, rawInput: p.input ?? null },
    options: p.options.map((o) => ({ optionId: o.optionId, name: o.label, kind: o.kind })),
  });
  const outcome = response.outcome;
  await run.backend
    .answerApproval(
      run.runId,
      p.approvalId,
      outcome.outcome === 'selected'
        ? { outcome: 'selected', optionId: outcome.optionId }
        : { outcome: 'cancelled' },
    )
    .catch(() => undefined);
}

/** A question as session/request_permission (see questions.ts); an answer the run no longer takes is dropped. */
export async function askQuestion(run: AskedRun, p: QuestionRequestedPayload): Promise<void> {
  const response: RequestPermissionResponse = await run.client.request(
    'session/request_permission',
    questionAsPermission(run.sessionId, p),
  );
  await run.backend
    .answerQuestion(run.runId, p.questionId, answerOfPermission(p, response))
    .catch(() => undefined);
}
