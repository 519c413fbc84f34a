import type { StreamEvent } from '@agentlane/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PublishHub } from '../src/internal';
import { warning } from './helpers/rows';
import { sqliteTestStore, type TestStore } from './helpers/stores';

// A replay reads the store a page at a time. SQLite answers synchronously, so without a yield between
// pages a replay of a long thread ran as one task: every other request waited for it, and it went on after
// its client had gone (an outside probe: /health at 4.2 s behind one replay of 9,000 rows).

const ROWS = 2_000;
const PAGE = 100;

const rows = (threadId: string, from: number, n: number) =>
  Array.from({ length: n }, (_, k) => warning(threadId, `ev_${from + k}`, from + k + 1));

const isRow = (e: StreamEvent) => 'deliverySeq' in e && 'event' in e;

describe('a replay runs in slices of one page', () => {
  let t: TestStore;
  beforeAll(async () => {
    t = await sqliteTestStore({ fast: true });
    await t.store.createThread({ threadId: 'long', engine: 'x', title: null, workDir: null, metadata: {} });
    for (let i = 0; i < ROWS; i += 500) await t.store.appendEvents('long', rows('long', i, 500), false);
  });
  afterAll(async () => t.cleanup());

  it('lets other work run between pages, and delivers every row once, in order', async () => {
    const hub = new PublishHub(t.store, { pageSize: PAGE, headPollMs: 0 });
    const seen: number[] = [];
    // How many rows had arrived each time a macrotask of someone else got to run during the replay.
    const interleaved: number[] = [];
    let done = false;
    const other = (): void => {
      if (done) return;
      interleaved.push(seen.length);
      setImmediate(other);
    };
    setImmediate(other);
    await hub.subscribe('long', 0, (e) => {
      if (isRow(e)) seen.push((e as { deliverySeq: number }).deliverySeq);
    });
    while (seen.length < ROWS) await new Promise((r) => setTimeout(r, 5));
    done = true;
    hub.close();
    expect(seen).toEqual(Array.from({ length: ROWS }, (_, i) => i + 1));
    // Other tasks ran while the replay was under way, not only before or after it.
    expect(interleaved.filter((n) => n > 0 && n < ROWS).length).toBeGreaterThanOrEqual(ROWS / PAGE / 2);
  });

  it('stops reading once its subscription is closed', async () => {
    const hub = new PublishHub(t.store, { pageSize: PAGE, headPollMs: 0 });
    let received = 0;
    const sub = await hub.subscribe('long', 0, (e) => {
      if (isRow(e) && ++received === PAGE) sub.close();
    });
    await new Promise((r) => setTimeout(r, 100));
    hub.close();
    expect(received).toBe(PAGE);
  });
});
