import { spawnSync } from 'node:child_process';
import { createWriteStream, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { translateTrace } from '../src/commands/translate';
import { readLines } from '../src/read-lines';
import { acpWireFixture, scratchDir, translateFlags } from './translate-setup';

const fixture = acpWireFixture;
const dir = scratchDir('agentlane-translate-stream-');
const flags = translateFlags;

async function collect(file: string, extra: { latest?: boolean } = {}): Promise<string[]> {
  const lines: string[] = [];
  await translateTrace(
    file,
    { ...flags, ...extra },
    (l) => lines.push(l),
    () => {},
  );
  return lines;
}

describe('agentlane translate streams', () => {
  // Through a named pipe the trace's end is under the test's control: the first events must come out while
  // the rest has not been written yet, which a reader of the whole file could never do.
  it.skipIf(process.platform === 'win32')(
    'writes events before the trace has ended',
    async () => {
      const fifo = join(dir, 'trace.fifo');
      expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
      const trace = readFileSync(fixture, 'utf8').split('\n');
      const half = Math.floor(trace.length / 2);
      const lines: string[] = [];
      const done = translateTrace(
        fifo,
        flags,
        (l) => lines.push(l),
        () => {},
      );
      const writer = createWriteStream(fifo);
      writer.write(`${trace.slice(0, half).join('\n')}\n`);
      const deadline = Date.now() + 20_000;
      while (lines.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect(lines.length).toBeGreaterThan(0);
      writer.end(trace.slice(half).join('\n'));
      await done;
      expect(lines).toEqual(await collect(fixture));
    },
    30_000,
  );

  it('--latest keeps the last revision of each event in its first place, as before', async () => {
    const all = (await collect(fixture)).map((l) => JSON.parse(l) as { eventId: string });
    const expected = [...new Map(all.map((e) => [e.eventId, e])).values()];
    expect((await collect(fixture, { latest: true })).map((l) => JSON.parse(l))).toEqual(expected);
  });

  it('reads lines across chunks: a line far longer than a chunk, multi-byte text, no final newline', async () => {
    const file = join(dir, 'lines.txt');
    const long = `{"text":"${'é😀x'.repeat(100_000)}"}`;
    const text = ['a', '', long, 'ü'.repeat(70_000), 'last'].join('\n');
    writeFileSync(file, text);
    const lines: string[] = [];
    for await (const line of readLines(file)) lines.push(line);
    expect(lines).toEqual(['a', '', long, 'ü'.repeat(70_000), 'last']);
    await expect(readLines(join(dir, 'missing')).next()).rejects.toThrow(/cannot read .*missing \(ENOENT\)/);
  });

  // A probe: /dev/zero (no newline ever) ran V8 out of memory, and 3 MB of random bytes printed 11,603 lines.
  it('stops at a line past the bound, naming it; names 100 skipped lines, then counts the rest', async () => {
    const long = join(dir, 'long.txt');
    writeFileSync(long, `{"a":1}\n${'x'.repeat(5000)}`);
    const lines: string[] = [];
    await expect(
      (async () => {
        for await (const line of readLines(long, 1000)) lines.push(line);
      })(),
    ).rejects.toThrow(`${long}: line 2 is longer than 1000 characters; not a trace (stopped)`);
    expect(lines).toEqual(['{"a":1}']);
    const noise = join(dir, 'noise.txt');
    writeFileSync(noise, Array.from({ length: 250 }, (_, i) => `noise ${i}`).join('\n'));
    const errors: string[] = [];
    await translateTrace(
      noise,
      flags,
      () => {},
      (l) => errors.push(l),
    );
    const skipped = errors.filter((l) => l.endsWith('not JSON, skipped'));
    expect(skipped).toHaveLength(100);
    expect(errors).toContain(`${noise}: 150 more lines skipped (250 in all)`);
  });

  it('numbers the lines it skips as in the file, blank lines counted', async () => {
    const file = join(dir, 'gaps.jsonl');
    writeFileSync(file, '\n\nnope\n{"jsonrpc":"2.0","id":1,"result":{"stopReason":"end_turn"}}\n{bad');
    const errors: string[] = [];
    await translateTrace(
      file,
      flags,
      () => {},
      (l) => errors.push(l),
    );
    expect(errors).toEqual([`${file}:3: not JSON, skipped`, `${file}:5: not JSON, skipped`]);
  });
});
