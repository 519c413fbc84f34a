import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  axeViolations,
  type Browser,
  chromiumMissing,
  cspViolations,
  launch,
  screenshot,
} from './helpers/browser';
import { buildOnce } from './helpers/build';
import { FakeServer } from './helpers/fake-server';
import { allSurfacesThread, FrameWriter, LONG_ANSWER, textOnlyThread } from './helpers/frames';
import { openCard as openCardUntil } from './helpers/open-card';
import { scanTimeline } from './helpers/scan';

const skip = chromiumMissing();
let server: FakeServer;
let browser: Browser;

beforeAll(async () => {
  if (skip) return;
  server = new FakeServer(await buildOnce());
  await server.start();
  browser = await launch();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

async function open(path: string, scheme: 'light' | 'dark' = 'light'): Promise<Page> {
  const page = await browser.context.newPage();
  await page.emulateMedia({ colorScheme: scheme });
  await page.goto(`${server.url}/${path}`);
  return page;
}

/** The text of the assistant's message as rendered, whitespace-normalized. */
async function assistantText(page: Page, messageIndex = 0): Promise<string> {
  return ((await page.locator('.message.assistant .markdown').nth(messageIndex).textContent()) ?? '')
    .replace(/\s+/g, ' ')
    .trim();
}

const SURFACES = [
  'message',
  'reasoning',
  'tool',
  'plan',
  'file',
  'terminal',
  'child',
  'approval',
  'question',
  'context',
  'warning',
  'usage',
  'artifact',
  'mode',
];

async function openCard(page: Page, head: string, body: string): Promise<void> {
  await openCardUntil(page.locator(head), page.locator(body));
}

describe.skipIf(skip)('web timeline in Chromium', { timeout: 120_000 }, () => {
  it('renders every surface a thread contains, light and dark, with no serious accessibility violation', async () => {
    const { frames } = allSurfacesThread('th-all');
    server.addThread('th-all', 'Fix the adder', frames);
    for (const scheme of ['light', 'dark'] as const) {
      const page = await open('#/t/th-all', scheme);
      await page.locator('[data-connection="live"]').waitFor();
      await page.locator('.message.assistant', { hasText: 'Done.' }).waitFor();
      await screenshot(page, `thread-all-surfaces-bottom-${scheme}`);
      const scan = await scanTimeline(page);
      expect(scan.surfaces).toEqual(expect.arrayContaining(SURFACES));
      expect(scan.surfaces).not.toContain('model-picker');
      expect(scan.rows.filter((r) => r.provisional)).toEqual([]);
      expect(scan.rows.find((r) => r.text.includes('Ended: end_turn'))).toBeDefined();
      await page.locator('.timeline').evaluate((el) => {
        el.scrollTop = 0;
      });
      await page.waitForTimeout(200);
      await screenshot(page, `thread-all-surfaces-top-${scheme}`);
      // Expand the heavy bodies (diff, terminal) only now; they are not built before.
      expect(await page.locator('[data-surface="file"] .diff').count()).toBe(0);
      await openCard(page, '[data-surface="file"] .card-head', '[data-surface="file"] .diff');
      await openCard(page, '[data-surface="terminal"] .card-head', '.terminal span');
      // The whole page with nothing over it, then the command list on its own: with the list open, rows
      // under it (the virtual window decides which) were measured against the list's background (a loaded
      // CI run flagged the code block's tokens there).
      expect(await axeViolations(page)).toEqual([]);
      await page.locator('#prompt').fill('/re');
      await page.locator('[data-surface="commands"]').waitFor();
      await screenshot(page, `thread-expanded-${scheme}`);
      expect(await axeViolations(page, '[data-surface="commands"]')).toEqual([]);
      await page.locator('#prompt').fill('');
      await page.locator('[data-surface="commands"]').waitFor({ state: 'detached' });
      // The answer's code block once highlighted: its tokens' colours in this scheme.
      await page.locator('.timeline').evaluate((el) => {
        el.scrollTop = el.scrollHeight;
      });
      await page.locator('[data-streamdown="code-block-body"] code span[style]').first().waitFor();
      expect(await axeViolations(page, '[data-streamdown="code-block-body"]')).toEqual([]);
      await page.goto(`${server.url}/#/t/th-all/c/child-1`);
      await page.locator('.message.assistant', { hasText: 'Looks good to me.' }).waitFor();
      await screenshot(page, `child-session-${scheme}`);
      await page.goto(`${server.url}/#/`);
      await page.locator('.thread-items a').first().waitFor();
      await screenshot(page, `thread-list-${scheme}`);
      expect(await axeViolations(page)).toEqual([]);
      // Every surface (Mermaid, code, math, images, diffs) renders under agentlane serve's security policy.
      expect(await cspViolations(page)).toEqual([]);
      await page.close();
    }
  });

  it('shows no surface a thread does not contain', async () => {
    server.addThread('th-text', 'Just text', textOnlyThread('th-text'));
    const page = await open('#/t/th-text');
    await page.locator('.message.assistant', { hasText: 'How can I help?' }).waitFor();
    expect((await scanTimeline(page)).surfaces).toEqual(['message']);
    await page.close();
  });

  it('reloads in the middle of a stream without losing or doubling text, provisional until the run is final', async () => {
    const { frames, finalText } = allSurfacesThread('th-reload');
    const cut =
      frames.findIndex(
        (f) =>
          f.type === 'message.delta' &&
          'event' in f &&
          f.event.eventId.length > 0 &&
          (f.event.payload as { messageId?: string }).messageId === 'm1',
      ) + 20;
    server.addThread('th-reload', 'Reload', frames, cut);
    const page = await open('#/t/th-reload');
    await page.locator('.message.assistant .markdown').first().waitFor();
    expect(await page.locator('[data-provisional="true"]').count()).toBeGreaterThan(0);
    await page.reload();
    await page.locator('[data-connection="live"]').waitFor();
    server.release('th-reload');
    await page.locator('.message.assistant', { hasText: 'Done.' }).waitFor();
    await page.waitForFunction(() => document.querySelectorAll('[data-provisional="true"]').length === 0);
    const uninterrupted = await open('#/t/th-reload');
    await uninterrupted.locator('.message.assistant', { hasText: 'Done.' }).waitFor();
    const [resumed, reference] = [await scanTimeline(page), await scanTimeline(uninterrupted)];
    expect(resumed.rows).toEqual(reference.rows);
    expect(resumed.rows.filter((r) => r.provisional)).toEqual([]);
    expect(await assistantText(page)).toContain('The build passes now.');
    expect(finalText).toBe(LONG_ANSWER);
    await uninterrupted.close();
    await page.close();
  });

  it('shows reconnecting when the server goes away mid-stream, then completes the thread', async () => {
    const frames = textOnlyThread(
      'th-restart',
      'A long answer that streams in many small pieces, one after another.',
    );
    server.addThread('th-restart', 'Restart', frames, 6);
    const page = await open('#/t/th-restart');
    await page.locator('.message.assistant .markdown').first().waitFor();
    const port = server.port;
    await server.stop();
    await page.locator('[data-connection="reconnecting"]').waitFor();
    await screenshot(page, 'banner-reconnecting-light');
    server.release('th-restart');
    await server.start(port);
    await page.locator('[data-connection="live"]').waitFor({ timeout: 20_000 });
    await page.locator('.row-turn .turn-meta', { hasText: 'Ended: end_turn' }).waitFor();
    expect(await assistantText(page)).toBe(
      'A long answer that streams in many small pieces, one after another.',
    );
    await page.close();
  });

  it('answers an approval with a click, and the file change appears when the engine goes on', async () => {
    const { frames } = allSurfacesThread('th-approve');
    const cut = frames.findIndex((f) => f.type === 'approval.resolved');
    server.addThread('th-approve', 'Approve', frames, cut);
    server.onPost = (posted) => {
      if (posted.path === '/runs/run-1/approvals/ap-1') server.release('th-approve', 2);
    };
    const page = await open('#/t/th-approve');
    await page.locator('[data-surface="waiting"]', { hasText: 'Edit src/add.ts?' }).waitFor();
    await screenshot(page, 'approval-open-light');
    await page.getByRole('button', { name: 'Allow', exact: true }).click();
    await page.locator('[data-surface="file"]', { hasText: 'src/add.ts' }).waitFor();
    await page.locator('.answered', { hasText: 'Answered: Allow by local user' }).waitFor();
    expect(server.posted.find((p) => p.path === '/runs/run-1/approvals/ap-1')?.body).toEqual({
      outcome: 'selected',
      optionId: 'allow',
    });
    expect(await page.locator('[data-surface="waiting"]').count()).toBe(0);
    server.onPost = undefined;
    await page.close();
  });

  it('cancels the running run from the page', async () => {
    const w = new FrameWriter('th-cancel');
    w.runStatus('running');
    w.emit({ kind: 'turn.started', payload: { prompt: 'Count to a million' } });
    w.streamText('m1', 'one two three');
    server.addThread('th-cancel', 'Cancel', w.frames);
    server.onPost = (posted) => {
      if (posted.path === '/runs/run-1/cancel') {
        w.emit({ kind: 'turn.completed', payload: { stopReason: 'cancelled' } });
        w.runStatus('completed');
        w.canonicalized();
        server.release('th-cancel');
      }
    };
    const page = await open('#/t/th-cancel');
    await page.getByRole('button', { name: 'Cancel run' }).click();
    await page.locator('.row-turn .turn-meta', { hasText: 'Ended: cancelled' }).waitFor();
    expect(await page.getByRole('button', { name: 'Cancel run' }).count()).toBe(0);
    server.onPost = undefined;
    await page.close();
  });

  it('sends a prompt with the keyboard alone', async () => {
    server.addThread('th-send', 'Send', textOnlyThread('th-send'));
    const page = await open('#/t/th-send');
    await page.locator('.message.assistant').waitFor();
    await page.locator('#prompt').focus();
    await page.keyboard.type('Next question');
    await page.keyboard.press('Enter');
    await expect.poll(() => server.posted.some((p) => p.path === '/threads/th-send/runs')).toBe(true);
    expect(server.posted.find((p) => p.path === '/threads/th-send/runs')?.body).toEqual({
      prompt: 'Next question',
    });
    await page.close();
  });
});
