import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveServeConfig, serve } from '../src';

const PG_URL = process.env.AGENTLANE_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

async function reachable(): Promise<boolean> {
  const client = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.end();
    return true;
  } catch {
    return false;
  }
}

const available = await reachable();
if (!available) {
  if (process.env.CI === 'true')
    throw new Error(`PostgreSQL is unreachable at ${PG_URL} (required when CI=true)`);
  console.warn(`skipping agentlane serve on PostgreSQL: no server reachable at ${PG_URL}`);
}

// A schema of its own (several engineers share the database), chosen through the URL's search_path.
const schema = `agentlane_cli_${randomBytes(6).toString('hex')}`;
const admin = async (sql: string) => {
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
};

describe.skipIf(!available)('agentlane serve --db postgres://…', () => {
  beforeAll(async () => {
    await admin(`CREATE SCHEMA "${schema}"`);
  });
  afterAll(async () => {
    await admin(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  });

  it('runs on PostgreSQL', async () => {
    const sep = PG_URL.includes('?') ? '&' : '?';
    const db = `${PG_URL}${sep}options=${encodeURIComponent(`-c search_path=${schema}`)}`;
    const config = resolveServeConfig({ port: '0', db }, {});
    const { url, stop } = await serve({ ...config, recordedSessions: false }, () => {});
    try {
      const health = await (await fetch(`${url}/api/harness/health`)).json();
      expect(health).toMatchObject({ status: 'ok', store: 'postgres' });
      const list = await fetch(`${url}/api/harness/sessions`);
      expect(list.status).toBe(200);
    } finally {
      await stop();
    }
  });
});
