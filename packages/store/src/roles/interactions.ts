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

/** Answers to approvals and questions. */
export interface InteractionStore {
  /** The first answer to a target wins: the same answer again returns it, a different one is a conflict. */
  recordAnswer(
    answer: Omit<InteractionAnswerRecord, 'answerId' | 'createdAt' | 'deliveredAt'>,
  ): Promise<InteractionAnswerRecord>;
  pendingAnswers(runId: string): Promise<InteractionAnswerRecord[]>;
  markAnswerDelivered(answerId: string): Promise<void>;
}
