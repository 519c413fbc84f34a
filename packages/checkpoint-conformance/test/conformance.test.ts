import { afterAll, beforeAll, describe, it } from 'vitest';
import {
  describeConformance,
  memoryInitializer,
  pgInitializer,
  pgReachable,
  sqliteInitializer,
} from '../src/index';

const api = { describe, it, beforeAll, afterAll };
const pgUrl = process.env.AGENTLANE_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const pgDown = await pgReachable(pgUrl);
if (pgDown !== undefined && process.env.CI === 'true') {
  throw new Error(`PostgreSQL unreachable at ${pgUrl} and CI=true: ${pgDown}`);
}

describeConformance(memoryInitializer(), api);
// A small K so the suite crosses several full-snapshot boundaries and prunes across them.
describeConformance(
  { ...memoryInitializer({ fullSnapshotEvery: 3, cacheSize: 0 }), name: 'memory (K=3, no cache)' },
  api,
);
describeConformance(sqliteInitializer(), api);
describeConformance({ ...sqliteInitializer({ fullSnapshotEvery: 1 }), name: 'sqlite (K=1)' }, api);
if (pgDown === undefined) {
  describeConformance(pgInitializer(pgUrl, { fullSnapshotEvery: 7 }), api);
} else {
  describe('checkpoint saver conformance: postgres', () => {
    it.skip(`skipped: PostgreSQL unreachable at ${pgUrl} (${pgDown})`, () => {});
  });
  console.log(`[checkpoint-conformance] postgres skipped: unreachable at ${pgUrl}: ${pgDown}`);
}
