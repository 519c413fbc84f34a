import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Browser, chromiumMissing, launch, screenshotDir } from './helpers/browser';
import { buildOnce } from './helpers/build';
import { FakeServer } from './helpers/fake-server';
import { allSurfacesThread, textOnlyThread } from './helpers/frames';
import { HeldStreams } from './helpers/held-streams';
import { openCard } from './helpers/open-card';
import { pixelStats, pngSize } from './helpers/png';
import { findInTimeline } from './helpers/surface-scan';
import { composerAndErrorsThread } from './helpers/surface-threads';

/**
 * An element screenshot of every surface of the UI in the light and the dark theme, written to
 * `artifacts/screenshots/<theme>/<surface>.png` (the folder CI keeps).
 */
const THEMES = ['light', 'dark'] as const;
type Theme = (typeof THEMES)[number];

/** Every surface the UI has, by the file name its screenshot gets. */
const SHOTS = [
  'thread-list',
  'new-thread',
  'banner-live',
  'banner-connecting',
  'banner-catching-up',
  'banner-reconnecting',
  'banner-failed',
  'waiting',
  'usage',
  'turn',
  'message',
  'reasoning',
  'reasoning-open',
  'plan',
  'context',
  'tool',
  'tool-failed',
  'tool-group',
  'tool-group-open',
  'file',
  'diff',
  'terminal',
  'artifact',
  'child',
  'child-session',
  'approval',
  'approval-resolved',
  'question',
  'warning',
  'error',
  'error-fatal',
  'composer',
] as const;
type Shot = (typeof SHOTS)[number];

const skip = chromiumMissing();
let server: FakeServer;
let held: HeldStreams;
let browser: Browser;

beforeAll(async () => {
  if (skip) return;
  server = new FakeServer(await buildOnce());
  server.addThread('th-all', 'Fix the adder', allSurfacesThread('th-all').frames);
  server.addThread('th-extras', 'Deploy to staging', composerAndErrorsThread('th-extras'));
  server.addThread('th-text', 'Say hello', textOnlyThread('th-text'));
  await server.start();
  held = new HeldStreams();
  held.hold('th-connecting', { kind: 'silent' });
  held.hold('th-behind', { kind: 'behind', head: 500, frames: textOnlyThread('th-behind').slice(0, 4) });
  await held.start();
  browser = await launch();
  // Only this file's own shots go: other test files write theirs (inspectors, sidebar, …) to the same
  // folders, at the same time or before, and wiping the folders lost them.
  for (const theme of THEMES)
    for (const shot of SHOTS) rmSync(join(screenshotDir, theme, `${shot}.png`), { force: true });
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await held?.stop();
  await server?.stop();
});

const nextFrames = (page: Page) =>
  page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));

/**
 * Scrolls the element into view and waits until it stops moving: the virtualized timeline measures rows
 * and adjusts its scroll offset a frame or two after a card opens, and a screenshot taken in between
 * shows the wrong row.
 */
async function settle(locator: Locator): Promise<void> {
  await locator.scrollIntoViewIfNeeded();
  let last = '';
  for (let i = 0; i < 30; i += 1) {
    const box = JSON.stringify(await locator.boundingBox());
    if (box === last) return;
    last = box;
    await nextFrames(locator.page());
  }
}

/**
 * Screenshots the element in each theme in turn: the colour scheme is switched in place, so every surface
 * is found, opened and laid out once for both themes.
 */
async function shoot(locator: Locator, name: Shot): Promise<void> {
  for (const theme of THEMES) {
    await locator.page().emulateMedia({ colorScheme: theme });
    mkdirSync(join(screenshotDir, theme), { recursive: true });
    await settle(locator);
    await locator.screenshot({ path: join(screenshotDir, theme, `${name}.png`), animations: 'disabled' });
  }
}

