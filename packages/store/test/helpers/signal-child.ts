// A second process signalling on a SQLite store: node --import tsx signal-child.ts <path> <threadId> <count>
import { createSqliteStore } from '../../src/index';

const [path, threadId, count] = process.argv.slice(2);
if (!path || !threadId || !count) throw new Error('usage: signal-child <path> <threadId> <count>');
const store = createSqliteStore({ path });
for (let i = 1; i <= Number(count); i++) await store.broadcastSignal(threadId, { type: 'run.status', n: i });
await store.close();
