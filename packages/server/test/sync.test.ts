import { incrementVector, mergeVectors, type VersionVector } from '@agentlane/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveState, type SyncChange, type SyncConflict } from '../src';
import { postJson, startTestServer, type TestServer } from './support/harness';
import { SseReader } from './support/sse-reader';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t.close();
});

/** A sync client as the spec describes it: increments its own entry on every write, merges on sync. */
class Client {
  vector: VersionVector = {};
  known: SyncChange[] = [];
  outbox: SyncChange[] = [];
  lastConflicts: SyncConflict[] = [];
  constructor(readonly id: string) {}

  write(key: string, value: string): void {
    this.vector = incrementVector(this.vector, this.id);
    const change = {
      clientId: this.id,
      version: this.vector[this.id] as number,
      key,
      value,
      vector: { ...this.vector },
    };
    this.known.push(change);
    this.outbox.push(change);
  }

  request() {
    return {
      clientId: this.id,
      vector: this.vector,
      changes: this.outbox.map(({ clientId: _c, ...rest }) => rest),
    };
  }

  async sync(
    api: string,
    session: string,
  ): Promise<{ vector: VersionVector; changes: SyncChange[]; conflicts: SyncConflict[] }> {
    const res = await postJson(`${api}/sessions/${session}/sync`, this.request());
    expect(res.status).toBe(200);
    this.outbox = [];
    for (const c of res.json.changes as SyncChange[]) {
      if (!this.known.some((k) => k.clientId === c.clientId && k.version === c.version)) this.known.push(c);
    }
    this.vector = mergeVectors(this.vector, res.json.vector);
    this.lastConflicts = res.json.conflicts;
    return res.json;
  }
}

function offlineWrites(): Client[] {
  const a = new Client('a');
  const b = new Client('b');
  const c = new Client('c');
  a.write('x', 'a1');
  a.write('y', 'a2');
  b.write('x', 'b1');
  c.write('z', 'c1');
  c.write('y', 'c2');
  b.write('w', 'b2');
  return [a, b, c];
}

const permutations = <T>(xs: T[]): T[][] =>
  xs.length <= 1
    ? [xs]
    : xs.flatMap((x, i) => permutations([...xs.slice(0, i), ...xs.slice(i + 1)]).map((p) => [x, ...p]));

