import type { CanonicalEvent, DeliveryRow } from '@agentlane/contract';

/** One event to persist: the lane has already built the envelope. */
export interface EventWrite {
  event: CanonicalEvent;
  namespace?: string[];
  /**
   * The caller knows this eventId was never stored (e.g. the first emission of a key in the live pass of a
   * fresh run): the store writes revision 1 without looking up the latest one. A wrong claim cannot store
   * a second revision 1: the (event_id, revision) unique index refuses it, and the whole call fails with
   * nothing of it stored.
   */
  firstWrite?: boolean;
}

/** What an append did for one event: inserted as a new revision, or skipped because identical. */
export interface AppendResult {
  inserted: DeliveryRow[];
  unchanged: number;
}

/** How an append is made. */
export interface AppendOptions {
  /**
   * The rows are the live pass of this run, derived from its frames as they arrive: refused with
   * `source_sealed` (nothing of the call stored) once the run's source lane is sealed, checked in the same
   * transaction as the seal is taken under. A process that lost its run (its lease expired and another
   * process settled it) cannot then store rows from frames the sealed lane refused; the final pass over the
   * sealed frames writes the run's rows.
   */
  liveRunId?: string;
}

/** Canonical events: per thread delivery order, per eventId revisions. */
export interface EventStore {
  /**
   * Persists events: each gets the next deliverySeq of its thread and the next revision of its eventId;
   * an identical re-emission is a no-op. Resolves after commit with the inserted rows in deliverySeq order.
   */
  appendEvents(
    threadId: string,
    writes: EventWrite[],
    provisional: boolean,
    options?: AppendOptions,
  ): Promise<AppendResult>;
  /**
   * Rows with deliverySeq > afterDeliverySeq in deliverySeq order. `provisional` is derived at read time:
   * the stored flag, cleared for rows covered by the run's completion record (rows are never updated).
   */
  readEvents(threadId: string, afterDeliverySeq: number, limit: number): Promise<DeliveryRow[]>;
  /** The highest committed deliverySeq of the thread (0 when none); cheap enough to poll. */
  headDeliverySeq(threadId: string): Promise<number>;
  /** The latest revision of every eventId of a run (or thread), in first-delivery order. */
  latestEvents(query: { threadId: string; runId?: string }): Promise<DeliveryRow[]>;
  /**
   * latestEvents of one run a page at a time, for a run too large to read at once: the latest revisions
   * whose deliverySeq > afterDeliverySeq, at most `limit`, in the deliverySeq order of those latest
   * revisions, not first-delivery order: the cursor is a row's own deliverySeq, so a page is a range of the
   * run's index rather than a grouping of the whole run per page.
   */
  latestEventsPage(
    query: { threadId: string; runId: string },
    afterDeliverySeq: number,
    limit: number,
  ): Promise<DeliveryRow[]>;
}
