import { type CheckpointSaver, openCheckpointSaver } from '@agentlane/checkpoints';

/**
 * What the composition root gives every adapter's `createDriver(config, services)`: the databases an adapter
 * keeps state in, opened here (an adapter opens none itself). An adapter that keeps no state ignores them.
 */
export interface EngineServices {
  /**
   * The checkpoint saver of the database at `place` (a SQLite path or a postgres URL; absent: the server's
   * database), opened on first use, once per place; undefined when there is no database to keep them in.
   */
  checkpoints(place?: string): Promise<CheckpointSaver> | undefined;
  /** What the server knows to be secret (serverSecrets): an engine that keeps state keeps them out of it. */
  secrets: readonly string[];
}

/** The services of one driver, and what closes what they opened (when the driver is disposed). */
export function engineServices(
  database: string | undefined,
  secrets: readonly string[] = [],
): EngineServices & { close(): Promise<void> } {
  const savers = new Map<string, Promise<CheckpointSaver>>();
  return {
    secrets,
    checkpoints(place) {
      const url = place ?? database;
      if (url === undefined) return undefined;
      let saver = savers.get(url);
      if (!saver) {
        // The SQL layer opens it next to the store: on SQLite a side connection without busy wait (a busy
        // write is retried asynchronously), on PostgreSQL the process's one pool for the database.
        saver = openCheckpointSaver(url);
        savers.set(url, saver);
      }
      return saver;
    },
    async close() {
      await Promise.allSettled([...savers.values()].map(async (s) => (await s).close()));
      savers.clear();
    },
  };
}
