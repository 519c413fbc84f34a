import { chmodSync, existsSync, mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ensureDataDir } from '../src/data-dir';
import { runCli, STACK_LINE } from './run-cli';

const tmp = () => mkdtempSync(join(tmpdir(), 'agentlane-data-dir-'));
const isRoot = process.getuid?.() === 0;
if (isRoot) console.warn('data-dir: the EACCES test is skipped: running as root, every folder is writable');

/** A config without engines, so serve and doctor discover and probe nothing and fail on the data folder. */
function quietConfig(): string {
  const path = join(tmp(), 'agentlane.json');
  writeFileSync(path, JSON.stringify({ recordedSessions: false }));
  return path;
}

describe('the SQLite data folder', () => {
  it('is made with its missing parents', () => {
    const dir = join(tmp(), 'a', 'b', 'c');
    ensureDataDir(dir);
    expect(statSync(dir).isDirectory()).toBe(true);
    ensureDataDir(dir); // existing: nothing to do
  });

  it.skipIf(isRoot || process.platform === 'win32')(
    'names the folder and EACCES when it may not be made',
    () => {
      const parent = tmp();
      chmodSync(parent, 0o555);
      try {
        expect(() => ensureDataDir(join(parent, 'data'))).toThrow(
          `cannot create the data folder ${join(parent, 'data')} (EACCES: permission denied)`,
        );
      } finally {
        chmodSync(parent, 0o755);
      }
    },
  );

  it('serve under a file: one line naming the path and the reason, exit 1, no stack', async () => {
    const file = join(tmp(), 'a-file');
    writeFileSync(file, '');
    const r = await runCli([
      'serve',
      '--config',
      quietConfig(),
      '--port',
      '0',
      '--data-dir',
      join(file, 'data'),
    ]);
    expect(r.status).toBe(1);
    expect(r.stderr).toBe(
      `agentlane: cannot use the data folder ${join(file, 'data')} (ENOTDIR: not a directory)\n`,
    );
  }, 60_000);

  // Node's recursive mkdir loops forever here (ENOENT for the child, EEXIST for /proc): serve used to hang.
  it.skipIf(process.platform !== 'linux')(
    'serve and doctor under /proc end at once with one line, never hang',
    async () => {
      const dataDir = `/proc/agentlane-test-${process.pid}/data`;
      const config = quietConfig();
      const [served, doctor] = await Promise.all([
        runCli(['serve', '--config', config, '--port', '0', '--data-dir', dataDir], {}, 30_000),
        runCli(['doctor', '--config', config, '--port', '0', '--data-dir', dataDir], {}, 30_000),
      ]);
      expect(served.killed).toBe(false);
      expect(served.status).toBe(1);
      expect(served.stderr).toMatch(
        new RegExp(`^agentlane: cannot create the data folder ${dataDir} \\(E[A-Z]+: [^)]+\\)\\n$`),
      );
      expect(doctor.killed).toBe(false);
      expect(doctor.status).toBe(1);
      expect(doctor.stdout).toMatch(
        new RegExp(`^problem {2}database: cannot create the data folder ${dataDir} \\(E[A-Z]+`, 'm'),
      );
      // Only doctor's own summary on stderr: no stack after its findings.
      expect(doctor.stderr).toMatch(/^agentlane: doctor found \d+ problem\(s\)\n$/);
      expect(existsSync(dataDir)).toBe(false);
    },
    60_000,
  );

  it('doctor reports a data folder under a file as a problem and prints no stack', async () => {
    const file = join(tmp(), 'a-file');
    writeFileSync(file, '');
    const r = await runCli([
      'doctor',
      '--config',
      quietConfig(),
      '--port',
      '0',
      '--data-dir',
      join(file, 'd'),
    ]);
    expect(r.status).toBe(1);
    expect(r.stdout).toContain(`problem  database: cannot use the data folder ${join(file, 'd')} (ENOTDIR`);
    expect(r.stdout + r.stderr).not.toMatch(STACK_LINE);
  }, 60_000);
});
