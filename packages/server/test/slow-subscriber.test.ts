import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postJson, startTestServer, type TestServer } from './support/harness';
import { appendLargeRows, deltaWrite, settledHead, stalledSubscriber } from './support/large-rows';
import { SseReader } from './support/sse-reader';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({
    maxBufferBytes: 64 * 1024,
    slowConsumerMs: 300,
    maxBurstBytes: 8 * 1024 * 1024,
    retryMs: 250,
  });
});
afterAll(async () => {
  await t.close();
});

describe('a replay of large rows', () => {
  it('reaches a client that reads as fast as it can whole, never as a slow consumer, and is paced to it', async () => {
    // 200 rows of ~50 KB (10 MB): one page of them written at once was past the 8 MB burst allowance.
    const id = await t.createSession();
    const { run } = await t.store.createRun({ threadId: id, prompt: 'p' });
    await appendLargeRows(t.store, id, run.runId, 200, 'x'.repeat(50_000));
    // The session's own opening rows land beside these: wait until the head stops moving.
    const head = await settledHead(t.store, id);
    let peak = 0;
    const watch = setInterval(() => {
      for (const conn of t.server.context.connections)
        peak = Math.max(peak, (conn as { res: { writableLength: number } }).res.writableLength);
    }, 1);
    const reader = new SseReader(`${t.api}/threads/${id}/events`);
    await reader.waitFor(
      (r) => r.seqs.at(-1) === head || r.events.some((e) => e.type === 'stream.closing'),
      60_000,
    );
    clearInterval(watch);
    expect(reader.events.filter((e) => e.type === 'stream.closing')).toEqual([]);
    expect(reader.seqs).toEqual(Array.from({ length: head }, (_, i) => i + 1));
    // Written as the client read: never more than the buffer allowance (64 KiB) plus a frame or so unsent.
    expect(peak).toBeLessThan(1024 * 1024);
    reader.close();
  });
});

describe('one row larger than the burst allowance', () => {
  it('reaches a client that reads as fast as it can (it was cut as a slow consumer at once)', async () => {
    const id = await t.createSession();
    const { run } = await t.store.createRun({ threadId: id, prompt: 'p' });
    // 10 MB in one row (the lane moves large payloads out; a row can still be past an 8 MB allowance).
    await t.store.appendEvents(id, [deltaWrite(run.runId, id, 'huge', 1, 'x'.repeat(10_000_000))], true);
    const head = await t.store.headDeliverySeq(id);
    const reader = new SseReader(`${t.api}/threads/${id}/events`);
    try {
      await reader.waitFor(
        (r) => (r.seqs.at(-1) ?? 0) >= head || r.events.some((e) => e.type === 'stream.closing'),
        60_000,
      );
      expect(reader.events.filter((e) => e.type === 'stream.closing')).toEqual([]);
      expect(reader.seqs.at(-1)).toBeGreaterThanOrEqual(head);
    } finally {
      reader.close();
    }
  }, 90_000);
});

describe('a subscriber that stops reading', () => {
  it('is dropped with a retry hint past the buffer, others are unaffected, and it resumes without loss', async () => {
    const id = await t.createSession();
    const healthy = new SseReader(`${t.api}/threads/${id}/events`);
    const slow = stalledSubscriber(`${t.api}/threads/${id}/events`);
    await slow.opened;
    await healthy.waitFor((r) => r.events.length > 0);
    expect(t.server.context.connections.size).toBe(2);

    // Enough bytes to fill the socket buffers on both ends and then the server's 64 KiB allowance.
    const run = await postJson(`${t.api}/threads/${id}/runs`, { prompt: 'many 2500 2000' });
    expect(run.status).toBe(201);
    // The slow one is dropped server-side (its buffer released) while the healthy one goes on.
    const deadline = Date.now() + 60_000;
    while (t.server.context.connections.size > 1 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    expect(t.server.context.connections.size).toBe(1);
    slow.resume();
    await healthy.waitFor((r) => r.events.some((e) => e.type === 'run.canonicalized'), 60_000);
    const head = await t.store.headDeliverySeq(id);
    expect(healthy.seqs).toEqual(Array.from({ length: head }, (_, i) => i + 1));
    await slow.done;
    const closing = slow.frames.at(-1)?.data;
    expect(closing).toMatchObject({ type: 'stream.closing', reason: 'slow_consumer', retryMs: 250 });
    const got = slow.frames.flatMap((f) => ('event' in f.data ? [f.data.deliverySeq] : []));
    // On a quiet machine loopback socket buffers can absorb every row before the drop, so the stalled
    // reader may already hold them all; what matters is the drop signal and the lossless resume below.
    expect(got.length).toBeLessThanOrEqual(head);
    const lastId = slow.frames.filter((f) => f.id !== undefined).at(-1)?.id ?? '0';

    // Reconnecting with Last-Event-ID resumes from the store: together, exactly every row once.
    const again = new SseReader(`${t.api}/threads/${id}/events`, { headers: { 'last-event-id': lastId } });
    if (got.length < head) await again.waitFor((r) => r.seqs.at(-1) === head, 30_000);
    else await again.waitFor((r) => r.events.some((e) => e.type === 'stream.opened'), 30_000);
    expect([...got, ...again.seqs]).toEqual(Array.from({ length: head }, (_, i) => i + 1));
    healthy.close();
    again.close();
  }, 90_000);
});
