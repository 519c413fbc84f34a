import { noCapabilities, type StreamEvent } from '@agentlane/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeViolations, type Browser, chromiumMissing, launch } from './helpers/browser';
import { buildOnce } from './helpers/build';
import { FakeServer } from './helpers/fake-server';
import { DIFF, FrameWriter } from './helpers/frames';
import { shootBothThemes } from './helpers/themes';

/**
 * In the thread: a failed tool says why without being opened, an approval's diff (the built-in engine's
 * jsdiff patch, `Index:` and `=====` lines first) is rendered unified and split, an image artifact is shown
 * as an image, and messages, code and tool output have copy buttons that fill the clipboard.
 */
const skip = chromiumMissing();
let browser: Browser;
let server: FakeServer;

// 4×4 red PNG.
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAQAAAAECAIAAAAmkwkpAAAAEElEQVR4nGO4o6EBRwzEcQDzAxLBI9OCRQAAAABJRU5ErkJggg==',
  'base64',
);
// The built-in engine's patches come from jsdiff, which writes these two lines first.
const JSDIFF = `Index: src/add.ts\n${'='.repeat(67)}\n${DIFF}`;
const ANSWER = 'Here is the fix:\n\n```ts\nexport const answer = 42;\n```\n';

function workThread(threadId: string): StreamEvent[] {
  const w = new FrameWriter(threadId);
  w.runStatus('running');
  w.emit({
    kind: 'session.started',
    payload: { provider: 'recorded', origin: 'new', generation: 1, capabilities: noCapabilities() },
  });
  w.emit({ kind: 'turn.started', payload: { prompt: 'Fix add' } });
  w.emit({
    kind: 'tool.started',
    payload: {
      toolCallId: 't-1',
      name: 'bash',
      kind: 'execute',
      input: { command: 'npm test' },
      status: 'running',
    },
  });
  w.emit({
    kind: 'tool.completed',
    payload: {
      toolCallId: 't-1',
      status: 'failed',
      error: 'exit code 2: 3 tests failed',
      output: 'FAIL add.test.ts',
    },
  });
  w.emit({
    kind: 'approval.requested',
    payload: {
      approvalId: 'ap-1',
      title: 'Write src/add.ts',
      subject: {
        kind: 'file_edit',
        path: 'src/add.ts',
        diff: {
          artifact: {
            id: 'diff-a',
            bytes: JSDIFF.length,
            sha256: '0'.repeat(64),
            contentType: 'text/x-diff',
          },
          preview: JSDIFF,
          truncated: false,
        },
      },
      options: [
        { optionId: 'yes', label: 'Allow', kind: 'allow_once' },
        { optionId: 'no', label: 'Reject', kind: 'reject_once' },
      ],
    },
  });
  w.emit({
    kind: 'artifact.delivered',
    payload: {
      artifact: { id: 'chart-png', bytes: PNG.length, sha256: '0'.repeat(64), contentType: 'image/png' },
      name: 'chart.png',
    },
  });
  w.streamText('m1', ANSWER);
  w.emit({ kind: 'message.completed', payload: { messageId: 'm1', role: 'assistant', text: ANSWER } });
  return w.frames;
}

beforeAll(async () => {
  if (skip) return;
  server = new FakeServer(await buildOnce());
  server.addThread('th-work', 'Fix add', workThread('th-work'));
  server.artifacts.set('chart-png', { contentType: 'image/png', body: PNG });
  await server.start();
  browser = await launch();
  await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

describe.skipIf(skip)('in the thread', { timeout: 90_000 }, () => {
  it('says why a tool failed, renders diffs unified and split, previews images, copies', async () => {
    const page = await browser.context.newPage();
    await page.goto(`${server.url}/#/t/th-work`);
    await page.locator('.message.assistant', { hasText: 'Here is the fix' }).waitFor();

    // The failed tool's message without opening the card.
    const tool = page.locator('[data-surface="tool"].tool-failed');
    await expect
      .poll(() => tool.locator('[data-testid="tool-error"]').textContent())
      .toBe('exit code 2: 3 tests failed');

    // The approval's diff is a rendered diff, not its text; split puts old and new side by side.
    const approval = page.locator('[data-surface="approval"]');
    await approval.locator('table.diff').waitFor();
    expect(await approval.locator('table.diff.diff-unified').count()).toBe(1);
    expect(await approval.locator('.diff-code-insert').first().textContent()).toContain('return a + b;');
    expect(await approval.locator('pre', { hasText: '=====' }).count()).toBe(0);
    await shootBothThemes(page, 'approval-diff-unified', approval);
    await approval.getByLabel('Split').check();
    await approval.locator('table.diff.diff-split').waitFor();
    expect(await approval.locator('.diff-code-delete').first().textContent()).toContain('return a - b;');
    await shootBothThemes(page, 'approval-diff-split', approval);

    // The image artifact is an image the browser decoded.
    const image = page.locator('[data-surface="artifact"] img.artifact-image');
    await image.waitFor();
    await expect.poll(() => image.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(4);
    await shootBothThemes(page, 'artifact-image', page.locator('[data-surface="artifact"]'));

    // Copy: the message, its code block (streamdown's own button), the tool's output.
    const clipboard = () => page.evaluate(() => navigator.clipboard.readText());
    await page.locator('.message.assistant').getByRole('button', { name: 'Copy message' }).click();
    await expect.poll(clipboard).toBe(ANSWER);
    await page
      .locator('.message.assistant [data-streamdown="code-block"] button[title*="Copy" i]')
      .first()
      .click();
    await expect.poll(clipboard).toContain('export const answer = 42;');
    await tool.locator('.card-head').click();
    await tool.getByRole('button', { name: 'Copy tool output' }).click();
    await expect.poll(clipboard).toBe('FAIL add.test.ts');
    await shootBothThemes(page, 'tool-failed-inline', tool);

    expect(await axeViolations(page, 'main.thread')).toEqual([]);
    await page.close();
  });
});
