import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { codexPreset } from '@agentlane/adapter-acp';
import { resolveServeConfig, serve } from '@agentlane/cli';
import {
  type FakeModelServer,
  slowStream,
  startFakeModelServer,
  toolThenAnswer,
  writeFileTool,
} from '@agentlane/fake-model-server';
import { engineEntries, missingEngine } from '@agentlane/test-engines';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// The engine suites' SSE follower: the API side of the cancel assertion reads the same stream they do.
import { ThreadStream } from '../../../../testing/engines/test/opencode-stack';
import { type Browser, chromiumMissing, launch, screenshot } from './helpers/browser';
import { buildOnce } from './helpers/build';

/**
 * The page against `agentlane serve` with a real engine (Codex over ACP, the fastest cold start) whose
 * model is the fake model server: an approval clicked in the page reaches the engine, cancel from the page
 * ends the run cancelled.
 */
// Chromium first: without it the pinned engines are not installed for nothing.
const noChromium = chromiumMissing();
const codexEntry = noChromium ? null : engineEntries().codex;
const skip =
  noChromium ??
  (codexEntry
    ? undefined
    : (() => {
        const reason = `real-engine browser tests skipped: ${missingEngine('codex', engineEntries())}`;
        if (process.env['CI'] === 'true') throw new Error(reason);
        console.warn(reason);
        return reason;
      })());

let browser: Browser;
let server: { url: string; stop(): Promise<void> };
let fake: FakeModelServer;
let dataDir: string;
let work: string;

beforeAll(async () => {
  if (skip) return;
  const webRoot = await buildOnce();
  fake = await startFakeModelServer();
  dataDir = mkdtempSync(join(tmpdir(), 'agentlane-web-engine-'));
  work = mkdtempSync(join(tmpdir(), 'agentlane-web-engine-work-'));
  const codex = codexPreset({ entry: codexEntry!, modelBaseUrl: fake.url, homeRoot: join(dataDir, 'homes') });
  // The preset is plain JSON, so it goes through serve's config path like a user's config file would.
  const config = resolveServeConfig({ port: '0', dataDir, webRoot }, { AGENTLANE_WORK_DIR: work });
  server = await serve(
    { ...config, engines: [{ ...codex, type: 'acp' }], recordedSessions: false },
    () => {},
  );
  browser = await launch();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await fake?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  if (work) rmSync(work, { recursive: true, force: true });
});

/** Starts a Codex thread from the page and sends `prompt` from the composer; returns the run's id. */
async function startFromPage(
  page: Page,
  title: string,
  prompt: string,
): Promise<{ threadId: string; runId: string }> {
  await page.goto(`${server.url}/`);
  await page.locator(`input[name="engine"][value="codex"]`).check();
  await page.getByLabel('Work folder').fill(work);
  await page.getByLabel('Title').fill(title);
  await page.getByRole('button', { name: 'Start thread' }).click();
  await page.locator('#prompt').waitFor({ timeout: 30_000 });
  await page.locator('#prompt').fill(prompt);
  const created = page.waitForResponse(
    (r) => r.request().method() === 'POST' && /\/threads\/[^/]+\/runs$/.test(new URL(r.url()).pathname),
  );
  await page.keyboard.press('Enter');
  const response = await created;
  expect(response.status()).toBe(201);
  const { run } = (await response.json()) as { run: { runId: string; threadId: string } };
  return { threadId: run.threadId, runId: run.runId };
}

const api = (path: string) => `${server.url}/api/harness${path}`;

describe.skipIf(skip)('web timeline against agentlane serve with Codex (ACP)', { timeout: 90_000 }, () => {
  it('an approval clicked in the page reaches the engine and the file change appears', async () => {
    const target = join(work, 'hello.txt');
    fake.setScenario(
      toolThenAnswer({ tool: writeFileTool(target, 'Hello from the page!\n'), answer: 'Done: hello.txt.' }),
    );
    const page = await browser.context.newPage();
    await page.emulateMedia({ colorScheme: 'light' });
    await startFromPage(page, 'Approve from the page', 'Create hello.txt');

    const card = page.locator('[data-surface="approval"].open');
    await card.waitFor({ timeout: 45_000 });
    await screenshot(page, 'real-engine-approval-light');
    await page.emulateMedia({ colorScheme: 'dark' });
    await screenshot(page, 'real-engine-approval-dark');
    await page.emulateMedia({ colorScheme: 'light' });
    expect(existsSync(target)).toBe(false);

    // The engine's allow-once option is the first "allow" button (styled primary); its label is Codex's.
    const allow = card.locator('.actions button.primary').first();
    const label = (await allow.textContent())?.trim() ?? '';
    await allow.click();

    await page.locator('[data-surface="file"]', { hasText: 'hello.txt' }).waitFor({ timeout: 45_000 });
    await page.locator('[data-surface="approval"] .answered', { hasText: `Answered: ${label}` }).waitFor();
    await page.locator('.row-turn .turn-meta', { hasText: 'Ended: end_turn' }).waitFor({ timeout: 45_000 });
    expect(readFileSync(target, 'utf8')).toBe('Hello from the page!\n');
    expect(await page.locator('[data-surface="file"] .status').first().textContent()).toBe('created');
    await page.close();
  });

  it('cancel from the page ends the run cancelled, in the page and through the API', async () => {
    fake.setScenario(slowStream({ chunks: 400, delayMs: 50 }));
    const page = await browser.context.newPage();
    const { threadId, runId } = await startFromPage(page, 'Cancel from the page', 'Talk slowly');
    const stream = new ThreadStream(api(`/threads/${threadId}/events`));
    try {
      // Cancel mid-stream: once the engine's text is visibly arriving.
      await page.locator('.message.assistant').first().waitFor({ timeout: 45_000 });
      await page.getByRole('button', { name: 'Cancel run' }).click();
      await page
        .locator('.row-turn .turn-meta', { hasText: 'Ended: cancelled' })
        .waitFor({ timeout: 45_000 });
      await page.getByRole('button', { name: 'Cancel run' }).waitFor({ state: 'detached' });

      await stream.waitFor(
        (events) => events.some((e) => e.type === 'run.canonicalized' && e.runId === runId),
        45_000,
      );
      const ended = stream.canonical(runId).filter((e) => e.type === 'turn.completed');
      expect(ended).toHaveLength(1);
      expect(ended[0]?.event.payload).toMatchObject({ stopReason: 'cancelled' });
      const { run } = (await (await fetch(api(`/runs/${runId}`))).json()) as {
        run: { status: string; outcome?: string | null; endedAt?: string | null; error?: string | null };
      };
      // RunStatus has no cancelled state: a cancelled run ends completed with outcome cancelled, no error.
      expect(run).toMatchObject({ status: 'completed', outcome: 'cancelled', error: null });
      expect(run.endedAt).toBeTruthy();
    } finally {
      stream.close();
      await page.close();
    }
  });
});