describe('version-vector sync', () => {
  it('three clients that wrote offline converge in every sync order, with the same conflicts reported', async () => {
    const outcomes: { state: string; conflicts: string }[] = [];
    for (const order of permutations([0, 1, 2])) {
      const session = await t.createSession();
      const stream = new SseReader(`${t.api}/threads/${session}/events`);
      await stream.waitFor((r) => r.events.length > 0);
      const clients = offlineWrites();
      // Round one: each uploads its offline writes; round two: everyone hears about everything.
      for (const i of order) await (clients[i] as Client).sync(t.api, session);
      for (const i of order) await (clients[i] as Client).sync(t.api, session);

      const states = clients.map((c) => JSON.stringify(resolveState(c.known)));
      expect(states, JSON.stringify(clients.map((c) => c.known))).toEqual([states[0], states[0], states[0]]);
      const conflicts = clients.map((c) => JSON.stringify(c.lastConflicts));
      expect(new Set(conflicts).size).toBe(1);
      expect(clients.map((c) => c.known.length)).toEqual([6, 6, 6]);
      expect(clients.every((c) => JSON.stringify(c.vector) === JSON.stringify({ a: 2, b: 2, c: 2 }))).toBe(
        true,
      );

      // The conflicts also reached the thread stream, once each.
      await stream.waitFor((r) => r.events.filter((e) => e.type === 'sync.conflict').length >= 2);
      const streamed = stream.events
        .filter((e) => e.type === 'sync.conflict')
        .map((e) => (e as { key: string }).key);
      expect(streamed.sort()).toEqual(['x', 'y']);
      stream.close();
      outcomes.push({ state: states[0] as string, conflicts: conflicts[0] as string });
    }
    expect(new Set(outcomes.map((o) => o.state)).size).toBe(1);
    expect(new Set(outcomes.map((o) => o.conflicts)).size).toBe(1);
    const conflicts = JSON.parse(outcomes[0]?.conflicts ?? '[]') as SyncConflict[];
    expect(conflicts.map((c) => c.key)).toEqual(['x', 'y']);
    expect(conflicts[0]?.changes.map((c) => c.clientId)).toEqual(['a', 'b']);
  });

  it('a retried sync is harmless, and a write that has seen both sides resolves the conflict', async () => {
    const session = await t.createSession();
    const [a, b] = offlineWrites() as [Client, Client, Client];
    const body = a.request();
    const first = await postJson(`${t.api}/sessions/${session}/sync`, body);
    const retry = await postJson(`${t.api}/sessions/${session}/sync`, body);
    expect(retry.json).toEqual(first.json);
    await a.sync(t.api, session);
    await b.sync(t.api, session);
    expect(b.lastConflicts.map((c) => c.key)).toEqual(['x']);
    // b has now seen a's write to x: its new write supersedes both heads.
    b.write('x', 'merged');
    await b.sync(t.api, session);
    expect(b.lastConflicts).toEqual([]);
    await a.sync(t.api, session);
    expect(resolveState(a.known).x).toBe('merged');
    expect(resolveState(a.known)).toEqual(resolveState(b.known));
  });

  it('refuses versions out of order and vector entries no client could have: every client ends up with every write', async () => {
    const session = await t.createSession();
    const sync = (body: unknown) => postJson(`${t.api}/sessions/${session}/sync`, body);
    const change = (version: number, key: string) => ({ key, value: key, version, vector: { a: version } });
    const refused = async (body: unknown) => {
      const res = await sync(body);
      return [res.status, res.json.error?.field];
    };
    // A first write must be version 1; a gap is a write that was never sent.
    expect(await refused({ clientId: 'a', vector: { a: 2 }, changes: [change(2, 'x')] })).toEqual([
      409,
      'body.changes[0].version',
    ]);
    expect(
      (await sync({ clientId: 'a', vector: { a: 2 }, changes: [change(2, 'y'), change(1, 'x')] })).status,
    ).toBe(200);
    const c = await sync({ clientId: 'c', vector: {}, changes: [] });
    expect(c.json.vector).toEqual({ a: 2 });
    // A version below one stored, arriving late, would never reach c, whose vector already counts it.
    expect(await refused({ clientId: 'a', vector: { a: 2 }, changes: [change(1, 'late')] })).toEqual([
      409,
      'body.changes[0].version',
    ]);
    expect(await refused({ clientId: 'a', vector: { a: 4 }, changes: [change(4, 'z')] })).toEqual([
      409,
      'body.changes[0].version',
    ]);
    // A client's own entry counts the writes it sent; another's, the writes stored; keys are client ids.
    expect(await refused({ clientId: 'a', vector: { a: 3 }, changes: [] })).toEqual([400, 'body.vector']);
    const badKey = await sync({ clientId: 'c', vector: { 'x y': 0 }, changes: [] });
    expect(badKey.status).toBe(400);
    expect((await sync({ clientId: 'c', vector: { a: 2 }, changes: [] })).json.changes).toEqual([]);
    expect((await sync({ clientId: 'd', vector: {}, changes: [] })).json.changes).toHaveLength(2);
  });

  it("refuses a client's vector that goes back, a retry with another vector, and built-in property names as client ids", async () => {
    const session = await t.createSession();
    const sync = (body: unknown) => postJson(`${t.api}/sessions/${session}/sync`, body);
    const refused = async (body: unknown) => {
      const res = await sync(body);
      return [res.status, res.json.error?.field];
    };
    expect(
      (
        await sync({
          clientId: 'b',
          vector: { b: 1 },
          changes: [{ key: 'k', value: 1, version: 1, vector: { b: 1 } }],
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await sync({
          clientId: 'c',
          vector: { c: 1, b: 1 },
          changes: [{ key: 'k', value: 2, version: 1, vector: { c: 1, b: 1 } }],
        })
      ).status,
    ).toBe(200);
    // Version 2 of c forgets the write of b that version 1 had seen: c would conflict with itself.
    expect(
      await refused({
        clientId: 'c',
        vector: { c: 2, b: 1 },
        changes: [{ key: 'k', value: 3, version: 2, vector: { c: 2 } }],
      }),
    ).toEqual([400, 'body.changes[0].vector']);
    // The syncing vector must include what the client's newest write had seen.
    expect(await refused({ clientId: 'c', vector: { c: 1 }, changes: [] })).toEqual([400, 'body.vector']);
    // Within one request too: version 2 below version 1.
    expect(
      await refused({
        clientId: 'e',
        vector: { e: 2, b: 1 },
        changes: [
          { key: 'k', value: 4, version: 1, vector: { e: 1, b: 1 } },
          { key: 'k', value: 5, version: 2, vector: { e: 2 } },
        ],
      }),
    ).toEqual([400, 'body.changes[1].vector']);
    // A retry of a stored version with the same content but another vector: its vector would be dropped.
    expect(
      await refused({
        clientId: 'c',
        vector: { c: 1, b: 1 },
        changes: [{ key: 'k', value: 2, version: 1, vector: { c: 1 } }],
      }),
    ).toEqual([409, 'body.changes[0].vector']);
    // The same retry exactly is harmless; no conflict of c with itself was ever stored.
    const retry = await sync({
      clientId: 'c',
      vector: { c: 1, b: 1 },
      changes: [{ key: 'k', value: 2, version: 1, vector: { c: 1, b: 1 } }],
    });
    expect(retry.status).toBe(200);
    expect(retry.json.conflicts).toEqual([]);
    // A client id named like a property of every object is checked like any other.
    for (const clientId of ['constructor', 'toString', 'hasOwnProperty']) {
      expect(
        await refused({
          clientId,
          vector: {},
          changes: [{ key: 'k', value: 1, version: 1, vector: { [clientId]: 1 } }],
        }),
      ).toEqual([400, 'body.vector']);
      expect(
        await refused({
          clientId,
          vector: { [clientId]: 1 },
          changes: [{ key: 'k', value: 1, version: 1, vector: {} }],
        }),
      ).toEqual([400, 'body.changes[0].vector']);
    }
    // `__proto__` is no key a body may hold, so it is no client id either.
    expect((await refused({ clientId: '__proto__', vector: {}, changes: [] }))[0]).toBe(400);
  });
});
