import type { JsonValue } from '@agentlane/contract';

/** One keyed write of a sync client, stamped with the writer's version vector at write time. */
export interface SyncChangeRecord {
  sessionId: string;
  clientId: string;
  /** The writer's own vector entry after incrementing for this write. */
  version: number;
  key: string;
  value: JsonValue;
  /** The writer's whole vector at write time; two changes to one key whose vectors are concurrent conflict. */
  vector: Record<string, number>;
  /** Server order of arrival, for "changes the client has not seen". */
  serverSeq: number;
  receivedAt: string;
}

/**
 * What one sync reads of a session, each part bounded by its query rather than by the session's size (a sync
 * used to load every change of the session, twice, and a fresh client's answer held all of them).
 */
export interface SyncStateQuery {
  /** The stored changes of `clientId` at these versions, and its newest one (what a retry is compared with). */
  own?: { clientId: string; versions: readonly number[] };
  /** The current heads of these keys: their changes no other change to the key has seen. */
  keys?: readonly string[];
  /**
   * The changes `vector` has not seen, in arrival order, of about `maxBytes` (stored key, value and vector
   * text; one change even when it alone is larger).
   */
  unseen?: { vector: Readonly<Record<string, number>>; maxBytes: number };
  /**
   * Keys with more than one head, in key order (UTF-8 bytes) after `after`, with their heads: whole keys of
   * about `maxBytes` in all (one key even when it alone is larger).
   */
  conflicts?: { after?: string; maxBytes: number };
}

export interface SyncState {
  /** Changes the session holds. */
  count: number;
  /** Each writer's newest stored version: writes 1..n of it are stored. */
  newest: ReadonlyMap<string, number>;
  /** `own`'s stored changes (those of its versions that are stored, and the newest). */
  own: SyncChangeRecord[];
  /** The heads of `keys`. */
  heads: SyncChangeRecord[];
  /** `unseen`'s page; `more` when changes the vector has not seen are left after it. */
  unseen: { changes: SyncChangeRecord[]; more: boolean };
  /** `conflicts`' page: the heads of its keys, key by key; `more` when conflicting keys are left after it. */
  conflicts: { heads: SyncChangeRecord[]; more: boolean };
}

/**
 * Bounds a caller holds a session's sync state to, checked in the writing transaction under the session's
 * lock, so two processes cannot each let one more in: a call that would break one is a `conflict` with detail
 * `limit:changes`, `limit:writers` or `limit:heads:<key>`, and nothing of it is stored. A key's heads are
 * only refused when the call adds to them past the bound (a write that has seen them is always taken).
 */
export interface SyncLimits {
  changesPerSession?: number;
  writersPerSession?: number;
  headsPerKey?: number;
}

/** Sync (version vectors): the keyed changes of a session's clients. */
export interface SyncStore {
  /**
   * Stores changes not stored yet; a (clientId, version) already present with the same key, value (as
   * canonical JSON) and vector is ignored, so a retry is harmless. Present with other content it is a
   * `conflict` (detail `changes[i].version`; another vector: `changes[i].vector`) and nothing is stored:
   * checked in the writing transaction, so of two stores racing one (clientId, version) exactly one writes it.
   * Keeps each key's heads up to date in the same transaction (what conflicts are read from).
   */
  appendSyncChanges(
    sessionId: string,
    changes: Omit<SyncChangeRecord, 'serverSeq' | 'receivedAt' | 'sessionId'>[],
    limits?: SyncLimits,
  ): Promise<SyncChangeRecord[]>;
  /** Every change of the session in arrival order: unbounded, for tests and tools, never a request's path. */
  listSyncChanges(sessionId: string): Promise<SyncChangeRecord[]>;
  /** The parts of a session's sync state one sync needs (each part empty unless asked for). */
  readSyncState(sessionId: string, query: SyncStateQuery): Promise<SyncState>;
}
