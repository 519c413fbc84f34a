import pg from 'pg';

/**
 * The process id of the server that holds a run's lease, read from a PostgreSQL database (`db` as the kill
 * cycles take it: a postgres:// URL with `?schema=`); undefined for a SQLite path, a run nobody holds, or an
 * owner id not shaped like `agentlane serve`'s (`<host>-<pid>-<8 hex>`). The API does not show a run's owner:
 * only a test that must kill the very process streaming a run asks the database.
 */
export async function runOwnerPid(db: string, runId: string): Promise<number | undefined> {
  if (!/^postgres(ql)?:\/\//.test(db)) return undefined;
  const url = new URL(db);
  const schema = url.searchParams.get('schema');
  url.searchParams.delete('schema');
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  try {
    const table = schema ? `${pg.escapeIdentifier(schema)}.runs` : 'runs';
    const res = await client.query<{ owner_id: string | null }>(
      `SELECT owner_id FROM ${table} WHERE run_id = $1 AND status = 'running'`,
      [runId],
    );
    const pid = /-(\d+)-[0-9a-f]{8}$/.exec(res.rows[0]?.owner_id ?? '')?.[1];
    return pid === undefined ? undefined : Number(pid);
  } finally {
    await client.end();
  }
}
