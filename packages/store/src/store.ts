import type { ArtifactStore } from './roles/artifacts.js';
import type { EventStore } from './roles/events.js';
import type { InteractionStore } from './roles/interactions.js';
import type { OutboxStore } from './roles/outbox.js';
import type { RunStore } from './roles/runs.js';
import type { SessionStore } from './roles/sessions.js';
import type { SignalStore } from './roles/signals.js';
import type { SourceLaneStore } from './roles/source-lane.js';
import type { SyncStore } from './roles/sync.js';
import type { ThreadStore } from './roles/threads.js';

// The store is a set of roles, one file each under roles/ (its records and its interface); a consumer takes
// the roles it uses (e.g. `EventStore & SignalStore`), and `Store` is all of them.
export * from './roles/artifacts.js';
export * from './roles/events.js';
export * from './roles/interactions.js';
export * from './roles/outbox.js';
export * from './roles/runs.js';
export * from './roles/sessions.js';
export * from './roles/signals.js';
export * from './roles/source-lane.js';
export * from './roles/sync.js';
export * from './roles/threads.js';

export class StoreError extends Error {
  constructor(
    readonly code:
      | 'not_found'
      | 'conflict'
      | 'source_sealed'
      | 'stale_generation'
      | 'idempotency_conflict'
      | 'invalid'
      | 'unavailable',
    message: string,
    /** What exactly conflicted, where a caller may word it for its client (e.g. `other_thread`, `other_body`). */
    readonly detail?: string,
  ) {
    super(message);
    this.name = 'StoreError';
  }
}

/** Which backend, its schema, its connections. */
export interface StoreLifecycle {
  readonly backend: 'sqlite' | 'postgres';
  migrate(): Promise<void>;
  close(): Promise<void>;
}

/**
 * The durable store: every role. Two implementations (SQLite, PostgreSQL) that pass one shared suite.
 * Every method is a committed transaction when it resolves: nothing is published before that.
 */
export type Store = StoreLifecycle &
  ThreadStore &
  SessionStore &
  RunStore &
  SourceLaneStore &
  EventStore &
  SignalStore &
  OutboxStore &
  InteractionStore &
  SyncStore &
  ArtifactStore;
