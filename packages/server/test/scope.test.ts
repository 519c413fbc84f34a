import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type CanonicalEvent, SCHEMA_VERSION } from '@agentlane/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postJson, readJson, startTestServer, type TestServer } from './support/harness';

// What one token can learn or take of another's: session ids and titles through paging and search,
// idempotency keys, artifacts; and where a session may point (the workspace root).

const ADMIN = 'token-admin-0123456789';
const ALICE = 'token-alice-0123456789';
const BOB = 'token-bobby-0123456789';
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

let t: TestServer;
let root: string;
const ids = ['thr-alice-1', 'thr-alice-2', 'thr-bob-1', 'thr-secret'];

beforeAll(async () => {
  t = await startTestServer({
    tokens: [
      { token: ADMIN, threads: '*', name: 'admin' },
      { token: ALICE, threads: ['thr-alice-1', 'thr-alice-2'], name: 'alice' },
      { token: BOB, threads: ['thr-bob-1'], name: 'bob' },
    ],
  });
  root = t.server.context.defaultWorkDir;
  for (const [i, threadId] of ids.entries()) {
    await t.store.createThread({
      threadId,
      engine: 'scripted',
      title: threadId === 'thr-secret' ? 'merger with acme' : `t${i}`,
      workDir: null,
      metadata: {},
    });
  }
});
afterAll(async () => {
  await t.close();
});

const list = async (token: string, query: string) => {
  const res = await fetch(`${t.api}/sessions?${query}`, { headers: bearer(token) });
  return (await readJson(res)) as { sessions: { id: string }[]; nextCursor: string | null };
};

