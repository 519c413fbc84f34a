import type {
  AgentContext,
  RequestPermissionOutcome,
  RequestPermissionRequest,
} from '@agentclientprotocol/sdk';
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
  const outcome = await askPermission(run, {
    sessionId: run.sessionId,
    toolCall: { toolCallId: p.toolCallId ?? p.approvalId, title: p.title, rawInput: p.input ?? null },
    options: p.options.map((o) => ({ optionId: o.optionId, name: o.label, kind: o.kind })),
  });
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
  const outcome = await askPermission(run, questionAsPermission(run.sessionId, p));
  await run.backend
    .answerQuestion(run.runId, p.questionId, answerOfPermission(p, { outcome }))
    .catch(() => undefined);
}

/**
 * The client's outcome, or `cancelled` when its response is no answer to this request: a JSON-RPC error (or
 * a connection gone) or an `optionId` the request did not offer. ACP's outcomes are `selected` (one of the
 * offered options) and `cancelled`, and the spec has the agent treat a cancelled request as not granted; so
 * does agentlane, which answers the request `cancelled` (the engine then declines the tool or ends its turn),
 * and session/prompt ends with a stop reason instead of waiting for the approval timeout. Answering the
 * backend with an unknown option would be refused (400 on `optionId`) and leave the request open.
 */
async function askPermission(
  run: AskedRun,
  request: RequestPermissionRequest,
): Promise<RequestPermissionOutcome> {
  let outcome: RequestPermissionOutcome | undefined;
  try {
    outcome = (await run.client.request('session/request_permission', request))?.outcome;
  } catch {
    return { outcome: 'cancelled' };
  }
  if (outcome?.outcome === 'selected' && request.options.some((o) => o.optionId === outcome.optionId))
    return outcome;
  return { outcome: 'cancelled' };
}
