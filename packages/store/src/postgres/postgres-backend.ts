import pg from 'pg';
import { applyMigrations } from '../sql/migrate';
import type { Migration, SqlBackend, SqlConn, SqlParam } from '../sql/sql-conn';

export interface PostgresBackendOptions {
  url: string;
  /** Schema to use (created by migrate); every pooled connection sets it as its search_path. */
  schema?: string;
  poolSize?: number;
}

/** `?` placeholders become `$1..$n` (the store's SQL never contains a literal question mark). */
const placeholderCache = new Map<string, string>();
function toPg(sql: string): string {
  let out = placeholderCache.get(sql);
  if (out === undefined) {
    let n = 0;
    out = sql.replace(/\?/g, () => `$${++n}`);
    placeholderCache.set(sql, out);
  }
  return out;
}

function wrap(client: pg.Pool | pg.PoolClient): SqlConn {
  return {
    async all<T>(sql: string, params: readonly SqlParam[] = []): Promise<T[]> {
      const result = await client.query(toPg(sql), params as SqlParam[]);
      return result.rows as T[];
    },
    async rows(sql: string, params: readonly SqlParam[] = []): Promise<unknown[][]> {
      const result = await client.query({
        text: toPg(sql),
        values: params as SqlParam[],
        rowMode: 'array',
      });
      return result.rows as unknown[][];
    },
    async run(sql: string, params: readonly SqlParam[] = []): Promise<number> {
      const result = await client.query(toPg(sql), params as SqlParam[]);
      return result.rowCount ?? 0;
    },
    async exec(sql: string): Promise<void> {
      await client.query(sql);
    },
  };
}

/** PostgreSQL binds at most 65535 parameters per statement. */
const MAX_PG_PARAMS = 65535;

const quoteIdent = (name: string): string => `"${name.replace(/"/g, '""')}"`;

/**
 * PostgreSQL through node-postgres: a pool, synchronous_commit=on on every connection, and a dedicated
 * LISTEN connection (opened on first use) so commits of other processes wake this one.
 */
