import { closeSync, fdatasyncSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { IDLE_GAP_MS, percentile, sortedCopy } from './fixtures';

export interface FsyncFloor {
  /** 4 KB written over the same block, then fdatasync: what a commit cannot beat on this disk. */
  p50Ms: number;
  p99Ms: number;
  /** 4 KB appended (the file grows), then fdatasync: also pays the file-size metadata. */
  appendP50Ms: number;
  appendP99Ms: number;
  /**
   * What one idle frame's commit asks of the disk: COMMIT_PAGES pages (4 KB; SQLite adds a 24-byte frame
   * header to each) written to the WAL, then fdatasync (agentlane builds SQLite with HAVE_FDATASYNC:
   * scripts/install/better-sqlite3.mjs; better-sqlite3's stock build syncs with fsync, which also journals
   * the file's mtime). Written over a file already WAL_BYTES long, in turn, as a WAL that the writer
   * restarts after each checkpoint is (packages/store/src/sqlite/checkpointer.ts).
   */
  commitP50Ms: number;
  commitP99Ms: number;
}

/**
 * Pages a single-frame commit writes to the WAL: the event row, its three index entries (primary key, unique
 * eventId, by run), the frame row and the two counters (thread head, source lane); counted with strace.
 */
const COMMIT_PAGES = 7;
const WAL_BYTES = 4 << 20;

/**
 * The raw durability floor of the disk under `dir`, measured in the same run as the idle-latency figure:
 * a SQLite commit at synchronous=FULL is at least one fdatasync of the WAL, so the lane's idle latency is
 * read against this, not against zero. `count` samples each, IDLE_GAP_MS apart, the idle lane's cadence.
 */
export async function measureFsyncFloor(dir: string, count = 200): Promise<FsyncFloor> {
  const root = mkdtempSync(join(dir, 'agentlane-fsync-'));
  const block = Buffer.alloc(4096, 0x61);
  const sample = async (
    name: string,
    offsetOf: (i: number) => number,
    pages = 1,
    preallocate = 0,
  ): Promise<Float64Array> => {
    const fd = openSync(join(root, name), 'w+');
    const lat = new Float64Array(count);
    try {
      // Warm-up writes so the first sample does not pay file creation.
      for (let at = 0; at < Math.max(preallocate, block.length); at += block.length) {
        writeSync(fd, block, 0, block.length, at);
      }
      fdatasyncSync(fd);
      for (let i = 0; i < count; i++) {
        const t0 = performance.now();
        for (let p = 0; p < pages; p++) writeSync(fd, block, 0, block.length, offsetOf(i) + p * block.length);
        fdatasyncSync(fd);
        lat[i] = performance.now() - t0;
        await new Promise((r) => setTimeout(r, IDLE_GAP_MS));
      }
    } finally {
      closeSync(fd);
    }
    return sortedCopy(lat);
  };
  try {
    const overwrite = await sample('overwrite', () => 0);
    const append = await sample('append', (i) => (i + 1) * 4096);
    const commitBytes = COMMIT_PAGES * 4096;
    const commit = await sample(
      'commit',
      (i) => (i * commitBytes) % (WAL_BYTES - commitBytes),
      COMMIT_PAGES,
      WAL_BYTES,
    );
    return {
      p50Ms: percentile(overwrite, 50),
      p99Ms: percentile(overwrite, 99),
      appendP50Ms: percentile(append, 50),
      appendP99Ms: percentile(append, 99),
      commitP50Ms: percentile(commit, 50),
      commitP99Ms: percentile(commit, 99),
    };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
