import type { StopReason } from '@agentlane/contract';
import type { UIMessageChunk } from 'ai';

/** What the stream of one run says about itself, in the message metadata (`start` and `finish`). */
export interface AgentlaneMessageMetadata {
  threadId: string;
  runId: string;
  /** The last thread row this message holds: a continuation or a resume starts after it. */
  deliverySeq?: number;
  stopReason?: StopReason;
}

export type UiChunk = UIMessageChunk<{ agentlane: AgentlaneMessageMetadata }>;
