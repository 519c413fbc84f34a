import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveServeConfig, serve } from '@agentlane/cli';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Browser, chromiumMissing, cspViolations, launch, screenshot } from './helpers/browser';
import { buildOnce } from './helpers/build';
import { scanTimeline } from './helpers/scan';

const skip = chromiumMissing();
let browser: Browser;
let server: { url: string; stop(): Promise<void> };
let dataDir: string;

beforeAll(async () => {
  if (skip) return;
  const webRoot = await buildOnce();
  dataDir = mkdtempSync(join(tmpdir(), 'agentlane-web-e2e-'));
  const config = resolveServeConfig({ port: '0', dataDir, webRoot }, {});
  server = await serve({ ...config, recordedSessions: true }, () => {});
  browser = await launch();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe.skipIf(skip)('web timeline against agentlane serve', { timeout: 150_000 }, () => {
  it('starts a replayed engine session from the page, follows it live, and survives a reload', async () => {
    const health = (await (await fetch(`${server.url}/api/harness/health`)).json()) as {
      engines: { name: string }[];
    };
    const engine = health.engines[0]?.name;
    expect(engine).toBeDefined();
    const page = await browser.context.newPage();
    const index = await page.goto(`${server.url}/`);
    expect(index?.headers()['content-security-policy']).toContain("script-src 'self'");
    await page.locator(`input[name="engine"][value="${engine}"]`).check();
    await page.getByRole('button', { name: 'Start thread' }).click();
    await page.locator('#prompt').waitFor();
    await page.locator('#prompt').fill('Replay the recorded session');
    await page.keyboard.press('Enter');
    await page.locator('.message.assistant').first().waitFor({ timeout: 90_000 });
    await page.waitForFunction(
      () => document.querySelectorAll('[data-provisional="true"]').length === 0,
      undefined,
      {
        timeout: 120_000,
      },
    );
    await screenshot(page, `real-server-${engine}-light`);
    const live = await scanTimeline(page);
    expect(live.rows.some((r) => r.text.includes('Ended:'))).toBe(true);
    await page.reload();
    await page.locator('[data-connection="live"]').waitFor();
    await page.locator('.message.assistant').first().waitFor();
    expect((await scanTimeline(page)).rows).toEqual(live.rows);
    // Under the server's content security policy: whatever it refused would be a broken feature.
    expect(await cspViolations(page)).toEqual([]);
    await page.close();
  });
});
