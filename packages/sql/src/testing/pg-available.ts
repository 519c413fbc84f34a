import pg from 'pg';

export const PG_URL = process.env.AGENTLANE_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/**
 * For tests of every package: whether the PostgreSQL test server answers. Unreachable is a printed skip locally and a failure in CI
 * (CI=true), so a CI run can never pass by silently skipping the PostgreSQL tests.
 */
export async function pgAvailable(label = 'sql'): Promise<boolean> {
  const client = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch (error) {
    const reason = `PostgreSQL at ${PG_URL.replace(/\/\/[^@]*@/, '//***@')} is unreachable: ${(error as Error).message}`;
    if (process.env.CI === 'true') throw new Error(`${reason} (CI=true: the PostgreSQL suite must run)`);
    console.warn(`[${label}] skipping PostgreSQL tests: ${reason}`);
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}
