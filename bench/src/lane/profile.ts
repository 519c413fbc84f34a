/**
 * Where the lane's ingest time goes, outside the suite: one measurement repeated on fresh databases, with the
 * process CPU, GC time and bytes written next to each throughput figure (wall figures on a shared machine are
 * noisy; CPU and bytes much less so). Add `node --cpu-prof` for a profile.
 *
 *   node --conditions=agentlane-source --import tsx bench/src/lane/profile.ts [ingest|store|plain] [runs=5] [subscribers=1] [--tmpfs]
 *
 * `--tmpfs` puts the database on /dev/shm: fsync and WAL writes cost nothing, what is left is the code.
 */
import { readFileSync } from 'node:fs';
import { PerformanceObserver } from 'node:perf_hooks';
import { sqliteBackend } from './backends';
import { measureIngest, measurePlainInsert, measureStoreOnly } from './measure';

const args = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const what = args[0] ?? 'ingest';
const runs = Number(args[1] ?? 5);
const subscribers = Number(args[2] ?? 1);
const dir = process.argv.includes('--tmpfs') ? '/dev/shm' : undefined;
const FRAMES = 20_000;

if (!['ingest', 'store', 'plain'].includes(what) || !(runs > 0) || !(subscribers > 0)) {
  console.error('usage: profile.ts [ingest|store|plain] [runs>0] [subscribers>0] [--tmpfs]');
  process.exit(2);
}

let gcMs = 0;
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) gcMs += entry.duration;
}).observe({ entryTypes: ['gc'] });

/** Bytes this process passed to write(2) and friends (Linux); NaN elsewhere. */
function bytesWritten(): number {
  try {
    return Number(/wchar: (\d+)/.exec(readFileSync('/proc/self/io', 'utf8'))?.[1] ?? Number.NaN);
  } catch {
    return Number.NaN;
  }
}

for (let i = 0; i < runs; i++) {
  const b = await sqliteBackend(dir);
  try {
    gcMs = 0;
    const written = bytesWritten();
    const cpu = process.cpuUsage();
    const value =
      what === 'plain'
        ? await measurePlainInsert(b, FRAMES, `p${i}`)
        : what === 'store'
          ? await measureStoreOnly(b, FRAMES, `s${i}`)
          : (await measureIngest(b, FRAMES, subscribers, `i${i}`, 10)).eventsPerSec;
    const used = process.cpuUsage(cpu);
    console.log(
      `${what} ${value.toFixed(0).padStart(7)} events/s  cpu ${((used.user + used.system) / 1000).toFixed(0)} ms` +
        `  gc ${gcMs.toFixed(0)} ms  written ${((bytesWritten() - written) / 1e6).toFixed(1)} MB`,
    );
  } finally {
    await b.close();
  }
}
