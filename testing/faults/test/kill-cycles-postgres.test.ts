import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { percentile, runKillCycles } from '../src/index';
import { CYCLES, expectClean, LEASE, PG_URL, pgReachable, TIMEOUT_MS } from './support/kill-cycles';

describe('kill cycles on PostgreSQL: SIGKILL one of three servers while runs stream', () => {
  it(
    `PostgreSQL, one of three servers (and the run's owner): ${CYCLES} cycles, the live ones settle the dead ones' runs`,
    async (ctx) => {
      if (!(await pgReachable())) return ctx.skip();
      const schema = `faults_kill_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
      try {
        const report = await runKillCycles({
          db: `${PG_URL}?schema=${schema}`,
          servers: 3,
          cycles: CYCLES,
          ...LEASE,
        });
        expectClean(report);
        // Runs the kills cut off were settled by another process within the lease and one renewal or so.
        expect(report.settleMs.length).toBeGreaterThan(0);
        expect(percentile(report.settleMs, 50)).toBeLessThan(LEASE.leaseMs + 4 * LEASE.renewMs + 2000);
      } finally {
        const client = new pg.Client({ connectionString: PG_URL });
        await client.connect();
        await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
        await client.end();
      }
    },
    TIMEOUT_MS + CYCLES * 25_000,
  );
});
