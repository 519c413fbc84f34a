import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type FakeModelServer,
  type Scenario,
  slowStream,
  startFakeModelServer,
} from '@agentlane/fake-model-server';
import { builtinServeConfig, freePort, type ServeProcess, startServeProcess } from '@agentlane/test-engines';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Browser, chromiumMissing, launch, screenshot } from './helpers/browser';
import { buildOnce } from './helpers/build';
import { scanTimeline } from './helpers/scan';

/**
 * The page against a real `agentlane serve` process that is SIGKILLed while the built-in engine streams an
 * answer (its model is the fake model server), then started again on the same port and database: the page
 * says reconnecting, catches up, shows the run ended by crash recovery with nothing lost or doubled, and the
 * thread takes the next prompt.
 */
const skip = chromiumMissing();

let browser: Browser;
let fake: FakeModelServer;
let dir: string;
let scenario: Scenario = slowStream({ chunks: 80, delayMs: 120 });
const children: ServeProcess[] = [];

/** `agentlane serve` as its own process on a fixed port, so the page finds it again after a restart. */
async function startServe(port: number): Promise<ServeProcess> {
  const serve = await startServeProcess([
    '--port',
    String(port),
    '--db',
    join(dir, 'agentlane.db'),
    '--config',
    join(dir, 'agentlane.json'),
  ]);
  children.push(serve);
  return serve;
}

beforeAll(async () => {
  if (skip) return;
  const webRoot = await buildOnce();
  fake = await startFakeModelServer({ scenario: (request) => scenario(request) });
  dir = mkdtempSync(join(tmpdir(), 'agentlane-web-kill-'));
  const work = join(dir, 'work');
  mkdirSync(work);
  writeFileSync(
    join(dir, 'agentlane.json'),
    JSON.stringify(
      builtinServeConfig({
        fakeUrl: fake.url,
        workDir: work,
        apiKey: 'sk-web-kill-test-0123456789',
        webRoot,
        plan: false,
      }),
    ),
  );
  browser = await launch();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  for (const child of children) await child.kill();
  await fake?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The assistant's text as rendered, whitespace-normalized. */
const answer = async (page: import('playwright-core').Page, index: number) =>
  ((await page.locator('.message.assistant .markdown').nth(index).textContent()) ?? '')
    .replace(/\s+/g, ' ')
    .trim();

describe.skipIf(skip)(
  'web timeline while agentlane serve is killed and restarted',
  { timeout: 180_000 },
  () => {
    it('shows reconnecting, catches up after the restart with nothing lost or doubled, and goes on', async () => {
      const port = await freePort();
      const first = await startServe(port);
      const url = `http://127.0.0.1:${port}`;
      const page = await browser.context.newPage();
      await page.goto(`${url}/`);
      await page.locator(`input[name="engine"][value="builtin"]`).check();
      await page.getByRole('button', { name: 'Start thread' }).click();
      await page.locator('#prompt').waitFor({ timeout: 30_000 });
      await page.locator('#prompt').fill('Tell me a long story');
      await page.keyboard.press('Enter');

      // Kill once a part of the streamed answer is on the page, well before the stream's end (~10 s).
      await page.waitForFunction(
        () => (document.querySelector('.message.assistant .markdown')?.textContent ?? '').length > 40,
        undefined,
        { timeout: 60_000 },
      );
      await first.kill();
      await page.locator('[data-connection="reconnecting"]').waitFor({ timeout: 20_000 });
      const beforeRestart = await answer(page, 0);
      expect(beforeRestart.length).toBeGreaterThan(40);

      await startServe(port);
      await page.locator('[data-connection="live"]').waitFor({ timeout: 60_000 });
      // Crash recovery settles the run and canonicalizes it: every row turns final.
      await page.waitForFunction(
        () => document.querySelectorAll('[data-provisional="true"]').length === 0,
        undefined,
        {
          timeout: 60_000,
        },
      );
      const recovered = await answer(page, 0);
      expect(recovered.startsWith(beforeRestart)).toBe(true);
      await screenshot(page, 'server-killed-recovered-light');

      // What the page built across the crash equals a fresh view of the same thread: nothing doubled.
      const live = await scanTimeline(page);
      // The run ends where the crash cut it, as an error the page shows (crash recovery's harness.error).
      expect(live.surfaces).toContain('error');
      const fresh = await browser.context.newPage();
      await fresh.goto(page.url());
      await fresh.locator('[data-connection="live"]').waitFor();
      await fresh.locator('.message.assistant').first().waitFor();
      expect((await scanTimeline(fresh)).rows).toEqual(live.rows);
      await fresh.close();

      // The thread is usable: the next prompt runs to its end.
      scenario = () => ({ text: 'Back after the restart.' });
      await page.locator('#prompt').fill('Are you there?');
      await page.keyboard.press('Enter');
      await page.locator('.message.assistant .markdown', { hasText: 'Back after the restart.' }).waitFor({
        timeout: 60_000,
      });
      await page.waitForFunction(
        () => document.querySelectorAll('[data-provisional="true"]').length === 0,
        undefined,
        {
          timeout: 60_000,
        },
      );
      await page.close();
    });
  },
);
