import type { DeliveryRow } from '@agentlane/contract';
import type { Store } from '@agentlane/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPLAY_PAGE } from '../src/sse/replay-pacer';
import type { SseConnection } from '../src/sse/sse-connection';
import { startTestServer, type TestServer } from './support/harness';
import { appendLargeRows, settledHead, stalledSubscriber } from './support/large-rows';
import { SseReader } from './support/sse-reader';

/** One store read of a replay: what it returned, and what the stream still held unsent when it was asked. */
interface PageRead {
  rows: number;
  chars: number;
  unsentBefore: number;
  highWaterMark: number;
}

let t: TestServer;
const reads = new Map<string, PageRead[]>();

/** Records every replay read of a thread with the state of that thread's one open stream at the time. */
function spyOnReads(store: Store): Store {
  const readEvents = store.readEvents.bind(store);
  store.readEvents = async (threadId, after, limit) => {
    const conn = [...(t?.server.context.connections ?? [])].find((c) => c.threadId === threadId);
    const unsentBefore = conn?.res.writableLength ?? 0;
    const rows: DeliveryRow[] = await readEvents(threadId, after, limit);
    const page: PageRead = {
      rows: rows.length,
      // The events alone: what a page holds of the rows, and less than their frames weigh as sent.
      chars: rows.reduce((sum, row) => sum + JSON.stringify(row.event).length, 0),
      unsentBefore,
      highWaterMark: conn?.res.writableHighWaterMark ?? 0,
    };
    reads.set(threadId, [...(reads.get(threadId) ?? []), page]);
    return rows;
  };
  return store;
}

beforeAll(async () => {
  // The default buffer allowance (1 MiB) and a stalled reader that is never cut: what is bounded here is
  // what the server itself holds for the stream, not how long it waits.
  t = await startTestServer({ slowConsumerMs: 600_000 }, { wrapStore: spyOnReads });
});
afterAll(async () => {
  await t.close();
});

const streamOf = (threadId: string): SseConnection | undefined =>
  [...t.server.context.connections].find((c) => c.threadId === threadId);

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((r) => setTimeout(r, 10));
}

/** A thread of `count` rows of `text` (besides the session's own), its settled head, no read recorded yet. */
async function threadOf(count: number, text: string): Promise<{ id: string; head: number }> {
  const id = await t.createSession();
  const { run } = await t.store.createRun({ threadId: id, prompt: 'p' });
  await appendLargeRows(t.store, id, run.runId, count, text);
  const head = await settledHead(t.store, id);
  reads.delete(id);
  return { id, head };
}

describe('the replay of a client that does not read', () => {
  it('reads a page of about 256 KiB at a time, and the next only once the socket took the last', async () => {
    // 2,000 rows of 8 KB (16 MB): more than the socket buffers of a reader that does not read take.
    const { id, head } = await threadOf(2000, 'x'.repeat(8000));

    const stalled = stalledSubscriber(`${t.api}/threads/${id}/events`);
    await stalled.opened;
    // Stuck: the kernel took what it would, what is left sits unsent in the server at its high-water mark.
    await until(() => {
      const res = streamOf(id)?.res;
      return res !== undefined && res.writableLength >= res.writableHighWaterMark;
    });
    // What the server holds for the stream now: the last page read (its rows) and what sits unsent. Before,
    // the first page alone was the whole thread (2,000 rows, 16 MB: `stream.opened` made it look light).
    const res = streamOf(id)?.res;
    const last = reads.get(id)?.at(-1);
    expect((last?.chars ?? 0) + (res?.writableLength ?? 0)).toBeLessThanOrEqual(
      2 * REPLAY_PAGE.bytes + (res?.writableHighWaterMark ?? 0),
    );

    stalled.resume();
    await until(() => stalled.frames.some((f) => 'event' in f.data && f.data.deliverySeq === head));
    const got = stalled.frames.flatMap((f) => ('event' in f.data ? [f.data.deliverySeq] : []));
    expect(got).toEqual(Array.from({ length: head }, (_, i) => i + 1));
    expect(stalled.frames.some((f) => f.data.type === 'stream.closing')).toBe(false);

    const pages = reads.get(id) ?? [];
    for (const [i, page] of pages.entries()) {
      // A page weighs about REPLAY_PAGE.bytes, whatever the first frame (stream.opened) weighed.
      expect(page.chars, `page ${i}`).toBeLessThanOrEqual(REPLAY_PAGE.bytes);
      // Read once the last page had drained to the socket (before: up to 1 MiB of it could still be unsent).
      expect(page.unsentBefore, `page ${i}`).toBeLessThan(page.highWaterMark);
    }
    expect(pages[0]?.rows).toBe(REPLAY_PAGE.firstRows);
    expect(streamOf(id)?.replayPages).toBe(pages.length);
  }, 120_000);

  it('a client reading as fast as it can gets the same pages, each after the last drained', async () => {
    const { id, head } = await threadOf(300, 'y'.repeat(30_000));
    const reader = new SseReader(`${t.api}/threads/${id}/events?after=0`);
    try {
      await reader.waitFor((r) => r.seqs.at(-1) === head, 60_000);
      expect(reader.seqs).toEqual(Array.from({ length: head }, (_, i) => i + 1));
      const pages = reads.get(id) ?? [];
      // 9 MB in pages of 256 KiB or less: about 8 rows of 30 KB each.
      expect(pages.length).toBeGreaterThanOrEqual(Math.ceil((head * 30_000) / REPLAY_PAGE.bytes));
      for (const page of pages) {
        expect(page.chars).toBeLessThanOrEqual(REPLAY_PAGE.bytes);
        expect(page.unsentBefore).toBeLessThan(page.highWaterMark);
      }
    } finally {
      reader.close();
    }
  }, 120_000);
});
