import { readFileSync } from 'node:fs';

/** Clock ticks per second of /proc/<pid>/stat (USER_HZ, 100 on Linux). */
const USER_HZ = 100;

/** CPU time (user + system, every thread) a process has used so far, in ms, from /proc/<pid>/stat. */
export function processCpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name (which may hold spaces) start at the closing parenthesis.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  return ((utime + stime) * 1000) / USER_HZ;
}

/** Bytes a process has caused to be written to storage so far (/proc/<pid>/io write_bytes), or null. */
export function processWriteBytes(pid: number): number | null {
  try {
    const io = readFileSync(`/proc/${pid}/io`, 'utf8');
    const m = /^write_bytes: (\d+)$/m.exec(io);
    return m ? Number(m[1]) : null;
  } catch {
    return null;
  }
}
