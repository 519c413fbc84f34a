import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { openStore, postgresOptions, sqlitePath } from '../src/index';
import { PG_URL, pgAvailable } from './pg-available';

const available = await pgAvailable();

describe('openStore', () => {
  it('reads SQLite paths from every accepted spelling', () => {
    expect(sqlitePath('data/agentlane.db')).toBe('data/agentlane.db');
    expect(sqlitePath('sqlite:data/a.db')).toBe('data/a.db');
    expect(sqlitePath('sqlite:///var/lib/a.db')).toBe('/var/lib/a.db');
    expect(sqlitePath('file:///var/lib/a%20b.db')).toBe('/var/lib/a b.db');
    expect(postgresOptions('postgres://u@h:5432/db?schema=tenant_1&sslmode=disable')).toEqual({
      url: 'postgres://u@h:5432/db?sslmode=disable',
      schema: 'tenant_1',
    });
    expect(postgresOptions('postgres://u@h/db')).toEqual({ url: 'postgres://u@h/db' });
  });

  it('opens and migrates a SQLite file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agentlane-open-'));
    try {
      const store = await openStore(`sqlite:${join(dir, 'a.db')}`);
      expect(store.backend).toBe('sqlite');
      await store.createThread({ threadId: 't', engine: 'e', title: null, workDir: null, metadata: {} });
      await store.close();
      const again = await openStore(join(dir, 'a.db'));
      expect(await again.getThread('t')).not.toBeNull();
      await again.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('refuses an empty url', async () => {
    await expect(openStore('')).rejects.toThrow(/empty/);
  });

  it.skipIf(!available)('opens and migrates PostgreSQL in the schema named by ?schema=', async () => {
    const schema = `agentlane_open_${randomBytes(4).toString('hex')}`;
    const store = await openStore(`${PG_URL}${PG_URL.includes('?') ? '&' : '?'}schema=${schema}`);
    try {
      expect(store.backend).toBe('postgres');
      await store.createThread({ threadId: 't', engine: 'e', title: null, workDir: null, metadata: {} });
      expect(await store.getThread('t')).not.toBeNull();
    } finally {
      await store.close();
      const client = new pg.Client({ connectionString: PG_URL });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await client.end();
    }
  });
});
