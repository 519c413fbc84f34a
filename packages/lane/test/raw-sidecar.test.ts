import { createHash } from 'node:crypto';
import type { StreamEvent } from '@agentlane/contract';
import { afterEach, describe, expect, it } from 'vitest';
import { RunTranslation } from '../src';
import { Materializer, PublishHub, RunPipeline } from '../src/internal';
import { pgAvailable, pgTestStore, sqliteTestStore, type TestStore } from './helpers/stores';
import { createTestTranslator } from './helpers/test-translator';

const pg = await pgAvailable();

const backends: [string, () => Promise<TestStore>, boolean][] = [
  ['sqlite', () => sqliteTestStore({ fast: true }), true],
  ['postgres', pgTestStore, pg],
];

describe.each(backends)('raw sidecar through the live pipeline (%s)', (_name, open, available) => {
  let t: TestStore | null = null;
  afterEach(async () => {
    await t?.cleanup();
    t = null;
  });

  it.skipIf(!available)(
    'stores the raw bytes beside each frame, in the same commit as its rows',
    async () => {
      t = await open();
      const { store } = t;
      await store.createThread({ threadId: 'raw', engine: 'test', title: null, workDir: null, metadata: {} });
      const { run } = await store.createRun({ threadId: 'raw', prompt: 'p' });
      const hub = new PublishHub(store, { headPollMs: 0 });
      const seen: StreamEvent[] = [];
      await hub.subscribe('raw', 0, (e) => seen.push(e));
      const pipeline = new RunPipeline({
        store,
        hub,
        threadId: 'raw',
        runId: run.runId,
        translation: new RunTranslation(createTestTranslator(), {
          threadId: 'raw',
          runId: run.runId,
          turnId: run.runId,
          provider: 'test',
        }),
        materializer: new Materializer(store),
      });
      // As an engine's wire carried them: one JSON line each, with its own spacing (parsing would lose it).
      const lines = ['{ "t": "delta", "text": "a" }\n', '{"t":"delta",  "text":"b"}\n'];
      for (const line of lines) pipeline.emit(JSON.parse(line), line);
      pipeline.emit({ t: 'delta', text: 'c' }); // a frame without raw: no sidecar row
      await pipeline.drain();
      // Delivery follows the commit (on PostgreSQL a read after it): wait for the head to reach the subscriber
      // before closing the hub, or a loaded machine closed it first and the subscriber saw nothing (CI).
      const committed = await store.headDeliverySeq('raw');
      const delivered = () => seen.some((e) => 'deliverySeq' in e && e.deliverySeq === committed);
      for (let i = 0; i < 500 && !delivered(); i++) await new Promise((r) => setTimeout(r, 20));
      hub.close();

      const raw = await store.readRawFrames(run.runId);
      expect(raw.map((r) => [r.nativeSeq, r.storage])).toEqual([
        [1, 'inline'],
        [2, 'inline'],
      ]);
      expect(raw.map((r) => Buffer.from(r.content ?? []).toString('utf8'))).toEqual(lines);
      expect(raw.map((r) => r.sha256)).toEqual(
        lines.map((l) => createHash('sha256').update(l).digest('hex')),
      );
      expect((await store.readFrames(run.runId)).map((f) => f.frame)).toEqual([
        { t: 'delta', text: 'a' },
        { t: 'delta', text: 'b' },
        { t: 'delta', text: 'c' },
      ]);
      // Every committed row was delivered, in order (the sidecar rides in the same group commit).
      const head = await store.headDeliverySeq('raw');
      expect(head).toBeGreaterThanOrEqual(3);
      expect(seen.flatMap((e) => ('deliverySeq' in e ? [e.deliverySeq] : []))).toEqual(
        Array.from({ length: head }, (_, i) => i + 1),
      );
    },
  );
});
