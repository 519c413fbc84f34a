import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/**
 * Checkpoints the WAL on a worker thread with its own connection, so the writer's COMMIT never runs one.
 *
 * With SQLite's automatic checkpoint, the COMMIT that crosses the threshold copies the WAL into the database
 * and fsyncs it, synchronously, on the event loop: a group commit (or a single idle frame) now and then paid
 * for megabytes of someone else's pages. A PASSIVE checkpoint on another connection does the same work
 * without taking the write lock, on another thread. Durability is unchanged: every COMMIT still fsyncs the
 * WAL (synchronous=FULL); a checkpoint only moves committed pages into the database file. Once everything is
 * checkpointed, the writer restarts the WAL from its start (overwriting blocks instead of growing the file).
 */
export interface Checkpointer {
  /** A commit happened: check the WAL size soon (cheap; coalesced). */
  poke(): void;
  close(): Promise<void>;
}

// CommonJS source of the worker (eval mode): no loader needed, also under test runners that transform TS.
// A PASSIVE checkpoint with nothing new to copy returns without writing or syncing anything.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.path);
db.pragma('busy_timeout = 1000');
parentPort.on('message', (msg) => {
  if (msg === 'stop') { try { db.close(); } catch {} process.exit(0); }
  try { db.pragma('wal_checkpoint(PASSIVE)'); } catch {}
  parentPort.postMessage('done');
});
`;

/** `intervalMs`: at most one checkpoint pass per interval, after commits (none while the file is idle). */
export function startCheckpointer(path: string, intervalMs = 200): Checkpointer {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { path, driver } });
  worker.unref();
  let timer: NodeJS.Timeout | null = null;
  let running = false;
  let again = false;
  let closed = false;
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  worker.on('error', () => undefined);
  worker.on('message', () => {
    running = false;
    if (again) schedule();
  });
  const schedule = (): void => {
    again = false;
    if (closed || timer) return;
    timer = setTimeout(() => {
      timer = null;
      if (closed) return;
      running = true;
      worker.postMessage('check');
    }, intervalMs);
    timer.unref();
  };
  return {
    poke() {
      if (running) again = true;
      else schedule();
    },
    async close() {
      if (closed) return;
      closed = true;
      if (timer) clearTimeout(timer);
      // Held open until the worker has closed its connection (unref'd, nothing else would keep the loop alive).
      worker.ref();
      worker.postMessage('stop');
      await exited;
    },
  };
}
