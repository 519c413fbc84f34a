// A second process writing a SQLite store: node --conditions=agentlane-source --import tsx append-child.ts <path> <threadId> <runId> <count>
import { createSqliteStore } from '../../src/index';

const [path, threadId, runId, count] = process.argv.slice(2);
if (!path || !threadId || !runId || !count)
  throw new Error('usage: append-child <path> <threadId> <runId> <count>');
const store = createSqliteStore({ path });
for (let i = 1; i <= Number(count); i++) {
  await store.appendEvents(
    threadId,
    [
      {
        event: {
          schemaVersion: 1,
          eventId: `child:${runId}:${i}`,
          seq: i,
          runId,
          threadId,
          turnId: 't',
          ts: new Date().toISOString(),
          identity: { provider: 'child' },
          kind: 'message.delta',
          payload: { messageId: 'm', partId: 'p', delta: String(i) },
        },
      },
    ],
    true,
  );
}
await store.close();