describe('GET /sessions filters by scope before paging', () => {
  it('a scoped token walking limit=1 cursors sees only its threads, and every one of them', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < 10; page++) {
      const body = await list(ALICE, `limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      seen.push(...body.sessions.map((s) => s.id));
      cursor = body.nextCursor;
      if (!cursor) break;
    }
    expect(seen.sort()).toEqual(['thr-alice-1', 'thr-alice-2']);
  });

  it('search is no title oracle for threads outside the scope', async () => {
    expect((await list(BOB, 'search=merger')).sessions).toEqual([]);
    expect((await list(BOB, 'search=merger&limit=1')).nextCursor).toBeNull();
    expect((await list(ADMIN, 'search=merger')).sessions.map((s) => s.id)).toEqual(['thr-secret']);
  });
});

describe('Idempotency-Key is scoped per token', () => {
  it("another token's key is neither visible (no 409, no replay) nor squatted", async () => {
    const key = { 'idempotency-key': 'deploy-1' };
    const first = await postJson(
      `${t.api}/threads/thr-alice-1/runs`,
      { prompt: 'a' },
      { ...bearer(ALICE), ...key },
    );
    expect(first.status).toBe(201);
    // Bob uses the same key on his thread with another body: a fresh run, not 409 and not Alice's run.
    const other = await postJson(
      `${t.api}/threads/thr-bob-1/runs`,
      { prompt: 'b' },
      { ...bearer(BOB), ...key },
    );
    expect(other.status).toBe(201);
    expect(other.json.run.runId).not.toBe(first.json.run.runId);
    // Alice's retry still replays her run.
    const retry = await postJson(
      `${t.api}/threads/thr-alice-1/runs`,
      { prompt: 'a' },
      { ...bearer(ALICE), ...key },
    );
    expect(retry.status).toBe(200);
    expect(retry.json.run.runId).toBe(first.json.run.runId);
  });
});

describe('artifacts are readable only within the threads of the token', () => {
  it('an artifact named by an event of thread A is readable with A, 404 for another scope, even if named in a prompt', async () => {
    const ref = await t.store.putArtifact(new TextEncoder().encode('quarterly numbers'), 'text/plain');
    const { run } = await t.store.createRun({ threadId: 'thr-alice-1', prompt: 'p' });
    const event: CanonicalEvent = {
      schemaVersion: SCHEMA_VERSION,
      eventId: `${run.runId}:art`,
      seq: 1,
      runId: run.runId,
      threadId: 'thr-alice-1',
      turnId: 'turn_1',
      ts: new Date().toISOString(),
      identity: { provider: 'scripted' },
      kind: 'artifact.created',
      payload: { artifact: ref, name: 'numbers.txt' },
    } as CanonicalEvent;
    await t.store.appendEvents('thr-alice-1', [{ event }], true);
    // Bob names the id in a prompt of his own thread: the text is not an ArtifactRef, it grants nothing.
    await postJson(`${t.api}/threads/thr-bob-1/runs`, { prompt: `"id":"${ref.id}"` }, bearer(BOB));
    const read = (token: string) => fetch(`${t.api}/artifacts/${ref.id}`, { headers: bearer(token) });
    expect((await read(ALICE)).status).toBe(200);
    expect((await read(ADMIN)).status).toBe(200);
    const bob = await read(BOB);
    expect(bob.status).toBe(404);
    expect((await readJson(bob)).error.code).toBe('not_found');
  });
});

describe('an artifact id the model wrote is no reference', () => {
  // A probe had its own model add `"id": "sha256-<another thread's artifact>"` to a tool call: the id then sat
  // in a tool event of its thread as a JSON object's "id", which the old LIKE match took for an ArtifactRef.
  it('an id in a tool call input grants nothing; an outputArtifact of a tool.completed does', async () => {
    const ref = await t.store.putArtifact(new TextEncoder().encode('board minutes'), 'text/plain');
    const other = await t.store.putArtifact(new TextEncoder().encode('tool output'), 'text/plain');
    const { run } = await t.store.createRun({ threadId: 'thr-bob-1', prompt: 'p' });
    const base = {
      schemaVersion: SCHEMA_VERSION,
      runId: run.runId,
      threadId: 'thr-bob-1',
      turnId: 'turn_1',
      ts: new Date().toISOString(),
      identity: { provider: 'scripted' },
    };
    const events = [
      {
        ...base,
        eventId: `${run.runId}:call`,
        seq: 1,
        kind: 'tool.started',
        payload: {
          toolCallId: 'c1',
          name: 'list_files',
          input: { path: '.', id: ref.id, artifact: { id: ref.id } },
        },
      },
      {
        ...base,
        eventId: `${run.runId}:done`,
        seq: 2,
        kind: 'tool.completed',
        payload: {
          toolCallId: 'c1',
          status: 'completed',
          output: { artifact: { id: ref.id } },
          outputArtifact: { artifact: other, preview: 'tool', truncated: true },
        },
      },
    ] as CanonicalEvent[];
    await t.store.appendEvents(
      'thr-bob-1',
      events.map((event) => ({ event })),
      true,
    );
    const read = (id: string) => fetch(`${t.api}/artifacts/${id}`, { headers: bearer(BOB) });
    expect((await read(ref.id)).status).toBe(404);
    expect((await read(other.id)).status).toBe(200);
  });
});

describe('runs and child sessions of other tokens', () => {
  it("a 403 for another token's run names the run, not its thread", async () => {
    const { run } = await t.store.createRun({ threadId: 'thr-bob-1', prompt: 'p' });
    const res = await fetch(`${t.api}/runs/${run.runId}`, { headers: bearer(ALICE) });
    expect(res.status).toBe(403);
    const { error } = (await readJson(res)) as { error: { message: string } };
    expect(error.message).toContain(run.runId);
    expect(error.message).not.toContain('thr-bob-1');
  });

  // A scoped token was refused its own thread's sub-agent (`<thread>:task:<id>`): the raw child id is in no
  // token's list. A thread of its own whose id only starts with another's and a colon is still its own.
  it("reaches its own thread's child sessions, not another's, nor a thread whose id starts like its own", async () => {
    await t.store.createThread({
      threadId: 'thr-alice-1:task:owned-elsewhere',
      engine: 'scripted',
      title: null,
      workDir: null,
      metadata: {},
    });
    const audit = (id: string, token: string) =>
      fetch(`${t.api}/sessions/${id}/audit`, { headers: bearer(token) });
    // No ledger on this server: past the access check the answer is 404.
    expect((await audit('thr-alice-1:task:call_1', ALICE)).status).toBe(404);
    expect((await audit('thr-alice-1:task:call_1', BOB)).status).toBe(403);
    expect((await audit('thr-alice-1:task:owned-elsewhere', ALICE)).status).toBe(403);
    expect((await audit('thr-alice-1:task:owned-elsewhere', ADMIN)).status).toBe(404);
  });
});

describe('workspace root', () => {
  const create = (workDir: string) =>
    postJson(`${t.api}/sessions`, { engine: 'scripted', workDir }, bearer(ADMIN));

  it('refuses / and anything outside the root, on real paths (a symlink inside pointing out does not pass)', async () => {
    for (const outside of ['/', '/etc', join(root, '..'), `${root}/../x`]) {
      const res = await create(outside);
      expect(res.status, outside).toBe(400);
      expect(res.json.error.field).toBe('body.workDir');
    }
    symlinkSync('/etc', join(root, 'escape'));
    expect((await create(join(root, 'escape'))).status).toBe(400);
    expect((await create(join(root, 'escape', 'nested'))).status).toBe(400);
    // Inside the root, but a file: no session can work in it.
    writeFileSync(join(root, 'a-file.txt'), 'x');
    const file = await create(join(root, 'a-file.txt'));
    expect([file.status, file.json.error.field]).toEqual([400, 'body.workDir']);
  });

  it('accepts the root itself, a folder in it and one that does not exist yet', async () => {
    mkdirSync(join(root, 'project'));
    for (const inside of [root, join(root, 'project'), join(root, 'project', 'new')]) {
      expect((await create(inside)).status, inside).toBe(201);
    }
  });

  it('starts no run in a session whose workDir was replaced by a link out of the root after it was created', async () => {
    mkdirSync(join(root, 'swapped'));
    const session = await create(join(root, 'swapped'));
    expect(session.status).toBe(201);
    const id = session.json.session.id;
    const run = (prompt: string) => postJson(`${t.api}/threads/${id}/runs`, { prompt }, bearer(ADMIN));
    // What an approved command could do: the folder becomes a link to anywhere.
    rmSync(join(root, 'swapped'), { recursive: true });
    symlinkSync('/etc', join(root, 'swapped'));
    const refused = await run('x');
    expect([refused.status, refused.json.error?.field]).toEqual([409, 'params.id']);
    expect(refused.json.error.message).toMatch(/no longer lies inside the workspace root/);
    // Put back as a folder, the session runs again.
    rmSync(join(root, 'swapped'));
    mkdirSync(join(root, 'swapped'));
    expect((await run('y')).status).toBe(201);
  });
});
