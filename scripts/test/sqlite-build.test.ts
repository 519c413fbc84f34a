import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';

// `npm ci` builds better-sqlite3 through scripts/install/better-sqlite3.mjs (the root postinstall; the
// package's own install script is denied by allowScripts). These tests say that build is the one installed,
// when that script compiled it: a downloaded prebuilt binary (a machine that reaches GitHub) has
// better-sqlite3's stock options, and so has a build by an npm that does not know allowScripts.
const require = createRequire(import.meta.url);
const markerPath = join(
  dirname(require.resolve('better-sqlite3/package.json')),
  'build',
  'agentlane-build.json',
);
const built = existsSync(markerPath)
  ? (JSON.parse(readFileSync(markerPath, 'utf8')) as { built: string }).built
  : 'unknown';
if (built !== 'agentlane')
  console.warn(
    `sqlite-build test: skipped, better-sqlite3 was not compiled by scripts/install/better-sqlite3.mjs (${built})`,
  );
const db = new Database(':memory:');
afterAll(() => db.close());

const used = (option: string): boolean =>
  (db.prepare('SELECT sqlite_compileoption_used(?) AS used').get(option) as { used: number }).used === 1;

describe.skipIf(built !== 'agentlane')("agentlane's SQLite build", () => {
  it('leaves out the full-text and R*Tree modules agentlane does not use', () => {
    for (const option of ['ENABLE_FTS3', 'ENABLE_FTS4', 'ENABLE_FTS5', 'ENABLE_RTREE', 'ENABLE_GEOPOLY']) {
      expect(used(option), option).toBe(false);
    }
  });

  it("keeps better-sqlite3's other options (dbstat, which the long-answer bench reads, among them)", () => {
    for (const option of [
      'ENABLE_DBSTAT_VTAB',
      'ENABLE_COLUMN_METADATA',
      'ENABLE_STAT4',
      'ENABLE_MATH_FUNCTIONS',
    ]) {
      expect(used(option), option).toBe(true);
    }
    expect(used('DEFAULT_FOREIGN_KEYS')).toBe(true);
    expect(() => db.prepare('SELECT count(*) FROM dbstat').get()).not.toThrow();
  });

  it.skipIf(!hasStrace())('syncs a WAL commit with fdatasync, not fsync', () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentlane-sqlite-build-'));
    try {
      const script = `const D = require(${JSON.stringify(require.resolve('better-sqlite3'))});
const d = new D(${JSON.stringify(join(dir, 'db.sqlite'))});
d.pragma('journal_mode = WAL'); d.pragma('synchronous = FULL');
d.exec('CREATE TABLE t (x)'); for (let i = 0; i < 3; i++) d.prepare('INSERT INTO t VALUES (?)').run(i);`;
      // strace -c prints its table of calls on stderr
      const traced = spawnSync(
        'strace',
        ['-f', '-c', '-e', 'trace=fsync,fdatasync', process.execPath, '-e', script],
        {
          encoding: 'utf8',
        },
      );
      expect(traced.status, traced.stderr).toBe(0);
      expect(traced.stderr).toMatch(/\bfdatasync\b/);
      expect(traced.stderr).not.toMatch(/\bfsync\b/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

function hasStrace(): boolean {
  try {
    execFileSync('strace', ['-V'], { stdio: 'ignore' });
    return true;
  } catch {
    console.warn('sqlite-build test: strace is not installed here, so the fdatasync check is skipped');
    return false;
  }
}