/** Screenshots the area several elements cover (the completions float above the composer), both themes. */
async function shootArea(page: Page, locators: Locator[], name: Shot): Promise<void> {
  for (const theme of THEMES) {
    await page.emulateMedia({ colorScheme: theme });
    mkdirSync(join(screenshotDir, theme), { recursive: true });
    const boxes = [];
    for (const locator of locators) {
      await settle(locator);
      const box = await locator.boundingBox();
      if (!box) throw new Error(`${name}: ${locator} has no box`);
      boxes.push(box);
    }
    const x = Math.min(...boxes.map((b) => b.x));
    const y = Math.min(...boxes.map((b) => b.y));
    const clip = {
      x,
      y,
      width: Math.max(...boxes.map((b) => b.x + b.width)) - x,
      height: Math.max(...boxes.map((b) => b.y + b.height)) - y,
    };
    await page.screenshot({ path: join(screenshotDir, theme, `${name}.png`), clip, animations: 'disabled' });
  }
}

async function openThread(page: Page, hash: string): Promise<void> {
  await page.goto(`${server.url}/${hash}`);
  await page.locator('main.thread').waitFor();
}

/** Opens a collapsed card by its head button and waits for its body. */
async function expand(card: Locator, body: string): Promise<void> {
  await openCard(card.locator('.card-head').first(), card.locator(body));
}

