import type { DeliveryRow } from '@agentlane/contract';
import type { EventStore } from '@agentlane/store';

const PAGE = 1000;

/** The stored rows of one run up to `upTo` (inclusive), in deliverySeq order, every revision as it was sent. */
export async function readRunRows(
  store: EventStore,
  threadId: string,
  runId: string,
  upTo = Number.POSITIVE_INFINITY,
): Promise<DeliveryRow[]> {
  const rows: DeliveryRow[] = [];
  let after = 0;
  for (;;) {
    const page = await store.readEvents(threadId, after, PAGE);
    for (const row of page) {
      if (row.deliverySeq > upTo) return rows;
      if (row.runId === runId) rows.push(row);
    }
    if (page.length < PAGE) return rows;
    after = (page[page.length - 1] as DeliveryRow).deliverySeq;
  }
}

/** A thread's rows up to `upTo` (inclusive) grouped by run, each run's in deliverySeq order. */
export async function readRowsByRun(
  store: EventStore,
  threadId: string,
  upTo = Number.POSITIVE_INFINITY,
): Promise<Map<string, DeliveryRow[]>> {
  const byRun = new Map<string, DeliveryRow[]>();
  for (let after = 0; after < upTo; ) {
    const page = await store.readEvents(threadId, after, PAGE);
    for (const row of page) {
      if (row.deliverySeq > upTo) return byRun;
      const list = byRun.get(row.runId);
      if (list) list.push(row);
      else byRun.set(row.runId, [row]);
    }
    if (page.length < PAGE) return byRun;
    after = (page[page.length - 1] as DeliveryRow).deliverySeq;
  }
  return byRun;
}
