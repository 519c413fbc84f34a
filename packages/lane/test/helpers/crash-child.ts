/**
 * The process the crash test SIGKILLs: runs one slow run on a SQLite file and reports progress on stdout.
 * argv: <sqlite path> <thread id>
 */
import { createSqliteStore } from '@agentlane/store';
import { createLane } from '../../src';
import { createTestDriver } from './test-driver';

const [path, threadId] = process.argv.slice(2) as [string, string];
const store = createSqliteStore({ path });
await store.migrate();
await store.createThread({ threadId, engine: 'test', title: null, workDir: null, metadata: {} });
// A slow translator (2 ms per frame) and a slow engine: the kill lands mid-run, mid-translation.
const lane = createLane({
  store,
  drivers: [createTestDriver({ spinMs: 2 })],
  ownerId: `child-${process.pid}`,
  pollIntervalMs: 20,
  // A short lease: the restarted process reclaims the run about a second after the kill.
  runLeaseMs: 1000,
  runLeaseRenewMs: 250,
});
await lane.start();
const { run } = await lane.createRun({ threadId, prompt: 'snapshot s1 first\ndeltas 100000 2' });
process.stdout.write(`run ${run.runId}\n`);
setInterval(async () => {
  const rows = await store.headDeliverySeq(threadId);
  process.stdout.write(`rows ${rows}\n`);
}, 50);
