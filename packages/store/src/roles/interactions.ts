import type { JsonObject } from '@agentlane/contract';

/** An answer to an approval or question, written first, then delivered to the engine. */
export interface InteractionAnswerRecord {
  answerId: string;
  threadId: string;
  runId: string;
  kind: 'approval' | 'question';
  /** approvalId or questionId. */
  targetId: string;
  answer: JsonObject;
  createdAt: string;
  deliveredAt: string | null;
}

/** What `recordAnswer` is given: the record without what the store assigns. */
export type InteractionAnswerInput = Omit<
  InteractionAnswerRecord,
  'answerId' | 'createdAt' | 'deliveredAt'
> & {
  /**
   * A client's answer (the API): refused when the run's canonical rows already hold the request's resolution
   * (`approval.resolved` / `question.resolved`, e.g. the engine resolved it itself) and no answer was recorded
   * for it: a conflict with `detail` 'already_resolved'. Checked and recorded in one transaction that holds
   * the thread's head, which every append of canonical rows to the thread takes first, so of an answer and
   * the engine's own resolution exactly one comes first. Off for the harness's own answers (the approval
   * timeout's `system` cancellation), which must still release a turn waiting for a request its engine
   * resolved.
   */
  unlessResolved?: boolean;
};

/** Answers to approvals and questions. */
export interface InteractionStore {
  /**
   * The first answer to a target wins: the same answer again (equal as canonical JSON: key order does not
   * matter) returns the recorded one, a different one is a conflict with `detail` 'answered_differently'.
   * With `unlessResolved`, also a conflict ('already_resolved') when the request is resolved without one.
   */
  recordAnswer(answer: InteractionAnswerInput): Promise<InteractionAnswerRecord>;
  pendingAnswers(runId: string): Promise<InteractionAnswerRecord[]>;
  markAnswerDelivered(answerId: string): Promise<void>;
}
