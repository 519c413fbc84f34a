import type { JsonValue } from '../json.js';
import type { VersionVector } from '../version-vector.js';

/** One write a client sends: its own entry of `vector` equals `version`. */
export interface SyncChange {
  key: string;
  value: JsonValue;
  version: number;
  vector: VersionVector;
}

/** `POST /sessions/:id/sync`: the client's vector and the changes it made since its last sync. */
export interface SyncRequest {
  clientId: string;
  vector: VersionVector;
  changes: SyncChange[];
  /** The previous answer's `cursor`, when it said `more`: where its page of conflicts goes on. */
  cursor?: string;
}

/** A change the client has not seen yet, with the client that wrote it. */
export interface SyncChangeFrom {
  clientId: string;
  key: string;
  value: JsonValue;
  version: number;
  vector: VersionVector;
}

/** Concurrent writes to one key, neither of which has seen the other. */
export interface SyncConflictReport {
  key: string;
  changes: { clientId: string; version: number; value: JsonValue }[];
}

export interface SyncResponse {
  /** The client's vector merged with those of `changes`: it names no write the client has not been sent. */
  vector: VersionVector;
  /** Changes the client has not seen yet, in arrival order: all of them, or a page when `more`. */
  changes: SyncChangeFrom[];
  /** The session's conflicts, in key order: all of them, or a page when `more`. */
  conflicts: SyncConflictReport[];
  /**
   * Present (true) when this answer is a page: sync again, with the merged vector and `cursor`, for the rest.
   * A client that ignores it still gets every change, at its later syncs.
   */
  more?: boolean;
  /** With `more`: send it back as the request's `cursor` (opaque). */
  cursor?: string;
}
