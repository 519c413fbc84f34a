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
    const missing = await fetch(`${t.api}/sessions/${sessionId}/checkpoints/${newCheckpointId()}`);
    expect(missing.status).toBe(404);
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
    const server = await startTestServer({ checkpoints: cold });
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
