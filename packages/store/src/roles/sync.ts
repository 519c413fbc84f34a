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

/** Sync (version vectors): the keyed changes of a session's clients. */
export interface SyncStore {
  /**
   * Stores changes not stored yet; a (clientId, version) already present with the same key, value (as
   * canonical JSON) and vector is ignored, so a retry is harmless. Present with other content it is a
   * `conflict` (detail `changes[i].version`; another vector: `changes[i].vector`) and nothing is stored:
   * checked in the writing transaction, so of two stores racing one (clientId, version) exactly one writes it.
   */
  appendSyncChanges(
    sessionId: string,
    changes: Omit<SyncChangeRecord, 'serverSeq' | 'receivedAt' | 'sessionId'>[],
  ): Promise<SyncChangeRecord[]>;
  listSyncChanges(sessionId: string): Promise<SyncChangeRecord[]>;
}
