import type { Scenario } from '@agentlane/fake-model-server';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeViolations, type Browser, chromiumMissing, launch } from './helpers/browser';
import { buildOnce } from './helpers/build';
import { type BuiltinServe, startBuiltinServe } from './helpers/builtin-serve';
import { shootBothThemes } from './helpers/themes';

/**
 * The sidebar of threads against `agentlane serve` with the built-in engine on the fake model server: a
 * run's status followed from queued to waiting on you to done, two pages on one thread in sync, rename,
 * search, unread marker and keyboard navigation.
 */
const skip = chromiumMissing();

let browser: Browser;
let serve: BuiltinServe;
// Turn 1 writes a file (an approval with a diff); once the tool result is in the history, the answer.
const writeThenAnswer: Scenario = (request) =>
  request.toolResultsSinceUserPrompt > 0
    ? { text: 'Done: hello.txt is written.' }
    : {
        text: 'I will write the file.',
        toolCalls: [{ name: 'write_file', arguments: { path: 'hello.txt', content: 'hello\n' } }],
      };

beforeAll(async () => {
  if (skip) return;
  const webRoot = await buildOnce();
  serve = await startBuiltinServe(webRoot, (request) =>
    request.lastUserPrompt?.startsWith('write')
      ? writeThenAnswer(request)
      : { text: `echo: ${request.lastUserPrompt}` },
  );
  browser = await launch();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await serve?.stop();
});

/** Records every status the sidebar row of a thread shows, in order, from the moment it is called. */
async function recordStatuses(page: Page, threadId: string): Promise<void> {
  await page.evaluate((id) => {
    const seen: string[] = [];
    (window as unknown as { __statuses: string[] }).__statuses = seen;
    const read = () => {
      const status = document.querySelector(`a[data-thread-id="${id}"]`)?.getAttribute('data-status');
      if (status && seen.at(-1) !== status) seen.push(status);
    };
    read();
    new MutationObserver(read).observe(document.body, { subtree: true, attributes: true, childList: true });
  }, threadId);
}

const statuses = (page: Page) =>
  page.evaluate(() => (window as unknown as { __statuses: string[] }).__statuses);
const row = (page: Page, threadId: string) => page.locator(`.sidebar a[data-thread-id="${threadId}"]`);

