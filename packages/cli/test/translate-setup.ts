import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';

/** A recorded Claude Code ACP wire trace (the ACP adapter's fixture): what the translate tests read. */
export const acpWireFixture = join(
  import.meta.dirname,
  '..',
  '..',
  'adapters',
  'acp',
  'test',
  '__fixtures__',
  'claude-agent-acp.wire.jsonl',
);

export const translateFlags = { engine: 'acp', runId: 'run_t', threadId: 'thr_t' };

/** A temporary folder removed after the test file's tests. */
export function scratchDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}
