import type { SourceWatermark } from './source-lane.js';

export interface CompletionRecord {
  runId: string;
  threadId: string;
  lastDeliverySeq: number;
  watermark: SourceWatermark;
  completedAt: string;
}

export interface OutboxEntry {
  runId: string;
  threadId: string;
  enqueuedAt: string;
  attempts: number;
  lastError: string | null;
}

/** Completion: the canonicalization outbox of settled runs and the completion records it ends in. */
export interface OutboxStore {
  /** Outbox entries waiting for canonicalization; leases them to a worker (SKIP LOCKED on PostgreSQL). */
  leaseOutbox(workerId: string, limit: number, leaseMs: number): Promise<OutboxEntry[]>;
  /** Writes the completion record and removes the outbox entry, only if the watermark is unchanged. */
  completeCanonicalization(runId: string, expected: SourceWatermark): Promise<CompletionRecord | null>;
  releaseOutbox(runId: string, error: string): Promise<void>;
  getCompletion(runId: string): Promise<CompletionRecord | null>;
  /** Every completion record of a thread, oldest first (one query: a resumed stream repeats them all). */
  listCompletions(threadId: string): Promise<CompletionRecord[]>;
}
