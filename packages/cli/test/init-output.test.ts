import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from './run-cli';

const tmp = () => mkdtempSync(join(tmpdir(), 'agentlane-init-out-'));
// No provider key: init finds no engine to probe and gets to the write quickly.
const noKeys = {
  OPENAI_API_KEY: '',
  ANTHROPIC_API_KEY: '',
  GEMINI_API_KEY: '',
  GOOGLE_GENERATIVE_AI_API_KEY: '',
};

describe('agentlane init -o PATH that cannot be written', () => {
  it('says so in one line with the reason and exits 1 (missing folder, a folder, a file as folder)', async () => {
    const dir = tmp();
    const file = join(dir, 'a-file');
    writeFileSync(file, '');
    const [missing, folder, underFile] = await Promise.all([
      runCli(['init', '-o', join(dir, 'no', 'such', 'x.json')], noKeys),
      runCli(['init', '-o', dir, '--force'], noKeys),
      runCli(['init', '-o', join(file, 'x.json')], noKeys),
    ]);
    expect(missing).toMatchObject({
      status: 1,
      stderr: `agentlane: cannot write ${join(dir, 'no', 'such', 'x.json')} (the folder ${join(dir, 'no', 'such')} does not exist)\n`,
    });
    expect(folder).toMatchObject({
      status: 1,
      stderr: `agentlane: cannot write ${dir} (it is a folder; name a file)\n`,
    });
    expect(underFile).toMatchObject({
      status: 1,
      stderr: `agentlane: cannot write ${join(file, 'x.json')} (${file} is not a folder)\n`,
    });
  }, 90_000);

  it.skipIf(process.platform !== 'linux')(
    'a failed write (a full disk: /dev/full) is one line too',
    async () => {
      const r = await runCli(['init', '-o', '/dev/full', '--force'], noKeys);
      expect(r.status).toBe(1);
      expect(r.stderr.split('\n').filter(Boolean).at(-1)).toBe(
        'agentlane: cannot write /dev/full (ENOSPC: no space left on device)',
      );
      expect(r.stderr.split('\n').filter(Boolean)).toHaveLength(1);
    },
    60_000,
  );
});
