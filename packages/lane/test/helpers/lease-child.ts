/**
 * A process the lease test SIGKILLs: executes one run (argv prompt) on a SQLite file with a short lease and
 * prints `run <id>` once it is created. argv: <sqlite path> <thread id> <prompt>
 */
import { createSqliteStore } from '@agentlane/store';
import { createLane } from '../../src';
import { createTestDriver } from './test-driver';

const [path, threadId, prompt] = process.argv.slice(2) as [string, string, string];
const store = createSqliteStore({ path });
await store.migrate();
const lane = createLane({
  store,
  drivers: [createTestDriver()],
  ownerId: `lease-child-${process.pid}`,
  pollIntervalMs: 20,
  runLeaseMs: 1000,
  runLeaseRenewMs: 250,
});
await lane.start();
const { run } = await lane.createRun({ threadId, prompt });
process.stdout.write(`run ${run.runId}\n`);
