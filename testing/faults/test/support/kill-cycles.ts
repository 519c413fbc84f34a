// What both kill-cycle test files share: cycle count, lease, timeout and what a clean report is.
import pg from 'pg';
import { expect } from 'vitest';
import { type KillCycleReport, percentile } from '../../src/index';

/** 20 cycles per backend at least (the floor for CI); FAULTS_KILL_CYCLES raises it (the bench runs ≥100). */
export const CYCLES = Math.max(20, Number(process.env.FAULTS_KILL_CYCLES ?? 20));
export const PG_URL = process.env.AGENTLANE_TEST_PG_URL ?? 'postgres://root@127.0.0.1:5432/test';
// A short lease so the cycles are quick; the defaults (10 s / 2 s) are the same code with other numbers.
export const LEASE = { leaseMs: 1500, renewMs: 300 };
/** Each cycle starts `agentlane serve` again: ~2 s on a quiet machine, far more on a loaded one. */
export const TIMEOUT_MS = 120_000 + CYCLES * 25_000;

export async function pgReachable(): Promise<boolean> {
  const client = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    return true;
  } catch (err) {
    if (process.env.CI === 'true') throw new Error(`PostgreSQL is needed under CI=true: ${String(err)}`);
    console.warn(`[faults] skipping the PostgreSQL kill cycles: ${PG_URL} unreachable (${String(err)})`);
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

export function expectClean(report: KillCycleReport): void {
  console.log(
    '[faults] kill cycles:',
    JSON.stringify({
      ...report,
      settleMs: undefined,
      runsSettledByOthers: report.settleMs.length,
      settleP50: percentile(report.settleMs, 50),
      settleP99: percentile(report.settleMs, 99),
    }),
  );
  expect(report.runs).toBe(report.cycles * 2);
  expect({
    lost: report.lost,
    duplicated: report.duplicated,
    reordered: report.reordered,
    subscribersDiffering: report.subscribersDiffering,
    runsStuck: report.runsStuck,
    runsNotCanonicalized: report.runsNotCanonicalized,
    serverErrorsBut503: report.serverErrorsBut503,
  }).toEqual({
    lost: 0,
    duplicated: 0,
    reordered: 0,
    subscribersDiffering: 0,
    runsStuck: 0,
    runsNotCanonicalized: 0,
    serverErrorsBut503: {},
  });
  expect(report.rows).toBeGreaterThan(report.cycles);
  expect(report.subscribers).toBe(4);
}
