import type { EngineDriver } from '@agentlane/engine-kit';
import type { EventWrite, FramePage, Store } from '@agentlane/store';
import { type BuiltEvent, RunTranslation } from '../../src';
import { Materializer } from '../../src/internal';

/**
 * The final pass as it was before it was paged (the whole run in memory: every stored row, every frame,
 * every emission), kept here as the reference a paged pass must agree with. Computed before the pass runs:
 * what it returns depends on the rows stored then.
 */
export async function wholeRunWrites(
  store: Store,
  driver: EngineDriver,
  threadId: string,
  runId: string,
): Promise<EventWrite[]> {
  const translation = new RunTranslation(driver.translator, {
    threadId,
    runId,
    turnId: runId,
    provider: driver.provider,
  });
  const materializer = new Materializer(store);
  for (const row of await store.latestEvents({ threadId, runId }))
    materializer.remember(row.event, row.namespace);
  const events: BuiltEvent[] = [];
  for (const frame of await store.readFrames(runId)) events.push(...translation.push(frame).events);
  events.push(...translation.finish(new Date().toISOString()).events);
  // Each eventId once: the content of its last emission in the slot of its first.
  const slot = new Map<string, number>();
  const once: BuiltEvent[] = [];
  for (const built of events) {
    const at = slot.get(built.event.eventId);
    if (at === undefined) {
      slot.set(built.event.eventId, once.length);
      once.push(built);
    } else once[at] = built;
  }
  return materializer.toWrites({ events: once, artifacts: [] });
}

/** What the final pass asked of the store. */
export interface StoreCalls {
  /** Each readFrames: the page asked for and the JSON size (bytes) of each frame it got. */
  frameReads: { page: FramePage | undefined; sizes: number[] }[];
  /** Each latestEventsPage: the limit asked for and the rows it got. */
  rowReads: { limit: number; rows: number }[];
  /** Each appendEvents: how many writes. */
  appends: number[];
  /** Calls that read a whole run at once (latestEvents). */
  wholeReads: number;
}

/** The store, with the reads and appends of the final pass recorded in `calls`. */
export function spyStore(store: Store): { store: Store; calls: StoreCalls } {
  const calls: StoreCalls = { frameReads: [], rowReads: [], appends: [], wholeReads: 0 };
  const spied: Partial<Store> = {
    readFrames: async (runId, after, page) => {
      const frames = await store.readFrames(runId, after, page);
      calls.frameReads.push({ page, sizes: frames.map((f) => Buffer.byteLength(JSON.stringify(f.frame))) });
      return frames;
    },
    latestEventsPage: async (query, after, limit) => {
      const rows = await store.latestEventsPage(query, after, limit);
      calls.rowReads.push({ limit, rows: rows.length });
      return rows;
    },
    latestEvents: async (query) => {
      calls.wholeReads++;
      return store.latestEvents(query);
    },
    appendEvents: async (threadId, writes, provisional, options) => {
      calls.appends.push(writes.length);
      return store.appendEvents(threadId, writes, provisional, options);
    },
  };
  const proxy = new Proxy(store, {
    get(target, prop, receiver) {
      if (prop in spied) return spied[prop as keyof Store];
      return Reflect.get(target, prop, receiver);
    },
  });
  return { store: proxy, calls };
}