describe.skipIf(skip)('screenshots of every surface', { timeout: 90_000 }, () => {
  it('in the light and the dark theme', async () => {
    const page = await browser.context.newPage();
    await held.route(page);
    await page.route('**/api/harness/threads/th-gone/events*', (route) => route.abort());
    const at = (name: Shot) => (locator: Locator) => shoot(locator, name);

    // The thread list and the form that starts a thread.
    await page.goto(`${server.url}/#/`);
    await page.locator('.thread-items a').first().waitFor();
    await at('thread-list')(page.locator('aside.sidebar'));
    await at('new-thread')(page.locator('form.new-thread'));

    // A thread with every timeline surface, settled.
    await openThread(page, '#/t/th-all');
    await page.locator('.message.assistant', { hasText: 'Done.' }).waitFor();
    await page.waitForFunction(() => document.querySelectorAll('[data-provisional="true"]').length === 0);
    await at('banner-live')(page.locator('.thread-top'));
    await at('waiting')(page.locator('[data-surface="waiting"]'));
    await at('usage')(page.locator('.thread-meta'));
    await at('message')(await findInTimeline(page, '.message.assistant'));
    await at('reasoning')(await findInTimeline(page, '[data-surface="reasoning"]'));
    await expand(page.locator('[data-surface="reasoning"]'), '.reasoning-text');
    await at('reasoning-open')(page.locator('[data-surface="reasoning"]'));
    await at('turn')(await findInTimeline(page, '.row-turn'));
    await at('plan')(await findInTimeline(page, '[data-surface="plan"]'));
    await at('context')(await findInTimeline(page, '[data-surface="context"]'));
    await at('tool-group')(await findInTimeline(page, '.tool-group'));
    await expand(page.locator('.tool-group'), '.tool');
    await at('tool-group-open')(page.locator('.tool-group'));
    const tool = await findInTimeline(page, '.tool[data-kind="execute"]');
    await expand(tool, '.card-body');
    await at('tool')(tool);
    const file = await findInTimeline(page, '[data-surface="file"]');
    await at('file')(file);
    await expand(file, '.diff');
    await at('diff')(file);
    const terminal = await findInTimeline(page, '[data-surface="terminal"]');
    await expand(terminal, '.terminal span');
    await at('terminal')(terminal);
    await at('approval-resolved')(await findInTimeline(page, '[data-surface="approval"]'));
    await at('child')(await findInTimeline(page, '[data-surface="child"]'));
    await at('question')(await findInTimeline(page, '[data-surface="question"]'));
    await at('artifact')(await findInTimeline(page, '[data-surface="artifact"]'));
    await at('warning')(await findInTimeline(page, '[data-surface="warning"]'));

    // A child session opened on its own.
    await openThread(page, '#/t/th-all/c/child-1');
    await page.locator('.message.assistant', { hasText: 'Looks good to me.' }).waitFor();
    await at('child-session')(page.locator('main.thread'));

    // An open command approval, a failed tool, errors, and the composer with everything it can offer.
    await openThread(page, '#/t/th-extras');
    await page.locator('.error-row.fatal').waitFor();
    await at('approval')(await findInTimeline(page, '[data-surface="approval"].open'));
    await at('tool-failed')(await findInTimeline(page, '.tool-failed'));
    await at('error')(await findInTimeline(page, '.error-row:not(.fatal)'));
    await at('error-fatal')(await findInTimeline(page, '.error-row.fatal'));
    await page.locator('#prompt').fill('/re');
    await page.locator('[data-surface="commands"]').waitFor();
    await page.locator('[data-surface="model-picker"]').waitFor();
    await page.locator('[data-surface="mode"]').waitFor();
    await shootArea(
      page,
      [page.locator('form.composer'), page.locator('[data-surface="commands"]')],
      'composer',
    );
    await page.locator('#prompt').fill('');

    // The connection banner in each of its other states.
    await openThread(page, '#/t/th-connecting');
    await page.locator('[data-connection="connecting"]').waitFor();
    await at('banner-connecting')(page.locator('.thread-top'));
    await openThread(page, '#/t/th-behind');
    await page.locator('[data-connection="catching-up"]').waitFor();
    await at('banner-catching-up')(page.locator('.thread-top'));
    await openThread(page, '#/t/th-gone');
    // From the fourth attempt on the backoff waits over a second, usually long enough for a steady
    // screenshot; on a busy machine one can still span the next try, so it is taken again until the
    // attempt shown before and after is the same (a screenshot never catches the moment of a retry).
    await page.locator('[data-connection="reconnecting"]', { hasText: 'attempt 4' }).waitFor();
    let steady = false;
    for (let tries = 0; tries < 6 && !steady; tries++) {
      const before = await page.locator('.banner').textContent();
      await at('banner-reconnecting')(page.locator('.thread-top'));
      const after = await page.locator('.banner').textContent();
      steady = before === after && /attempt \d+/.test(after ?? '');
    }
    expect(steady, 'a screenshot of the reconnecting banner within one attempt').toBe(true);
    await openThread(page, '#/t/no-such-thread');
    await page.locator('[data-connection="failed"]').waitFor();
    await at('banner-failed')(page.locator('.thread-top'));
    await page.close();
  });

  it('wrote a readable PNG of every surface in both themes, the dark one darker', async () => {
    const page = await browser.context.newPage();
    const problems: string[] = [];
    for (const name of SHOTS) {
      const stats: Partial<Record<Theme, number>> = {};
      for (const theme of THEMES) {
        const path = join(screenshotDir, theme, `${name}.png`);
        if (!existsSync(path)) {
          problems.push(`${theme}/${name}.png is missing`);
          continue;
        }
        const size = pngSize(path);
        const pixels = await pixelStats(page, path);
        if (size.width < 40 || size.height < 16)
          problems.push(`${theme}/${name}.png is ${size.width}x${size.height}`);
        // Text on a background needs at least a few colours (anti-aliasing gives many more); blank has one.
        if (pixels.colours < 4) problems.push(`${theme}/${name}.png shows ${pixels.colours} colours`);
        stats[theme] = pixels.luminance;
      }
      if (stats.light !== undefined && stats.dark !== undefined && !(stats.dark < stats.light - 0.2)) {
        problems.push(`${name}: dark luminance ${stats.dark.toFixed(2)} vs light ${stats.light.toFixed(2)}`);
      }
    }
    await page.close();
    expect(problems).toEqual([]);
  });
});
