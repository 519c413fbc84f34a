import { randomBytes } from 'node:crypto';
import { connect, createServer, type Socket } from 'node:net';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import {
  APPLICATION_NAME,
  acquirePgPool,
  createPgListener,
  isDatabaseUnavailable,
  pgTransaction,
} from '../src/index';
import { PG_URL, pgAvailable } from '../src/testing/pg-available';

const available = await pgAvailable();

/**
 * Terminates this process's own connections only (found by application_name, which carries the PID), the way
 * an operator's pg_terminate_backend or a restart would: the shared test server's other users are untouched.
 */
async function terminateOwn(admin: pg.Client, suffix = ''): Promise<number> {
  const r = await admin.query(
    `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
      WHERE application_name = $1 AND pid <> pg_backend_pid()`,
    [`${APPLICATION_NAME}${suffix}`],
  );
  return r.rowCount ?? 0;
}

describe.skipIf(!available)('PostgreSQL connections killed under the SQL layer', () => {
  const schema = `sql_faults_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: PG_URL, application_name: 'agentlane-test-admin' });
  const uncaught: unknown[] = [];
  const onUncaught = (error: unknown): void => {
    uncaught.push(error);
  };
  process.on('uncaughtException', onUncaught);
  afterAll(async () => {
    process.off('uncaughtException', onUncaught);
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).catch(() => {});
    await admin.end().catch(() => {});
  });

  it('an idle pooled connection and one inside a transaction are terminated: no error escapes, the work commits', async () => {
    await admin.connect();
    await admin.query(`CREATE SCHEMA "${schema}"`);
    const lease = acquirePgPool({ url: PG_URL, schema, max: 2 });
    try {
      await lease.pool.query('CREATE TABLE t (id INTEGER PRIMARY KEY)');
      // Idle: the pool holds a connection; it is terminated under it.
      expect(await terminateOwn(admin)).toBeGreaterThan(0);
      await new Promise((r) => setTimeout(r, 100));
      expect((await lease.pool.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
      // Busy: terminated between two statements of an open transaction; the transaction runs again.
      let attempts = 0;
      await pgTransaction(lease.pool, async (client) => {
        attempts++;
        await client.query('INSERT INTO t (id) VALUES (1)');
        if (attempts === 1) {
          await terminateOwn(admin);
          await new Promise((r) => setTimeout(r, 100));
        }
        await client.query('INSERT INTO t (id) VALUES (2)');
      });
      expect(attempts).toBe(2);
      expect((await lease.pool.query('SELECT id FROM t ORDER BY id')).rows).toEqual([{ id: 1 }, { id: 2 }]);
      // Terminated during a long statement: the query fails over to a fresh connection on retry.
      const slow = pgTransaction(lease.pool, (client) => client.query('SELECT pg_sleep(0.5)'));
      await new Promise((r) => setTimeout(r, 150));
      await terminateOwn(admin);
      await slow;
    } finally {
      await lease.release();
    }
    expect(uncaught).toEqual([]);
  });

  // A probe stalled the database link (TCP open, no bytes): every request waited exactly as long as the stall,
  // the kernel's retransmission timeout (minutes) being the only bound.
  it('a connection that stalls is dropped after the statement bound and the work runs on a fresh one', async () => {
    const proxy = await stallingProxy(Number(new URL(PG_URL).port || 5432));
    const url = new URL(PG_URL);
    url.host = `127.0.0.1:${proxy.port}`;
    const lease = acquirePgPool({ url: url.toString(), schema, max: 2, queryTimeoutMs: 500, own: true });
    try {
      await lease.pool.query('CREATE TABLE IF NOT EXISTS stalls (id INTEGER PRIMARY KEY)');
      // Connections open now go silent for good; connections made later pass.
      proxy.stallOpen();
      const before = proxy.made();
      // BEGIN on the stalled idle connection times out; the transaction runs again on a new connection.
      await pgTransaction(lease.pool, (client) => client.query('INSERT INTO stalls (id) VALUES (1)'));
      expect(proxy.made()).toBeGreaterThan(before);
      expect((await lease.pool.query('SELECT id FROM stalls')).rows).toEqual([{ id: 1 }]);
    } finally {
      await lease.release();
      proxy.close();
    }
    expect(uncaught).toEqual([]);
  }, 30_000);

  it('a transaction left idle (its process stopped) is ended by the server, its row lock freed; the holder sees an outage', async () => {
    const lease = acquirePgPool({ url: PG_URL, schema, max: 3 });
    try {
      await lease.pool.query('CREATE TABLE IF NOT EXISTS heads (id INTEGER PRIMARY KEY, n INTEGER)');
      await lease.pool.query('INSERT INTO heads VALUES (1, 0) ON CONFLICT DO NOTHING');
      const holder = await lease.pool.connect();
      await holder.query('BEGIN');
      await holder.query('UPDATE heads SET n = n + 1 WHERE id = 1');
      // The holder now stops, as a SIGSTOPped process would; another writer waits on its lock, and gets it
      // once the server has ended the idle session (IDLE_IN_TRANSACTION_MS), not when the holder wakes.
      const other = await lease.pool.query('UPDATE heads SET n = n + 10 WHERE id = 1 RETURNING n');
      expect(other.rows).toEqual([{ n: 10 }]);
      const woke = await holder.query('COMMIT').catch((error: unknown) => error);
      expect(isDatabaseUnavailable(woke)).toBe(true);
      holder.release(true);
    } finally {
      await lease.release();
    }
  }, 30_000);

  it('the LISTEN connection comes back after it is terminated and hears notifications again', async () => {
    const heard: string[] = [];
    let reconnects = 0;
    const listener = createPgListener({
      url: PG_URL,
      channels: [schema],
      onNotification: (_channel, payload) => heard.push(payload),
      onReconnect: () => reconnects++,
    });
    const until = async (ok: () => boolean): Promise<void> => {
      for (let i = 0; i < 100 && !ok(); i++) await new Promise((r) => setTimeout(r, 50));
    };
    try {
      // Resolves once LISTEN is established: a notification sent from now on is heard.
      await listener.ready;
      await admin.query('SELECT pg_notify($1, $2)', [schema, 'before']);
      await until(() => heard.includes('before'));
      expect(await terminateOwn(admin, '-listen')).toBe(1);
      await until(() => reconnects > 0);
      await admin.query('SELECT pg_notify($1, $2)', [schema, 'after']);
      await until(() => heard.includes('after'));
      expect(heard).toEqual(['before', 'after']);
      expect(reconnects).toBe(1);
    } finally {
      await listener.close();
    }
    expect(uncaught).toEqual([]);
  });

  it('a database closed to connections (ALLOW_CONNECTIONS false) is unavailable, not a wrong request', async () => {
    const db = `sql_closed_${randomBytes(4).toString('hex')}`;
    await admin.query(`CREATE DATABASE "${db}"`);
    try {
      await admin.query(`ALTER DATABASE "${db}" ALLOW_CONNECTIONS false`);
      const url = new URL(PG_URL);
      url.pathname = `/${db}`;
      const client = new pg.Client({ connectionString: url.toString() });
      const refused = await client.connect().then(
        () => undefined,
        (error: unknown) => error,
      );
      await client.end().catch(() => {});
      expect((refused as { code?: string }).code).toBe('55000');
      expect(isDatabaseUnavailable(refused)).toBe(true);
    } finally {
      await admin.query(`DROP DATABASE IF EXISTS "${db}"`);
    }
  });
});

/** A TCP proxy to PostgreSQL whose open connections can be made to stall: kept open, nothing forwarded. */
async function stallingProxy(target: number) {
  const pairs: [Socket, Socket][] = [];
  const all: [Socket, Socket][] = [];
  let made = 0;
  const server = createServer((client) => {
    const upstream = connect(target, '127.0.0.1');
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
    client.pipe(upstream).pipe(client);
    pairs.push([client, upstream]);
    all.push([client, upstream]);
    made++;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return {
    port: typeof address === 'object' && address ? address.port : 0,
    made: () => made,
    stallOpen() {
      for (const [client, upstream] of pairs.splice(0)) {
        client.unpipe(upstream);
        upstream.unpipe(client);
        client.pause();
        upstream.pause();
      }
    },
    close() {
      for (const [client, upstream] of all) {
        client.destroy();
        upstream.destroy();
      }
      server.close();
    },
  };
}
