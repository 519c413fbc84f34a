import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMemorySaver } from '@agentlane/checkpoints';
import { defineTool } from '@agentlane/runtime';
import { Type } from 'typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatDriver, fakeModelAndWorkspace, runTurn } from './harness';

const env = fakeModelAndWorkspace('rt-bounds-');
let outputDir: string;
beforeAll(async () => {
  outputDir = await mkdtemp(join(tmpdir(), 'rt-bounds-out-'));
});
afterAll(async () => {
  await rm(outputDir, { recursive: true, force: true });
});

type Run = Awaited<ReturnType<typeof runTurn>>;
const sha = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');
const kinds = (r: Run, kind: string) =>
  r.events.filter((e) => e.draft.kind === kind).map((e) => e.draft.payload);
const fileArtifacts = (r: Run) =>
  r.artifacts.flatMap((a) => ('file' in a ? [{ ref: a.ref, file: a.file }] : []));
const limitWarnings = (r: Run) =>
  kinds(r, 'harness.warning').filter((p) => (p as { code: string }).code === 'output_limit');

/** 2 MB of text: lines "line N …" so that a wrong cut or order would show. */
const LONG = Array.from({ length: 20_000 }, (_, i) => `line ${i} ${'x'.repeat(90)}\n`).join('');

describe('output bounds: model text, tool results', () => {
  it('a model answer past turnTextBytes: a bounded part is shown and checkpointed, the rest is a file artifact', async () => {
    env.fake.setScenario([{ text: LONG, chunkSize: 65_536 }]);
    const saver = createMemorySaver();
    const driver = chatDriver(env.fake.url, { checkpoints: saver, turnTextBytes: 100_000, outputDir });
    const r = await runTurn(driver, { prompt: 'say a lot', workDir: env.work });
    expect(r.outcome.outcome).toBe('completed');
    const shown = kinds(r, 'message.delta')
      .map((p) => (p as { delta: string }).delta)
      .join('');
    expect(Buffer.byteLength(shown)).toBeLessThanOrEqual(100_000);
    expect(LONG.startsWith(shown)).toBe(true);
    // The rest went to a file, never into a frame: the turn's frames stay near the bound, not 2 MB.
    expect(JSON.stringify(r.frames).length).toBeLessThan(400_000);
    const [artifact, ...more] = fileArtifacts(r);
    expect(more).toEqual([]);
    const rest = await readFile(artifact?.file as string);
    expect(shown + rest.toString('utf8')).toBe(LONG);
    expect(artifact?.ref).toEqual({
      id: `sha256-${sha(rest)}`,
      sha256: sha(rest),
      bytes: rest.byteLength,
      contentType: 'text/plain; charset=utf-8',
    });
    // The event names the artifact (what lets the server serve it to the thread's tokens).
    expect(kinds(r, 'artifact.created')).toEqual([
      expect.objectContaining({
        artifact: artifact?.ref,
        name: 'answer past turnTextBytes (tool-loop, step 1)',
      }),
    ]);
    expect(limitWarnings(r)).toHaveLength(1);
    // The conversation the checkpoint keeps has the bounded answer, not 2 MB.
    const latest = await saver.getLatest('thr_test');
    expect(JSON.stringify(latest).length).toBeLessThan(300_000);
  });

  it('a custom tool result past toolResultBytes: the model, the events and the checkpoint get a preview and the artifact id', async () => {
    const big = defineTool<Record<string, never>>({
      name: 'big_report',
      description: 'returns a large report',
      inputSchema: Type.Object({}),
      async execute() {
        return { report: LONG };
      },
    });
    env.fake.setScenario([
      { toolCalls: [{ name: 'big_report', arguments: {}, id: 'call_rep' }] },
      { text: 'summarised' },
    ]);
    const saver = createMemorySaver();
    const driver = chatDriver(env.fake.url, {
      tools: [big],
      checkpoints: saver,
      toolResultBytes: 50_000,
      outputDir,
    });
    const r = await runTurn(driver, { prompt: 'report', workDir: env.work });
    expect(r.outcome.outcome).toBe('completed');
    const completed = kinds(r, 'tool.completed')[0] as {
      output: { truncated: boolean; bytes: number; preview: string; artifactId: string };
    };
    const whole = JSON.stringify({ report: LONG });
    expect(completed.output).toMatchObject({ truncated: true, bytes: Buffer.byteLength(whole) });
    expect(whole.startsWith(completed.output.preview)).toBe(true);
    const [artifact] = fileArtifacts(r);
    expect(completed.output.artifactId).toBe(artifact?.ref.id);
    expect(await readFile(artifact?.file as string, 'utf8')).toBe(whole);
    expect(kinds(r, 'artifact.created')[0]).toMatchObject({
      toolCallId: 'call_rep',
      artifact: artifact?.ref,
    });
    expect(limitWarnings(r)).toHaveLength(1);
    // The model's next request carries the preview, not 2 MB.
    expect(JSON.stringify(env.fake.modelRequests().at(-1)?.body).length).toBeLessThan(100_000);
    expect(JSON.stringify(await saver.getLatest('thr_test')).length).toBeLessThan(200_000);
    expect(JSON.stringify(r.frames).length).toBeLessThan(300_000);
  });

  it('run_command: the overflow file is announced as an artifact and the result names its id', async () => {
    env.fake.setScenario([
      {
        toolCalls: [
          {
            name: 'run_command',
            arguments: { command: "head -c 300000 /dev/zero | tr '\\0' b" },
            id: 'call_cmd',
          },
        ],
      },
      { text: 'done' },
    ]);
    const driver = chatDriver(env.fake.url, {
      workspaceTools: { approveCommands: false, maxCommandOutputBytes: 10_000 },
      outputDir,
    });
    const r = await runTurn(driver, { prompt: 'print', workDir: env.work });
    const result = kinds(r, 'tool.completed')[0] as {
      output: { overflow: { path: string; artifactId: string; bytes: number } };
    };
    expect(result.output.overflow.path.startsWith(outputDir)).toBe(true);
    const [artifact] = fileArtifacts(r);
    expect(artifact).toMatchObject({ file: result.output.overflow.path });
    expect(result.output.overflow.artifactId).toBe(artifact?.ref.id);
    expect(artifact?.ref.bytes).toBe(290_000);
    expect(kinds(r, 'artifact.created')[0]).toMatchObject({ toolCallId: 'call_cmd' });
  });
});
