import type { CanonicalEvent } from '@agentlane/contract';
import { createSqliteStore, type Store } from '@agentlane/store';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PublishHub } from '../src/internal';
import { Collector } from './helpers/collect';
import { warning } from './helpers/rows';
import { sqliteTestStore, type TestStore } from './helpers/stores';

type Cmd =
  | { op: 'write'; n: number; awaitIt: boolean }
  | { op: 'remoteWrite'; n: number }
  | { op: 'subscribe'; afterFrac: number }
  | { op: 'reconnect'; which: number }
  | { op: 'close'; which: number }
  | { op: 'tick' };

const cmd: fc.Arbitrary<Cmd> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      op: fc.constant('write' as const),
      n: fc.integer({ min: 1, max: 5 }),
      awaitIt: fc.boolean(),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ op: fc.constant('remoteWrite' as const), n: fc.integer({ min: 1, max: 3 }) }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant('subscribe' as const),
      afterFrac: fc.double({ min: 0, max: 1, noNaN: true }),
    }),
  },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('reconnect' as const), which: fc.nat(10) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('close' as const), which: fc.nat(10) }) },
  { weight: 1, arbitrary: fc.constant({ op: 'tick' as const }) },
);

let counter = 0;
function events(threadId: string, n: number): { event: CanonicalEvent }[] {
  return Array.from({ length: n }, () => {
    const i = ++counter;
    return warning(threadId, `ev_${i}`, i);
  });
}

/** One logical client: what it saw over all its connections, and from where it started. */
interface Client {
  start: number;
  seen: number[];
  sub: { close(): void } | null;
  collector: Collector;
}

describe('publish hub property: every subscriber sees the table in deliverySeq order, no gap, no duplicate', () => {
  let t: TestStore;
  let remote: Store;
  let threadNo = 0;

  beforeAll(async () => {
    t = await sqliteTestStore({ fast: true });
    // A second store on the same file plays "another process": its commits are not pushed to our hub.
    remote = createSqliteStore({ path: t.path as string });
    await remote.migrate();
  });
  afterAll(async () => {
    await remote.close();
    await t.cleanup();
  });

  it('holds for random interleavings of writes, subscriptions and reconnects', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(cmd, { minLength: 1, maxLength: 25 }),
        fc.integer({ min: 1, max: 4 }),
        async (cmds, pageSize) => {
          const threadId = `prop-${++threadNo}`;
          await t.store.createThread({ threadId, engine: 'test', title: null, workDir: null, metadata: {} });
          // Small pages force multi-page replays; a fast head poll finds the remote commits.
          const hub = new PublishHub(t.store, { pageSize, headPollMs: 5 });
          const clients: Client[] = [];
          const pending: Promise<unknown>[] = [];
          const rowsOf = (c: Collector) => c.seqs();
          const write = async (n: number) => {
            const r = await t.store.appendEvents(threadId, events(threadId, n), false);
            hub.publishRows(threadId, r.inserted);
          };
          const connect = async (client: Client, after: number) => {
            client.collector = new Collector();
            client.sub = await hub.subscribe(threadId, after, client.collector.listener);
          };
          const disconnect = (client: Client) => {
            if (!client.sub) return;
            client.sub.close();
            client.sub = null;
            client.seen.push(...rowsOf(client.collector));
          };
          for (const c of cmds) {
            switch (c.op) {
              case 'write': {
                const p = write(c.n);
                if (c.awaitIt) await p;
                else pending.push(p);
                break;
              }
              case 'remoteWrite':
                await remote.appendEvents(threadId, events(threadId, c.n), false);
                break;
              case 'subscribe': {
                const head = await t.store.headDeliverySeq(threadId);
                const client: Client = {
                  start: Math.floor(c.afterFrac * head),
                  seen: [],
                  sub: null,
                  collector: new Collector(),
                };
                clients.push(client);
                await connect(client, client.start);
                break;
              }
              case 'reconnect': {
                const client = clients[c.which % Math.max(clients.length, 1)];
                if (!client) break;
                disconnect(client);
                await connect(client, client.seen.at(-1) ?? client.start);
                break;
              }
              case 'close': {
                const client = clients[c.which % Math.max(clients.length, 1)];
                if (client) disconnect(client);
                break;
              }
              case 'tick':
                await new Promise((r) => setImmediate(r));
                break;
            }
          }
          await Promise.all(pending);
          const head = await t.store.headDeliverySeq(threadId);
          for (const client of clients) {
            // Every client comes back at the end (a closed one resumes from what it last saw) and catches up.
            if (!client.sub) await connect(client, client.seen.at(-1) ?? client.start);
            const from = client.seen.at(-1) ?? client.start;
            await client.collector.until((x) => (x.seqs().at(-1) ?? from) >= head, 5000);
            disconnect(client);
          }
          hub.close();
          const table = (await t.store.readEvents(threadId, 0, 100_000)).map((r) => r.deliverySeq);
          for (const client of clients) {
            const last = client.seen.at(-1) ?? client.start;
            // No gap, no duplicate, table order: exactly the table rows in (start, last].
            expect(client.seen).toEqual(table.filter((s) => s > client.start && s <= last));
            expect(last).toBe(Math.max(head, client.start));
          }
        },
      ),
      { numRuns: 40 },
    );
  }, 120_000);
});
