import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type CheckpointSaver,
  createSqliteSaver,
  fingerprintCheckpoint,
  newCheckpointId,
} from '@agentlane/checkpoints';
import { putTurns } from '@agentlane/checkpoints/testing';
import type { Checkpoint } from '@agentlane/contract';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './support/harness';

// Issue 8: the checkpoint routes, served from a saver in its own SQLite file.
let t: TestServer;
let saver: CheckpointSaver;
let sessionId: string;
const puts: Checkpoint[] = [];
const dir = mkdtempSync(join(tmpdir(), 'agentlane-cp-routes-'));
const db = new Database(join(dir, 'cp.db'));

beforeAll(async () => {
  saver = createSqliteSaver({ database: db, fullSnapshotEvery: 4 });
  t = await startTestServer({ checkpoints: saver });
  sessionId = await t.createSession();
  puts.push(
    ...(await putTurns(saver, sessionId, 7, (turn) => ({ id: `m${turn}`, role: 'user', parts: [] }))),
  );
});

afterAll(async () => {
  await t.close();
  await saver.close();
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('checkpoint routes', () => {
  it('lists newest first with a cursor', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const q: string = cursor ? `&cursor=${cursor}` : '';
      const res = await fetch(`${t.api}/sessions/${sessionId}/checkpoints?limit=3${q}`);
      expect(res.status).toBe(200);
      const body = (await res.json()) as {
        checkpoints: { checkpointId: string }[];
        nextCursor: string | null;
      };
      seen.push(...body.checkpoints.map((c) => c.checkpointId));
      cursor = body.nextCursor;
    } while (cursor);
    expect(seen).toEqual(puts.map((c) => c.id).reverse());
  });

  it('serves the hydrated envelope as contract JSON', async () => {
    for (const cp of puts) {
      const res = await fetch(`${t.api}/sessions/${sessionId}/checkpoints/${cp.id}`);
      expect(res.status).toBe(200);
      const body = (await res.json()) as Checkpoint;
      expect(body).toEqual(cp);
      expect(fingerprintCheckpoint(body)).toBe(fingerprintCheckpoint(cp));
    }
  });

  it('answers 404 for an unknown checkpoint and 400 naming a bad query field', async () => {
    const unknown = newCheckpointId();
    const missing = await fetch(`${t.api}/sessions/${sessionId}/checkpoints/${unknown}`);
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { error: unknown }).error).toEqual({
      code: 'not_found',
      message: `checkpoint "${unknown}" not found in session "${sessionId}"`,
      field: 'params.checkpointId',
    });
    const bad = await fetch(`${t.api}/sessions/${sessionId}/checkpoints?limit=0`);
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { field?: string } }).error.field).toContain('limit');
    const cursor = await fetch(`${t.api}/sessions/${sessionId}/checkpoints?cursor=garbage`);
    expect(cursor.status).toBe(400);
  });

  it('reports a corrupt row with its checkpoint id, and keeps serving the others', async () => {
    const victim = puts[5] as Checkpoint;
    db.prepare('UPDATE harness_checkpoints SET channels = ? WHERE checkpoint_id = ?').run(
      '{broken',
      victim.id,
    );
    const cold = createSqliteSaver({ database: db, cacheSize: 0 });
    // The same store: the session must exist there too.
    const server = await startTestServer({ checkpoints: cold }, { dbPath: t.dbPath });
    try {
      const res = await fetch(`${server.api}/sessions/${sessionId}/checkpoints/${victim.id}`);
      expect(res.status).toBe(500);
      const body = (await res.json()) as { error: { code: string; checkpointId: string } };
      // The status table's code for a 500; the checkpoint id stays, it is what an operator needs.
      expect(body.error.code).toBe('internal');
      expect(body.error.checkpointId).toBe(victim.id);
      const fine = await fetch(`${server.api}/sessions/${sessionId}/checkpoints/${puts[3]?.id}`);
      expect(fine.status).toBe(200);
    } finally {
      await server.close();
      await cold.close();
    }
  });

  it('answers 404 naming params.id for a session that does not exist, deleted included', async () => {
    const gone = await t.createSession();
    const [cp] = await putTurns(saver, gone, 1, (turn) => turn);
    const child = `${gone}:task:c1`;
    await putTurns(saver, child, 1, (turn) => turn);
    const read = async (path: string) => {
      const res = await fetch(`${t.api}/sessions/${path}`);
      return { status: res.status, body: (await res.json()) as { error?: unknown } };
    };
    // A sub-agent's checkpoints are keyed by its own session id, under its thread's.
    expect((await read(`${encodeURIComponent(child)}/checkpoints`)).status).toBe(200);
    expect((await read(`${gone}/checkpoints/${cp?.id}`)).status).toBe(200);
    const notFound = (id: string) => ({
      status: 404,
      body: { error: { code: 'not_found', message: `session "${id}" not found`, field: 'params.id' } },
    });
    expect(await read('nope/checkpoints')).toEqual(notFound('nope'));
    const never = `${gone}:task:never`;
    expect(await read(`${encodeURIComponent(never)}/checkpoints`)).toEqual(notFound(never));
    expect(await read(`nope/checkpoints/${cp?.id}`)).toEqual(notFound('nope'));
    expect((await fetch(`${t.api}/sessions/${gone}`, { method: 'DELETE' })).status).toBe(204);
    expect(await read(`${gone}/checkpoints`)).toEqual(notFound(gone));
    expect(await read(`${gone}/checkpoints/${cp?.id}`)).toEqual(notFound(gone));
    expect(await read(`${encodeURIComponent(child)}/checkpoints`)).toEqual(notFound(child));
    // A session's checkpoints go with it; a saver's own session (no thread) is served.
    expect(await saver.get(gone, cp?.id ?? '')).toBeFalsy();
    await putTurns(saver, 'saver-own', 1, (turn) => turn);
    expect((await read('saver-own/checkpoints')).status).toBe(200);
  });

  it('answers in the server error contract: codes of the status table, query.* fields', async () => {
    for (const query of ['cursor=garbage', 'limit=0', 'stageId=nope', 'namespace=a%00b']) {
      const res = await fetch(`${t.api}/sessions/${sessionId}/checkpoints?${query}`);
      expect(res.status, query).toBe(400);
      const body = (await res.json()) as { error: { code: string; field?: string } };
      expect(body.error.code, query).toBe('invalid_request');
      expect(body.error.field ?? 'query.', query).toMatch(/^query\./);
    }
  });

  it('is in the OpenAPI document', async () => {
    const doc = (await (await fetch(`${t.api}/openapi.json`)).json()) as {
      paths: Record<string, { get?: unknown }>;
    };
    expect(doc.paths['/api/harness/sessions/{id}/checkpoints']?.get).toBeDefined();
    expect(doc.paths['/api/harness/sessions/{id}/checkpoints/{checkpointId}']?.get).toBeDefined();
  });
});
