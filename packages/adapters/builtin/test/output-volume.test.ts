import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatDriver, fakeModelAndWorkspace, runTurn } from './harness';

const env = fakeModelAndWorkspace('rt-volume-');
let outputDir: string;
beforeAll(async () => {
  outputDir = await mkdtemp(join(tmpdir(), 'rt-volume-out-'));
});
afterAll(async () => {
  await rm(outputDir, { recursive: true, force: true });
});

const print = (id: string, bytes: number) => ({
  name: 'run_command',
  arguments: { command: `head -c ${bytes} /dev/zero | tr '\\0' a` },
  id,
});
type Overflow = { path: string; bytes: number; sha256: string; shownBytes: number };
const resultOf = (r: Awaited<ReturnType<typeof runTurn>>, id: string) =>
  r.events.find(
    (e) => e.draft.kind === 'tool.completed' && (e.draft.payload as { toolCallId: string }).toolCallId === id,
  )?.draft.payload as { output: { overflow?: Overflow; output: string } } | undefined;
const shownBytes = (r: Awaited<ReturnType<typeof runTurn>>, id: string) =>
  r.events
    .filter(
      (e) =>
        e.draft.kind === 'terminal.output' && (e.draft.payload as { toolCallId: string }).toolCallId === id,
    )
    .reduce((n, e) => n + Buffer.byteLength((e.draft.payload as { chunk: string }).chunk), 0);

describe('output volume', () => {
  it('a command past its bound: a bounded part shown, the rest streamed to a file the result names', async () => {
    env.fake.setScenario([{ toolCalls: [print('call_big', 3_000_000)] }, { text: 'done' }]);
    const driver = chatDriver(env.fake.url, {
      workspaceTools: { approveCommands: false, maxCommandOutputBytes: 100_000, outputDir },
    });
    const r = await runTurn(driver, { prompt: 'print', workDir: env.work });
    expect(r.outcome.outcome).toBe('completed');
    // 100,000 bytes of output and one line naming the file.
    expect(shownBytes(r, 'call_big')).toBeLessThan(100_000 + 300);
    const overflow = resultOf(r, 'call_big')?.output.overflow as Overflow;
    expect(overflow).toMatchObject({ bytes: 2_900_000, shownBytes: 100_000 });
    const file = await readFile(overflow.path);
    expect(file.byteLength).toBe(2_900_000);
    expect(createHash('sha256').update(file).digest('hex')).toBe(overflow.sha256);
    // What the source lane would store for the whole turn stays small.
    expect(JSON.stringify(r.frames).length).toBeLessThan(400_000);
  });

  it('the turn bound holds across commands: one warning, the rest of the second command goes to its file', async () => {
    // One command a step: commands of one step run side by side, and then which of them the bound cuts,
    // and whether a result (which counts against the bound too) still fits after them, depends on how the
    // pipes happen to chunk the output (a loaded CI run once cut call_two's result to a preview). Here the
    // first command's 200,000 bytes and its result (16,384 bytes of output and its fields) fit, and the room
    // left (about 2 KB) is less than any chunk of the second command but more than its result.
    env.fake.setScenario([
      { toolCalls: [print('call_one', 200_000)] },
      { toolCalls: [print('call_two', 200_000)] },
      { text: 'done' },
    ]);
    const driver = chatDriver(env.fake.url, {
      workspaceTools: { approveCommands: false, outputDir },
      turnOutputBytes: 200_000 + 16_384 + 2_048,
    });
    const r = await runTurn(driver, { prompt: 'print twice', workDir: env.work });
    expect(r.outcome.outcome).toBe('completed');
    expect(shownBytes(r, 'call_one')).toBe(200_000);
    expect(shownBytes(r, 'call_two')).toBeLessThanOrEqual(2_048);
    const warnings = r.events.filter(
      (e) =>
        e.draft.kind === 'harness.warning' && (e.draft.payload as { code: string }).code === 'output_limit',
    );
    expect(warnings).toHaveLength(1);
    const overflow = resultOf(r, 'call_two')?.output.overflow as Overflow;
    expect(overflow.bytes + overflow.shownBytes).toBe(200_000);
    expect((await readFile(overflow.path)).byteLength).toBe(overflow.bytes);
    expect(resultOf(r, 'call_one')?.output.overflow).toBeUndefined();
  });
});
