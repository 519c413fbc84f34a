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
  vector: VersionVector;
  /** Changes the client has not seen yet. */
  changes: SyncChangeFrom[];
  conflicts: SyncConflictReport[];
}