export function createPostgresBackend(options: PostgresBackendOptions): SqlBackend {
  const { schema } = options;
  if (schema !== undefined && !/^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(schema)) {
    throw new Error(`invalid schema name ${JSON.stringify(schema)}: letters, digits and _ only`);
  }
  const settings = ['-c synchronous_commit=on'];
  if (schema) settings.push(`-c search_path=${schema}`);
  const config: pg.PoolConfig = {
    connectionString: options.url,
    options: settings.join(' '),
    max: options.poolSize ?? 8,
  };
  const pool = new pg.Pool(config);
  // An idle client that errors (server restart) must not crash the process; the pool replaces it.
  pool.on('error', () => {});
  const channel = `agentlane_commits${schema ? `_${schema}` : ''}`.slice(0, 63);
  const signalChannel = `agentlane_signals${schema ? `_${schema}` : ''}`.slice(0, 63);

  let listener: pg.Client | null = null;
  const hearers = new Set<(threadId: string, head: number, origin: string) => void>();
  const signalHearers = new Set<(threadId: string, payload: string, origin: string) => void>();
  let closed = false;

  const startListening = (): void => {
    if (listener || closed) return;
    const client = new pg.Client({ connectionString: options.url, options: settings.join(' ') });
    listener = client;
    client.on('notification', (message) => {
      if (message.channel === signalChannel && message.payload) {
        // payload: "<origin> <threadId length> <threadId><json>" (thread ids may hold spaces)
        const m = /^(\S+) (\d+) /.exec(message.payload);
        if (!m) return;
        const start = m[0].length;
        const threadId = message.payload.slice(start, start + Number(m[2]));
        const json = message.payload.slice(start + Number(m[2]));
        for (const hear of signalHearers) hear(threadId, json, m[1]!);
        return;
      }
      if (message.channel !== channel || !message.payload) return;
      // payload: "<origin> <head> <threadId>"
      const [origin, head, ...rest] = message.payload.split(' ');
      if (!origin || !head) return;
      for (const hear of hearers) hear(rest.join(' '), Number(head), origin);
    });
    const restart = (): void => {
      if (listener !== client) return;
      listener = null;
      client.end().catch(() => {});
      if (!closed && hearers.size + signalHearers.size > 0) setTimeout(startListening, 500).unref();
    };
    client.on('error', restart);
    client
      .connect()
      .then(() => client.query(`LISTEN ${quoteIdent(channel)}; LISTEN ${quoteIdent(signalChannel)}`))
      .catch(restart);
  };

  const transaction = async <T>(fn: (c: SqlConn) => Promise<T>): Promise<T> => {
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      const result = await fn(wrap(client));
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {});
      throw error;
    } finally {
      client.release();
    }
  };

  const code = (error: unknown): string | undefined => (error as { code?: string } | null)?.code;

  return {
    dialect: 'postgres',
    forUpdate: ' FOR UPDATE',
    skipLocked: ' FOR UPDATE SKIP LOCKED',
    read: (fn) => fn(wrap(pool)),
    transaction,
    migrate: async (migrations: readonly Migration[]) => {
      if (schema) {
        await pool.query(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(schema)}`).catch((error: unknown) => {
          // Two processes creating the schema at once: the loser sees a unique violation; the schema exists.
          if (code(error) !== '23505') throw error;
        });
      }
      await transaction(async (c) => {
        // One migrator at a time across processes; released at commit.
        await c.all("SELECT pg_advisory_xact_lock(hashtext(current_schema() || '.agentlane_migrate'))");
        await applyMigrations(c, migrations, new Date().toISOString());
      });
    },
    insertRows: async (c, table, columns, rows) => {
      // Multi-row VALUES statements of up to 1000 rows: measured ~2x faster than one unnest() of typed arrays
      // for 20k rows (node-postgres escapes every array element in JS, the server parses the array literals).
      const chunk = Math.max(1, Math.min(1000, Math.floor(MAX_PG_PARAMS / columns.length)));
      const head = `INSERT INTO ${table} (${columns.map((col) => col.name).join(', ')}) VALUES `;
      const tuple = `(${columns.map(() => '?').join(', ')})`;
      for (let at = 0; at < rows.length; at += chunk) {
        const part = rows.slice(at, at + chunk);
        const params: SqlParam[] = [];
        for (const row of part) for (let i = 0; i < columns.length; i++) params.push(row[i] ?? null);
        await c.run(`${head}${Array(part.length).fill(tuple).join(', ')}`, params);
      }
    },
    selectWhereIn: <T>(c: SqlConn, sql: string, column: string, values: readonly string[]) =>
      c.all<T>(`${sql} ${column} = ANY(?::text[])`, [values as unknown as SqlParam]),
    notifyCommitted: async (c, heads, origin) => {
      for (const [threadId, head] of heads) {
        await c.all('SELECT pg_notify(?, ?)', [channel, `${origin} ${head} ${threadId}`]);
      }
    },
    listenCommitted: (onHead) => {
      hearers.add(onHead);
      startListening();
      return () => {
        hearers.delete(onHead);
      };
    },
    notifySignal: async (threadId, payload, origin) => {
      await pool.query('SELECT pg_notify($1, $2)', [
        signalChannel,
        `${origin} ${threadId.length} ${threadId}${payload}`,
      ]);
    },
    listenSignals: (onSignal) => {
      signalHearers.add(onSignal);
      startListening();
      return () => {
        signalHearers.delete(onSignal);
      };
    },
    isRetryable: (error) => code(error) === '40P01' || code(error) === '40001',
    isUniqueViolation: (error) => code(error) === '23505',
    close: async () => {
      closed = true;
      const l = listener;
      listener = null;
      await l?.end().catch(() => {});
      await pool.end();
    },
  };
}
