/** A JSON object keyed by client id with monotonically increasing integers. */
export type VersionVector = Record<string, number>;

export type VectorOrder = 'equal' | 'ancestor' | 'descendant' | 'concurrent';

/** One write by one client: the client's own entry after incrementing. */
export interface VersionedChange {
  clientId: string;
  version: number;
}
