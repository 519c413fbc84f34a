import { createHash } from 'node:crypto';
import { defineTool } from '@agentlane/runtime';
import { Type } from 'typebox';
import { describe, expect, it } from 'vitest';
import { chatDriver, fakeModelAndWorkspace, runTurn } from './harness';

const env = fakeModelAndWorkspace('rt-artifacts-');

const PNG = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 1, 2, 3]);
const REPORT = `# Report\n\n${'All checks passed. '.repeat(400)}`;

/** A consumer's tool that makes two artifacts: a text report handed to the user, and a small image. */
const report = defineTool<{ title: string }>({
  name: 'make_report',
  description: 'Writes a report',
  inputSchema: Type.Object({ title: Type.String() }),
  async execute(input, ctx) {
    ctx.artifact({
      name: `${input.title}.md`,
      contentType: 'text/markdown',
      content: REPORT,
      description: 'The check report',
      deliver: true,
    });
    ctx.artifact({ name: 'chart.png', contentType: 'image/png', content: PNG });
    return 'report written';
  },
});

const sha = (b: string | Uint8Array) => createHash('sha256').update(b).digest('hex');

describe('tool artifacts (ctx.artifact)', () => {
  it('stores text and bytes content-addressed, announces them, and delivers the one the tool hands over', async () => {
    env.fake.setScenario([
      { toolCalls: [{ name: 'make_report', arguments: { title: 'checks' }, id: 'call_r' }] },
      { text: 'Here is the report.' },
    ]);
    const r = await runTurn(chatDriver(env.fake.url, { tools: [report] }), {
      prompt: 'report',
      workDir: env.work,
    });
    expect(r.outcome.outcome).toBe('completed');

    const created = r.events.filter((e) => e.draft.kind === 'artifact.created').map((e) => e.draft.payload);
    expect(created).toEqual([
      {
        artifact: {
          id: `sha256-${sha(REPORT)}`,
          bytes: Buffer.byteLength(REPORT),
          sha256: sha(REPORT),
          contentType: 'text/markdown',
        },
        name: 'checks.md',
        preview: expect.stringMatching(/^# Report/),
        toolCallId: 'call_r',
      },
      {
        artifact: {
          id: `sha256-${sha(PNG)}`,
          bytes: PNG.byteLength,
          sha256: sha(PNG),
          contentType: 'image/png',
        },
        name: 'chart.png',
        preview: expect.any(String),
        toolCallId: 'call_r',
      },
    ]);
    // The preview is bounded; the whole content goes to the artifact store.
    expect((created[0] as { preview: string }).preview.length).toBeLessThan(REPORT.length);
    const delivered = r.events
      .filter((e) => e.draft.kind === 'artifact.delivered')
      .map((e) => e.draft.payload);
    expect(delivered).toEqual([
      {
        artifact: (created[0] as { artifact: unknown }).artifact,
        name: 'checks.md',
        description: 'The check report',
      },
    ]);
    const stored = new Map(r.artifacts.map((a) => [a.ref.id, 'content' in a ? a.content : a.file]));
    expect(stored.get(`sha256-${sha(REPORT)}`)).toBe(REPORT);
    expect(Buffer.from(stored.get(`sha256-${sha(PNG)}`) as Uint8Array)).toEqual(Buffer.from(PNG));
  });
});
