import assert from 'node:assert/strict';
import {
  type CheckpointErrorCode,
  type CheckpointSaver,
  fingerprintCheckpoint,
  isCheckpointError,
  newCheckpointId,
} from '@agentlane/checkpoints';
import { freshId, SessionSim } from './session-sim.js';

export interface ConformanceCase {
  id: string;
  group: 'put-get' | 'isolation' | 'parents' | 'list' | 'pending-writes' | 'delete' | 'prune' | 'bad-input';
  title: string;
  run(saver: CheckpointSaver): Promise<void>;
}

async function refused(code: CheckpointErrorCode, action: () => Promise<unknown>): Promise<void> {
  try {
    await action();
  } catch (error) {
    assert.ok(isCheckpointError(error), `expected a CheckpointError, got ${String(error)}`);
    assert.equal(error.code, code, error.message);
    return;
  }
  assert.fail(`expected refusal with ${code}`);
}

/** Puts `turns` checkpoints of one simulated session and returns the envelopes in order. */
async function grow(saver: CheckpointSaver, sim: SessionSim, turns: number, namespace = '') {
  const out = [];
  for (let i = 0; i < turns; i++) {
    sim.step();
    const checkpoint = sim.checkpoint();
    await saver.put(checkpoint, { namespace });
    out.push(checkpoint);
  }
  return out;
}

