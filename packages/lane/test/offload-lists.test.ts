import type { CanonicalEvent } from '@agentlane/contract';
import { afterEach, describe, expect, it } from 'vitest';
import { Materializer } from '../src/internal';
import { sqliteTestStore, type TestStore } from './helpers/stores';

/** A plan.updated of `n` small entries: no string in it is long, the whole is megabytes. */
function bigPlan(n: number): CanonicalEvent {
  return {
    schemaVersion: 1,
    eventId: 'evt-plan',
    seq: 1,
    runId: 'run-1',
    threadId: 'thr-1',
    turnId: 'run-1',
    ts: '2026-01-01T00:00:00.000Z',
    identity: { provider: 'test' },
    kind: 'plan.updated',
    payload: {
      entries: Array.from({ length: n }, (_, i) => ({
        content: `step ${i}`,
        status: 'pending',
        priority: 'low',
      })),
    },
  } as unknown as CanonicalEvent;
}

describe('a payload of many small items is moved to an artifact like a long string', () => {
  let t: TestStore | null = null;
  afterEach(async () => {
    await t?.cleanup();
    t = null;
  });

  it('the list goes whole to a JSON artifact, the event keeps the items that fit a preview', async () => {
    t = await sqliteTestStore({ fast: true });
    const event = bigPlan(20_000);
    const writes = await new Materializer(t.store).toWrites({ events: [{ event }], artifacts: [] });
    const [created, plan] = writes.map((w) => w.event) as [CanonicalEvent, CanonicalEvent];
    expect(created.kind).toBe('artifact.created');
    expect(plan.kind).toBe('plan.updated');
    const entries = (plan.payload as { entries: unknown[] }).entries;
    expect(entries.length).toBeGreaterThan(0);
    expect(JSON.stringify(plan.payload).length).toBeLessThan(64 * 1024);
    const ref = (created.payload as { artifact: { id: string } }).artifact;
    const stored = await t.store.getArtifact(ref.id);
    expect(JSON.parse(Buffer.from(stored?.content ?? []).toString('utf8'))).toEqual(
      (event.payload as { entries: unknown[] }).entries,
    );
    expect(entries).toEqual((event.payload as { entries: unknown[] }).entries.slice(0, entries.length));
  });
});
