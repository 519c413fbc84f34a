import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createSqliteStore } from '../src/index';

// A probe held the write lock from the sqlite3 shell: better-sqlite3 waited for it synchronously (busy_timeout
// 10 s), so the whole process (every request, every stream) froze for as long as the lock was held.
describe('sqlite: another process holding the write lock', () => {
  it('a write waits for it without holding the event loop, and goes through once the lock is let go', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agentlane-lock-'));
    const path = join(dir, 'store.db');
    const store = createSqliteStore({ path });
    try {
      await store.migrate();
      const holder = spawn(
        process.execPath,
        ['--import', 'tsx', fileURLToPath(new URL('./helpers/lock-holder.ts', import.meta.url)), path],
        { stdio: ['pipe', 'pipe', 'inherit'] },
      );
      let out = '';
      const said = (word: string) =>
        new Promise<void>((resolve) => {
          const check = () => (out.includes(word) ? resolve() : undefined);
          holder.stdout.on('data', (d) => {
            out += d;
            check();
          });
          check();
        });
      await said('locked');
      const write = store.createThread({
        threadId: 't-locked',
        engine: 'e',
        title: null,
        workDir: null,
        metadata: {},
      });
      // Reads go on meanwhile (WAL), and this process's timers run: the holder is told to let go from one. With a
      // synchronous busy wait the timer could not fire before the wait gave up, and the write failed.
      const threadsMeanwhile = await store.listThreads({ limit: 10 });
      setTimeout(() => holder.stdin.write('go\n'), 50);
      await said('released');
      const thread = await write;
      expect(thread.threadId).toBe('t-locked');
      expect(threadsMeanwhile.items.map((t) => t.threadId)).not.toContain('t-locked');
      expect((await store.getThread('t-locked'))?.engine).toBe('e');
    } finally {
      await store.close();
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