export const CASES: readonly ConformanceCase[] = [
  {
    id: 'put-get-roundtrip',
    group: 'put-get',
    title: 'get returns the envelope that was put, with the same fingerprint',
    async run(saver) {
      const sim = new SessionSim();
      const puts = await grow(saver, sim, 5);
      for (const cp of puts) {
        const got = await saver.get(sim.sessionId, cp.id);
        assert.deepEqual(got, cp);
        assert.equal(fingerprintCheckpoint(got as typeof cp), fingerprintCheckpoint(cp));
      }
      assert.equal(await saver.get(sim.sessionId, '01J00000000000000000000000'), undefined);
      assert.equal(await saver.getLatest(freshId('empty-session')), undefined);
    },
  },
  {
    id: 'latest',
    group: 'put-get',
    title: 'getLatest returns the newest checkpoint of the namespace',
    async run(saver) {
      const sim = new SessionSim();
      const puts = await grow(saver, sim, 4);
      assert.deepEqual(await saver.getLatest(sim.sessionId), puts[3]);
    },
  },
  {
    id: 'long-chain-hydration',
    group: 'put-get',
    title: 'every checkpoint of a 120-turn chain hydrates byte-identically (fingerprint)',
    async run(saver) {
      const sim = new SessionSim();
      const puts = await grow(saver, sim, 120);
      for (const cp of puts) {
        const got = await saver.get(sim.sessionId, cp.id);
        assert.ok(got, `checkpoint ${cp.id} missing`);
        assert.equal(fingerprintCheckpoint(got), fingerprintCheckpoint(cp), `checkpoint ${cp.id} differs`);
      }
    },
  },
  {
    id: 'session-isolation',
    group: 'isolation',
    title: 'the same checkpoint id in two sessions is two independent checkpoints',
    async run(saver) {
      const a = new SessionSim();
      const b = new SessionSim();
      a.step();
      b.step();
      b.step();
      const id = newCheckpointId();
      const cpA = a.checkpoint({ id });
      const cpB = b.checkpoint({ id });
      await saver.put(cpA);
      await saver.put(cpB);
      assert.deepEqual(await saver.get(a.sessionId, id), cpA);
      assert.deepEqual(await saver.get(b.sessionId, id), cpB);
      assert.equal((await saver.list({ sessionId: a.sessionId })).items.length, 1);
    },
  },
  {
    id: 'namespace-isolation',
    group: 'isolation',
    title: 'namespaces inside a session have their own latest and list',
    async run(saver) {
      const root = new SessionSim();
      const child = new SessionSim(root.sessionId);
      const rootPuts = await grow(saver, root, 3);
      const childPuts = await grow(saver, child, 2, 'child:1');
      assert.deepEqual(await saver.getLatest(root.sessionId), rootPuts[2]);
      assert.deepEqual(await saver.getLatest(root.sessionId, { namespace: 'child:1' }), childPuts[1]);
      assert.equal(await saver.getLatest(root.sessionId, { namespace: 'other' }), undefined);
      const listed = await saver.list({ sessionId: root.sessionId, namespace: 'child:1' });
      assert.deepEqual(
        listed.items.map((s) => s.checkpointId),
        childPuts.map((c) => c.id).reverse(),
      );
      assert.equal((await saver.list({ sessionId: root.sessionId })).items.length, 5);
    },
  },
  {
    id: 'parent-chain',
    group: 'parents',
    title: 'following parentCheckpointId from the latest visits every put in reverse, then stops',
    async run(saver) {
      const sim = new SessionSim();
      const puts = await grow(saver, sim, 6);
      const seen: string[] = [];
      let cursor = await saver.getLatest(sim.sessionId);
      while (cursor) {
        seen.push(cursor.id);
        cursor = cursor.parentCheckpointId
          ? await saver.get(sim.sessionId, cursor.parentCheckpointId)
          : undefined;
      }
      assert.deepEqual(seen, puts.map((c) => c.id).reverse());
    },
  },
  {
    id: 'fork',
    group: 'parents',
    title: 'two children of one parent (a fork) both hydrate to their own state',
    async run(saver) {
      const sim = new SessionSim();
      const [base] = await grow(saver, sim, 1);
      sim.step('left');
      const left = sim.checkpoint({ parent: base?.id ?? null });
      const right = { ...left, id: newCheckpointId(), channels: base?.channels ?? {} };
      await saver.put(left);
      await saver.put(right);
      assert.deepEqual(await saver.get(sim.sessionId, left.id), left);
      assert.deepEqual(await saver.get(sim.sessionId, right.id), right);
    },
  },
  {
    id: 'missing-parent',
    group: 'parents',
    title: 'a parent that does not exist (or lives in another namespace) is refused and nothing is stored',
    async run(saver) {
      const sim = new SessionSim();
      const [first] = await grow(saver, sim, 1);
      sim.step();
      await refused('missing_parent', () =>
        saver.put(sim.checkpoint({ parent: '01J00000000000000000000001' })),
      );
      sim.step();
      await refused('missing_parent', () =>
        saver.put(sim.checkpoint({ parent: first?.id ?? null }), { namespace: 'elsewhere' }),
      );
      assert.equal((await saver.list({ sessionId: sim.sessionId })).items.length, 1);
    },
  },
  {
    id: 'list-cursor',
    group: 'list',
    title: 'list is newest first and cursors visit every checkpoint exactly once',
    async run(saver) {
      const sim = new SessionSim();
      const puts = await grow(saver, sim, 11);
      const seen: string[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < 10; page++) {
        const result = await saver.list({
          sessionId: sim.sessionId,
          limit: 3,
          ...(cursor ? { cursor } : {}),
        });
        assert.ok(result.items.length <= 3);
        seen.push(...result.items.map((s) => s.checkpointId));
        if (!result.nextCursor) break;
        cursor = result.nextCursor;
      }
      assert.deepEqual(seen, puts.map((c) => c.id).reverse());
    },
  },
  {
    id: 'list-filters',
    group: 'list',
    title: 'list filters by stage and by pinned',
    async run(saver) {
      const sim = new SessionSim();
      const puts = await grow(saver, sim, 8);
      const synth = await saver.list({ sessionId: sim.sessionId, stageId: 'synthesize' });
      assert.deepEqual(
        synth.items.map((s) => s.checkpointId),
        puts
          .filter((c) => c.stageId === 'synthesize')
          .map((c) => c.id)
          .reverse(),
      );
      await saver.pin(sim.sessionId, puts[2]?.id as string);
      const pinned = await saver.list({ sessionId: sim.sessionId, pinned: true });
      assert.deepEqual(
        pinned.items.map((s) => s.checkpointId),
        [puts[2]?.id],
      );
      assert.equal(pinned.items[0]?.pinned, true);
    },
  },
  {
    id: 'pending-write-order',
    group: 'pending-writes',
    title: 'pending writes come back in first-recorded order, replays are ignored, per checkpoint',
    async run(saver) {
      const sim = new SessionSim();
      const [a, b] = await grow(saver, sim, 2);
      const ida = a?.id as string;
      await saver.putWrites(sim.sessionId, ida, 'task-2', [
        { channel: 'conversation', value: 'x' },
        { channel: 'plan', value: [1] },
      ]);
      await saver.putWrites(sim.sessionId, ida, 'task-1', [{ channel: 'tokens', value: 3 }]);
      await saver.putWrites(sim.sessionId, ida, 'task-2', [
        { channel: 'conversation', value: 'replayed' },
        { channel: 'plan', value: [1] },
        { channel: 'scratch', value: null },
      ]);
      await saver.putWrites(sim.sessionId, b?.id as string, 'task-9', [{ channel: 'tokens', value: 9 }]);
      assert.deepEqual(await saver.pendingWrites(sim.sessionId, ida), [
        { taskId: 'task-2', idx: 0, channel: 'conversation', value: 'x' },
        { taskId: 'task-2', idx: 1, channel: 'plan', value: [1] },
        { taskId: 'task-1', idx: 0, channel: 'tokens', value: 3 },
        { taskId: 'task-2', idx: 2, channel: 'scratch', value: null },
      ]);
      await refused('not_found', () => saver.putWrites(sim.sessionId, '01J00000000000000000000000', 't', []));
    },
  },
  {
    id: 'delete-isolation',
    group: 'delete',
    title: 'deleting a session removes its checkpoints and writes and nothing else',
    async run(saver) {
      const gone = new SessionSim();
      const kept = new SessionSim();
      const [g] = await grow(saver, gone, 3);
      const keptPuts = await grow(saver, kept, 3);
      await saver.putWrites(gone.sessionId, g?.id as string, 't', [{ channel: 'c', value: 1 }]);
      await saver.deleteSession(gone.sessionId);
      assert.equal(await saver.getLatest(gone.sessionId), undefined);
      assert.equal(await saver.get(gone.sessionId, g?.id as string), undefined);
      assert.equal((await saver.list({ sessionId: gone.sessionId })).items.length, 0);
      assert.deepEqual(await saver.pendingWrites(gone.sessionId, g?.id as string), []);
      for (const cp of keptPuts) assert.deepEqual(await saver.get(kept.sessionId, cp.id), cp);
    },
  },
  {
    id: 'prune-keeps-newest-and-pinned',
    group: 'prune',
    title: 'prune keeps the newest N plus pinned ones, and every kept one still hydrates identically',
    async run(saver) {
      const sim = new SessionSim();
      const other = new SessionSim(sim.sessionId);
      const puts = await grow(saver, sim, 40);
      const otherPuts = await grow(saver, other, 3, 'sub');
      const pinned = puts[12]?.id as string;
      await saver.pin(sim.sessionId, pinned);
      const result = await saver.prune({ sessionId: sim.sessionId, keepNewest: 7 });
      assert.equal(result.deleted, 40 - 8);
      const keptIds = new Set([pinned, ...puts.slice(-7).map((c) => c.id)]);
      const listed = await saver.list({ sessionId: sim.sessionId, namespace: '' });
      assert.deepEqual(new Set(listed.items.map((s) => s.checkpointId)), keptIds);
      for (const cp of puts) {
        const got = await saver.get(sim.sessionId, cp.id);
        if (!keptIds.has(cp.id)) assert.equal(got, undefined);
        else assert.equal(fingerprintCheckpoint(got as typeof cp), fingerprintCheckpoint(cp));
      }
      for (const cp of otherPuts) assert.deepEqual(await saver.get(sim.sessionId, cp.id), cp);
      // The chain continues from the kept head.
      sim.step();
      const next = sim.checkpoint();
      await saver.put(next);
      assert.deepEqual(await saver.get(sim.sessionId, next.id), next);
    },
  },
  {
    id: 'prune-then-hydrate-fresh',
    group: 'prune',
    title: 'after prune to 1, the survivor hydrates from storage alone',
    async run(saver) {
      const sim = new SessionSim();
      const puts = await grow(saver, sim, 25);
      await saver.prune({ sessionId: sim.sessionId, keepNewest: 1 });
      const last = puts[24];
      assert.ok(last);
      const got = await saver.getLatest(sim.sessionId);
      assert.equal(fingerprintCheckpoint(got as typeof last), fingerprintCheckpoint(last));
    },
  },
  {
    id: 'refuse-schema',
    group: 'bad-input',
    title: 'a checkpoint that does not match the schema is refused with a named field',
    async run(saver) {
      const sim = new SessionSim();
      sim.step();
      const good = sim.checkpoint({ parent: null });
      await refused('invalid_checkpoint', () => saver.put({ ...good, stageId: 'lunch' }));
      await refused('invalid_checkpoint', () => saver.put({ ...good, createdAt: 'yesterday' }));
      await refused('invalid_checkpoint', () => saver.put({ ...good, extra: 1 }));
      await refused('invalid_checkpoint', () => saver.put('not an object'));
      await refused('invalid_channel_value', () =>
        saver.put({ ...good, channels: { plan: { kind: 'topic', version: 1, value: 'nope' } } }),
      );
      await refused('unknown_channel_kind', () =>
        saver.put({ ...good, channels: { plan: { kind: 'magic', version: 1, value: {} } } }),
      );
      assert.equal((await saver.list({ sessionId: sim.sessionId })).items.length, 0);
    },
  },
  {
    id: 'refuse-version-regression',
    group: 'bad-input',
    title: 'a channel version going backwards, or content changing without a version bump, is refused',
    async run(saver) {
      const sim = new SessionSim();
      const [first] = await grow(saver, sim, 2);
      const latest = await saver.getLatest(sim.sessionId);
      assert.ok(latest && first);
      const channels = structuredClone(latest.channels);
      const tokens = channels.tokens;
      assert.ok(tokens);
      channels.tokens = { ...tokens, version: tokens.version - 1 };
      const bad = { ...sim.checkpoint({ parent: latest.id }), channels };
      await refused('version_regression', () => saver.put(bad));
      const sneaky = structuredClone(latest.channels);
      sneaky.tokens = { ...(sneaky.tokens as typeof tokens), value: { reducer: 'sum', value: -1 } };
      await refused('unversioned_change', () =>
        saver.put({ ...bad, id: newCheckpointId(), channels: sneaky }),
      );
      await refused('duplicate_checkpoint', () => saver.put({ ...first, channels: latest.channels }));
      assert.deepEqual(await saver.get(sim.sessionId, first.id), first);
      assert.equal((await saver.list({ sessionId: sim.sessionId })).items.length, 2);
    },
  },
];
