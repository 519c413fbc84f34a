import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Browser, chromiumMissing, launch } from './helpers/browser';
import { buildOnce } from './helpers/build';
import { type BuiltinServe, startBuiltinServe } from './helpers/builtin-serve';

/**
 * What an outside probe of the web app found, against `agentlane serve` with the built-in engine: the open
 * thread's status when its runs settled before it was opened, the thread list past its first page, an
 * answer over the lane's 64 KiB artifact threshold, and bidi overrides in thread titles.
 */
const skip = chromiumMissing();

let browser: Browser;
let serve: BuiltinServe;
// About 90 KB of code in one fenced block: the completed text goes to an artifact, a preview stays.
const LINES = 3000;
const bigAnswer = `\`\`\`ts\n${Array.from({ length: LINES }, (_, i) => `const value${i} = ${i}; // line ${i}`).join('\n')}\n\`\`\`\n`;

beforeAll(async () => {
  if (skip) return;
  const webRoot = await buildOnce();
  serve = await startBuiltinServe(webRoot, (request) =>
    request.lastUserPrompt === 'BIGCODE'
      ? { text: bigAnswer }
      : request.lastUserPrompt === 'LONGWORD'
        ? { text: `start ${'w'.repeat(20_000)} end` }
        : { text: `echo: ${request.lastUserPrompt}` },
  );
  browser = await launch();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await serve?.stop();
});

const row = (threadId: string) => `.sidebar a[data-thread-id="${threadId}"]`;

describe.skipIf(skip)('fixes for the outside probe', { timeout: 180_000 }, () => {
  it('shows a settled thread as done, not new, when it is opened after its run ended', async () => {
    const threadId = await serve.createThread();
    await serve.prompt(threadId, 'hello');
    await serve.waitForStatus(threadId, 'done');
    const page = await browser.context.newPage();
    await page.goto(`${serve.url}/#/t/${threadId}`);
    await page.locator('.message.assistant', { hasText: 'echo: hello' }).waitFor({ timeout: 60_000 });
    await page.locator(`${row(threadId)}[data-status="done"]`).waitFor();
    // Still done after a few polls (the stream's "no run seen" does not win over the server).
    await page.waitForTimeout(2500);
    expect(await page.locator(row(threadId)).getAttribute('data-status')).toBe('done');
    await page.close();
  });

  it('lists the open thread, pages older threads in with "Load older threads", isolates titles', async () => {
    const oldest = await serve.createThread('bulk 0 <b>x</b> \u202Eevil');
    for (let i = 1; i <= 60; i++) await serve.createThread(`bulk ${i}`);
    const page = await browser.context.newPage();
    await page.goto(`${serve.url}/#/t/${oldest}`);
    // The open thread is listed although it is on no page read yet; the first page is 50 rows.
    await page.locator(row(oldest)).waitFor();
    const title = page.locator(`${row(oldest)} .thread-item-title bdi[dir="auto"]`);
    expect(await title.textContent()).toBe('bulk 0 <b>x</b> \\u202Eevil');
    const count = () => page.locator('.sidebar a[data-thread-id]').count();
    expect(await count()).toBe(51);
    const more = page.getByRole('button', { name: 'Load older threads' });
    await more.click();
    // Every thread once (the earlier tests' threads too); nothing older: the button is gone.
    await more.waitFor({ state: 'detached' });
    const ids = await page
      .locator('.sidebar a[data-thread-id]')
      .evaluateAll((links) => links.map((a) => a.getAttribute('data-thread-id')));
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.length).toBe(62);
    expect(ids.indexOf(oldest)).toBe(60);
    // The header isolates it too.
    expect(await page.locator('h1.thread-title bdi').textContent()).toBe('bulk 0 <b>x</b> \\u202Eevil');
    await page.close();
  });

  it('shows all of an answer over 64 KiB once it completes, not the 2 KiB preview', async () => {
    const threadId = await serve.createThread();
    await serve.prompt(threadId, 'BIGCODE');
    await serve.waitForStatus(threadId, 'done');
    const page = await browser.context.newPage();
    await page.goto(`${serve.url}/#/t/${threadId}`);
    // The lane moved the completed text to an artifact (its card shows), the message keeps all of it.
    await page
      .locator('[data-surface="artifact"]', { hasText: 'message.completed text' })
      .waitFor({ timeout: 60_000 });
    const message = page.locator('.message.assistant');
    await message.locator('pre', { hasText: `line ${LINES - 1}` }).waitFor({ timeout: 60_000 });
    expect(await page.locator('[data-testid="message-truncated"]').count()).toBe(0);
    await page.close();
  });

  // A later probe: a 20,000-character word ran 213,574 px wide in a 1,085 px column, clipped, unreachable.
  it('breaks a word longer than the column instead of running it off the side', async () => {
    const threadId = await serve.createThread();
    await serve.prompt(threadId, 'LONGWORD');
    await serve.waitForStatus(threadId, 'done');
    const page = await browser.context.newPage();
    await page.goto(`${serve.url}/#/t/${threadId}`);
    const text = page.locator('.message.assistant .markdown', { hasText: 'end' });
    await text.waitFor({ timeout: 60_000 });
    const { scroll, client } = await text.evaluate((el) => ({
      scroll: el.scrollWidth,
      client: el.clientWidth,
    }));
    expect(scroll).toBeLessThanOrEqual(client);
    await page.close();
  });
});
