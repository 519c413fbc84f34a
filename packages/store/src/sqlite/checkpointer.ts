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
  /** A commit of about `rows` rows happened (cheap; coalesced into the next pass). */
  poke(rows: number): void;
  close(): Promise<void>;
}

/**
 * After a pass, more passes while what the writer committed during the previous one is small (at most
 * TAIL_FRAMES WAL frames), up to TAIL_PASSES. The writer restarts the WAL from its start only if, when its
 * transaction begins, every frame is already in the database; a writer committing more often than one pass
 * lasts (a lane writing a frame every few ms) always left a few frames behind, so the WAL was never restarted:
 * it grew by every commit for as long as the writer kept busy (17 MB in 3 s of idle single frames), and every
 * commit appended to the file, which also syncs its size.
 */
const TAIL_PASSES = 4;
const TAIL_FRAMES = 256;

// CommonJS source of the worker (eval mode): no loader needed, also under test runners that transform TS.
// A PASSIVE checkpoint with nothing new to copy returns without writing or syncing anything. It reports the
// WAL's frames when it began (log) and how many are in the database (checkpointed); fewer means a reader
// still reads an older snapshot, which another pass right away would not change.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.path);
db.pragma('busy_timeout = 1000');
const pass = () => {
  const [row] = db.pragma('wal_checkpoint(PASSIVE)');
  return row && row.busy === 0 && row.checkpointed === row.log ? row.log : -1;
};
parentPort.on('message', (msg) => {
  if (msg === 'stop') { try { db.close(); } catch {} process.exit(0); }
  try {
    let log = pass();
    for (let i = 0; i < ${TAIL_PASSES} && log > 0; i++) {
      const next = pass();
      // Nothing new (or the WAL restarted meanwhile, or the pass left frames behind: -1), or a busy writer.
      if (next <= log || next - log > ${TAIL_FRAMES}) break;
      log = next;
    }
  } catch {}
  parentPort.postMessage('done');
});
`;

/**
 * When a pass runs: as soon as `everyRows` rows were committed since the last one (a busy writer: the WAL
 * stays a few MB), else `lateMs` after the first commit that follows it (a quiet writer). Each pass syncs
 * the WAL and the database file on another thread, and an fsync there can hold up the writer's own commit
 * fsync on the same disk. A pass every 200 ms could meet 1 in 40 commits of a lane writing a frame every
 * 5 ms, enough to move its p99; one pass a second meets at most 1 in 200.
 */
export function startCheckpointer(path: string, everyRows = 4096, lateMs = 1000): Checkpointer {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { path, driver } });
  worker.unref();
  let timer: NodeJS.Timeout | null = null;
  let running = false;
  let rows = 0;
  let closed = false;
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  worker.on('error', () => undefined);
  const start = (): void => {
    if (timer) clearTimeout(timer);
    timer = null;
    rows = 0;
    running = true;
    worker.postMessage('check');
  };
  const plan = (): void => {
    if (closed || running) return;
    if (rows >= everyRows) {
      start();
      return;
    }
    if (timer) return;
    timer = setTimeout(() => {
      timer = null;
      if (!closed && !running) start();
    }, lateMs);
    timer.unref();
  };
  // Commits made while a pass ran are planned for once it is done.
  worker.on('message', () => {
    running = false;
    if (rows > 0) plan();
  });
  return {
    poke(committed) {
      rows += committed;
      plan();
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
