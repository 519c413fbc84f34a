import type { Checkpoint } from '@agentlane/contract';
import type { CheckpointDelta } from '../delta.js';

/** A hydrated checkpoint as the saver keeps it: its row position and how it was built. */
export interface Hydrated {
  seq: number;
  namespace: string;
  baseDistance: number;
  checkpoint: Checkpoint;
  /** The full row the state was built on, and the merged delta from it (undefined: not known). */
  baseId: string;
  since: CheckpointDelta | undefined;
}

/** The saver's small LRU of hydrated states (so a put only needs its parent's state, not a re-read). */
export class HydratedCache {
  private readonly cache = new Map<string, Hydrated>();

  /** `size` 0 disables the cache: nothing is remembered. */
  constructor(private readonly size: number) {}

  get(sessionId: string, checkpointId: string): Hydrated | undefined {
    return this.cache.get(`${sessionId}\u0000${checkpointId}`);
  }

  remember(sessionId: string, hydrated: Hydrated): void {
    if (this.size <= 0) return;
    const key = `${sessionId}\u0000${hydrated.checkpoint.id}`;
    this.cache.delete(key);
    this.cache.set(key, hydrated);
    for (const oldest of this.cache.keys()) {
      if (this.cache.size <= this.size) break;
      this.cache.delete(oldest);
    }
  }

  forgetSession(sessionId: string): void {
    for (const key of [...this.cache.keys()])
      if (key.startsWith(`${sessionId}\u0000`)) this.cache.delete(key);
  }

  evict(sessionId: string, checkpointId: string): void {
    this.cache.delete(`${sessionId}\u0000${checkpointId}`);
  }

  clear(): void {
    this.cache.clear();
  }
}
