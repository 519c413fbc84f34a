import type { RequestPermissionRequest, RequestPermissionResponse } from '@agentclientprotocol/sdk';
import type { QuestionRequestedPayload } from '@agentlane/contract';
import type { AcpQuestionAnswer } from './backend.js';

/** The option that declines a question (choice ids are the engine's, this one is agentlane's). */
export const DECLINE_OPTION = 'agentlane.decline';

/**
 * A question as ACP asks: stable ACP's one way of asking the user is session/request_permission, so each
 * choice is an option (kind `allow_once`) and a last option declines (`reject_once`). The title is the
 * question. A multiple-choice question is answered with the one choice picked; a question with no choices
 * (free text only) offers only the decline, since a permission request carries no text.
 */
export function questionAsPermission(
  sessionId: string,
  question: QuestionRequestedPayload,
): RequestPermissionRequest {
  return {
    sessionId,
    toolCall: {
      toolCallId: question.toolCallId ?? question.questionId,
      title: question.prompt,
      kind: 'think',
      rawInput: { question: question.prompt, choices: question.choices.map((c) => c.label) },
    },
    options: [
      ...question.choices.map((c) => ({ optionId: c.id, name: c.label, kind: 'allow_once' as const })),
      { optionId: DECLINE_OPTION, name: 'Decline', kind: 'reject_once' as const },
    ],
  };
}

/** The client's pick → the question's answer: a choice, a decline, or cancelled (the prompt was cancelled). */
export function answerOfPermission(
  question: QuestionRequestedPayload,
  response: RequestPermissionResponse,
): AcpQuestionAnswer {
  const outcome = response.outcome;
  if (outcome.outcome !== 'selected') return { outcome: 'cancelled' };
  if (question.choices.some((c) => c.id === outcome.optionId))
    return { outcome: 'answered', choiceIds: [outcome.optionId] };
  return { outcome: 'declined' };
}
