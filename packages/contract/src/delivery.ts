import type { CanonicalEvent, CanonicalEventKind } from './events.js';

/**
 * A stored canonical event plus its delivery fields, one row of canonical_events. A re-emitted eventId
 * with changed content is a new row with the next revision; nothing is updated in place.
 */
export interface DeliveryRow {
  threadId: string;
  /** Thread-wide cursor: only increases, never reused or reordered. SSE `id:` is this number. */
  deliverySeq: number;
  eventId: string;
  /** 1 for the first version of an eventId, then 2, 3, ... */
  revision: number;
  runId: string;
  seq: number;
  kind: string;
  schemaVersion: number;
  /** True until the run's canonicalization-complete record exists. */
  provisional: boolean;
  /** Set for events from child sessions / sub-agents: the path of child session ids from the thread's root. */
  namespace?: string[];
  event: CanonicalEvent;
}

/** The wire-only StreamEvent types (never stored as canonical events). */
export const WIRE_ONLY_TYPES = [
  'stream.opened',
  'run.status',
  'run.canonicalized',
  'sync.conflict',
  'stream.closing',
] as const;
export type WireOnlyType = (typeof WIRE_ONLY_TYPES)[number];

/** A delivered canonical event on the wire: `type` is its kind. */
export interface CanonicalStreamEvent {
  type: CanonicalEventKind;
  deliverySeq: number;
  revision: number;
  provisional: boolean;
  namespace?: string[];
  event: CanonicalEvent;
}

/** The first frame of every thread stream: where it starts and where the thread's head is. */
export interface StreamOpenedEvent {
  type: 'stream.opened';
  threadId: string;
  /** The stream delivers rows with deliverySeq strictly greater than this. */
  after: number;
  /** The highest deliverySeq committed when the stream opened (replay ends there, live follows). */
  headDeliverySeq: number;
}

export type RunStatus = 'queued' | 'running' | 'completed' | 'failed';

export interface RunStatusEvent {
  type: 'run.status';
  threadId: string;
  runId: string;
  status: RunStatus;
  deliverySeq?: number;
  /**
   * Counts the run's status changes (1 = queued). Signals of one run may arrive out of order (several
   * processes publish them); a client keeps the status with the highest version and ignores a lower one.
   */
  statusVersion?: number;
}

/**
 * The completion signal: the durable canonicalization-complete record of a run now exists. Rows of this run
 * with deliverySeq <= lastDeliverySeq are final; until this arrives they are provisional working state.
 */
export interface RunCanonicalizedEvent {
  type: 'run.canonicalized';
  threadId: string;
  runId: string;
  status: RunStatus;
  lastDeliverySeq: number;
  completedAt: string;
}

export interface SyncConflictEvent {
  type: 'sync.conflict';
  sessionId: string;
  key: string;
  /** The concurrent changes to the same key, neither of which has seen the other. */
  changes: { clientId: string; version: number; value: unknown }[];
}

/** Sent before the server ends a stream on purpose (shutdown, slow consumer): reconnect after retryMs. */
export interface StreamClosingEvent {
  type: 'stream.closing';
  reason: 'shutdown' | 'slow_consumer' | 'run_settled';
  retryMs: number;
}

/** One SSE `data:` frame. Readers skip any `type` they do not know. */
export type StreamEvent =
  | CanonicalStreamEvent
  | StreamOpenedEvent
  | RunStatusEvent
  | RunCanonicalizedEvent
  | SyncConflictEvent
  | StreamClosingEvent;