describe.skipIf(skip)('sidebar of threads', { timeout: 120_000 }, () => {
  it('follows a run from queued to waiting on you to done, and two pages on the thread stay in sync', async () => {
    // The lane runs four runs at once: four threads waiting on an approval hold every slot, so the
    // fifth run stays queued until one of them is cancelled.
    const blockers = await Promise.all([1, 2, 3, 4].map(() => serve.createThread('blocker')));
    const blocking = await Promise.all(blockers.map((id) => serve.prompt(id, 'write a blocker file')));
    await Promise.all(blockers.map((id) => serve.waitForStatus(id, 'waiting')));
    const threadId = await serve.createThread();
    const a = await browser.context.newPage();
    const b = await browser.context.newPage();
    for (const page of [a, b]) {
      await page.goto(`${serve.url}/#/t/${threadId}`);
      await page.locator('[data-connection="live"]').waitFor();
      await row(page, threadId).waitFor();
    }
    await recordStatuses(a, threadId);
    expect(await row(a, threadId).getAttribute('data-status')).toBe('idle');

    await a.locator('#prompt').fill('write hello.txt');
    await a.keyboard.press('Enter');
    for (const page of [a, b])
      await row(page, threadId).and(page.locator('[data-status="queued"]')).waitFor();
    await serve.cancel(blocking[0]!);
    for (const page of [a, b])
      await page.locator('[data-surface="approval"].open').waitFor({ timeout: 60_000 });
    await row(b, threadId).and(b.locator('[data-status="waiting"]')).waitFor();
    // The title is the first prompt until someone names the thread.
    await expect
      .poll(() => row(a, threadId).locator('.thread-item-title').textContent())
      .toBe('write hello.txt');
    // The header too, on the page the prompt was sent from and on the other (it said "New thread" until a reload).
    for (const page of [a, b])
      await expect.poll(() => page.locator('h1.thread-title').textContent()).toBe('write hello.txt');

    // Answered in one page, the approval disappears from the other.
    await a.locator('[data-surface="approval"].open .actions button.primary').first().click();
    await b.locator('[data-surface="approval"].open').waitFor({ state: 'detached', timeout: 30_000 });
    await b.locator('[data-surface="waiting"]').waitFor({ state: 'detached' });
    await b
      .locator('.message.assistant', { hasText: 'Done: hello.txt is written.' })
      .waitFor({ timeout: 60_000 });
    for (const page of [a, b]) await row(page, threadId).and(page.locator('[data-status="done"]')).waitFor();
    const seen = await statuses(a);
    expect(seen[0]).toBe('idle');
    expect(seen.at(-1)).toBe('done');
    // queued → (running) → waiting → (running) → done, in that order.
    const order = ['idle', 'queued', 'running', 'waiting', 'running', 'done'];
    let at = 0;
    for (const status of seen) {
      at = order.indexOf(status, at);
      expect(at, `status ${status} out of order in ${seen.join(' → ')}`).toBeGreaterThanOrEqual(0);
    }
    expect(seen).toContain('queued');
    expect(seen).toContain('waiting');
    for (const runId of blocking.slice(1)) await serve.cancel(runId);
    await a.close();
    await b.close();
  });

  it('renames, searches, marks unread threads and moves with the keyboard', async () => {
    const first = await serve.createThread();
    const second = await serve.createThread();
    await serve.prompt(first, 'first question');
    const page = await browser.context.newPage();
    const other = await browser.context.newPage();
    await page.goto(`${serve.url}/#/t/${first}`);
    await page
      .locator('.message.assistant', { hasText: 'echo: first question' })
      .waitFor({ timeout: 60_000 });
    await other.goto(`${serve.url}/#/`);
    await row(other, first).waitFor();

    // Events on a thread this page is not showing: unread, until it is opened.
    await serve.prompt(second, 'second question');
    await row(page, second).and(page.locator('[data-unread="true"]')).waitFor({ timeout: 30_000 });
    expect(await row(page, first).getAttribute('data-unread')).toBe('false');

    // Rename from the thread header; the other page's list reads it on its next poll.
    await page.getByRole('button', { name: 'Rename' }).click();
    await page.getByLabel('Thread title').fill('Quarterly numbers');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.locator('h1.thread-title', { hasText: 'Quarterly numbers' }).waitFor();
    await row(other, first).locator('.thread-item-title', { hasText: 'Quarterly numbers' }).waitFor();

    // Search narrows the list (the server's free-text search over titles and folders).
    await other.getByLabel('Search threads').fill('Quarterly');
    await expect.poll(() => other.locator('.sidebar a[data-thread-id]').count()).toBe(1);
    await other.getByLabel('Search threads').fill('');
    await expect.poll(() => other.locator('.sidebar a[data-thread-id]').count()).toBeGreaterThan(2);

    // Keyboard: from the search box down into the list, then Enter opens the focused thread.
    await other.getByLabel('Search threads').focus();
    await other.keyboard.press('ArrowDown');
    const firstId = await other.locator('.sidebar a[data-thread-id]').first().getAttribute('data-thread-id');
    expect(await other.evaluate(() => document.activeElement?.getAttribute('data-thread-id'))).toBe(firstId);
    await other.keyboard.press('ArrowDown');
    const secondId = await other.evaluate(() => document.activeElement?.getAttribute('data-thread-id'));
    expect(secondId).not.toBe(firstId);
    await other.keyboard.press('End');
    await other.keyboard.press('Home');
    expect(await other.evaluate(() => document.activeElement?.getAttribute('data-thread-id'))).toBe(firstId);
    await other.keyboard.press('ArrowDown');
    await other.keyboard.press('Enter');
    await other.waitForURL((url) => url.hash === `#/t/${secondId}`);
    await row(other, secondId!).and(other.locator('[aria-current="page"]')).waitFor();

    // Opening the unread thread clears its marker.
    await row(page, second).click();
    await page
      .locator('.message.assistant', { hasText: 'echo: second question' })
      .waitFor({ timeout: 60_000 });
    await page.locator('[data-connection="live"]').waitFor();
    await page.goto(`${serve.url}/#/t/${first}`);
    await row(page, second).and(page.locator('[data-unread="false"]')).waitFor();

    expect(await axeViolations(page, 'aside.sidebar')).toEqual([]);
    await shootBothThemes(page, 'sidebar', page.locator('aside.sidebar'));
    // An engine whose start probe failed is named with its reason (the server's /health says so).
    await page.route('**/api/harness/health', async (route) => {
      const res = await route.fetch();
      const body = (await res.json()) as { checks: Record<string, unknown> };
      body.checks['engine:codex'] = { status: 'unavailable', error: 'OPENAI_API_KEY is not set' };
      await route.fulfill({ response: res, json: body });
    });
    await page.goto(`${serve.url}/#/`);
    await page.reload();
    await page.locator('.engine-option').first().waitFor();
    // The built-in engine's static manifest (from /health) before any session of it negotiated.
    await page
      .locator('.engine-option[data-engine="builtin"] .chip', { hasText: 'approvals' })
      .first()
      .waitFor();
    await page
      .locator('.engine-unavailable[data-engine="codex"]', {
        hasText: 'cannot start: OPENAI_API_KEY is not set',
      })
      .waitFor();
    expect(await axeViolations(page, 'main.home')).toEqual([]);
    await shootBothThemes(page, 'new-thread-engines', page.locator('main.home'));
    await page.close();
    await other.close();
  });
});
