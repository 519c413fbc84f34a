import { isStorageFull } from '@agentlane/sql';
import type { Store } from '@agentlane/store';

/**
 * Whether the database takes writes, as the writes themselves tell: a write that failed because the disk is
 * full (SQLite SQLITE_FULL, PostgreSQL disk_full) marks it full until a write succeeds. Reads keep working on
 * a full disk, so the read /health probes with says nothing about it: a load balancer kept sending runs to
 * a server whose every write was a 503.
 */
export class WriteHealth {
  #full: { since: string; error: string } | undefined;

  /** A store call failed: only a full disk counts (a conflict or a bad request says nothing of the disk). */
  failed(err: unknown): void {
    if (!isStorageFull(err)) return;
    const message = err instanceof Error ? (err.message.split('\n')[0] ?? '') : String(err);
    this.#full ??= { since: new Date().toISOString(), error: message };
  }

  /** A write that stored something committed: the disk took it. */
  succeeded(): void {
    this.#full = undefined;
  }

  /** Since when, and with what error, writes fail for a full disk; undefined while they do not. */
  get full(): { since: string; error: string } | undefined {
    return this.#full;
  }
}

/**
 * The writes whose success proves the disk took rows: a predicate on the result where the call may store
 * nothing (an identical re-emission, an idempotent retry, an empty claim). Writes that may change nothing
 * (lease renewals, releases, content-addressed artifacts that already exist, answers given twice) are
 * watched for failures only: a no-op commits on a full disk, and counting it would say "ok" every 2 s.
 */
const PROVES_ROOM: Partial<Record<keyof Store, (result: unknown) => boolean>> = {
  createThread: () => true,
  updateThread: () => true,
  bindSession: () => true,
  createRun: (r) => (r as { created?: boolean }).created === true,
  finalizeRun: () => true,
  appendFrames: (r) => Array.isArray(r) && r.length > 0,
  appendEvents: (r) => ((r as { inserted?: unknown[] }).inserted?.length ?? 0) > 0,
  completeCanonicalization: (r) => r !== null && r !== undefined,
};

const FAILURES_ONLY: readonly (keyof Store)[] = [
  'deleteThread',
  'requestCancel',
  'claimQueuedRun',
  'claimRun',
  'renewRunLeases',
  'takeExpiredRun',
  'releaseRunLeases',
  'sealSource',
  'leaseOutbox',
  'releaseOutbox',
  'recordAnswer',
  'markAnswerDelivered',
  'appendSyncChanges',
  'putArtifact',
  'putArtifactStream',
];

const WATCHED = new Set<PropertyKey>([...Object.keys(PROVES_ROOM), ...FAILURES_ONLY]);

/**
 * The store with its writes reported to `health`. Every other property is the store's own, looked up on
 * each access, so a test that replaces a method on the store it opened is still heard.
 */
export function trackWrites(store: Store, health: WriteHealth): Store {
  return new Proxy(store, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      if (!WATCHED.has(property)) return value.bind(target);
      const proves = PROVES_ROOM[property as keyof Store];
      return async (...args: unknown[]) => {
        try {
          const result: unknown = await value.apply(target, args);
          if (proves?.(result)) health.succeeded();
          return result;
        } catch (err) {
          health.failed(err);
          throw err;
        }
      };
    },
  });
}
