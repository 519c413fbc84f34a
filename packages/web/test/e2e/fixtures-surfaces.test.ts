import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveServeConfig, serve } from '@agentlane/cli';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectedSurfaces, SURFACE_IDS } from '../../src/surfaces';
import { type Browser, chromiumMissing, launch } from './helpers/browser';
import { buildOnce } from './helpers/build';
import {
  type NativeFixture,
  nativeFixtures,
  replayEngineEntries,
  replayThroughServer,
} from './helpers/fixture-threads';
import { scanSurfaces } from './helpers/surface-scan';

/**
 * Each recorded native trace (the replay engine's recordings and the adapters' other golden traces),
 * replayed by `agentlane serve` through the real translator of its engine, renders in Chromium exactly the
 * surfaces its canonical events call for: every one of them, and none other.
 */
const skip = chromiumMissing();
const fixtures = nativeFixtures();
let browser: Browser;
let server: { url: string; stop(): Promise<void> };
let dataDir: string;
let page: Page;

beforeAll(async () => {
  if (skip) return;
  const webRoot = await buildOnce();
  dataDir = mkdtempSync(join(tmpdir(), 'agentlane-web-fixtures-'));
  const config = resolveServeConfig({ port: '0', dataDir, webRoot }, { AGENTLANE_WORK_DIR: dataDir });
  server = await serve(
    { ...config, engines: replayEngineEntries(fixtures), recordedSessions: false },
    () => {},
  );
  browser = await launch();
  // One page for every case: opening another thread is a hash change, not a reload of the bundle.
  page = await browser.context.newPage();
  await page.goto(`${server.url}/#/`);
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe.skipIf(skip)('recorded fixtures in Chromium', { timeout: 60_000 }, () => {
  it('covers the replay recordings and the adapters’ other native traces', () => {
    expect(fixtures.filter((f) => f.source === 'recording').length).toBeGreaterThanOrEqual(3);
    expect(new Set(fixtures.map((f) => f.provider))).toEqual(new Set(['acp', 'opencode']));
  });

  it.each(fixtures.map((f) => [f.name, f] as [string, NativeFixture]))(
    '%s renders every surface its events contain and none it does not',
    async (_name, fixture) => {
      const { threadId, frames } = await replayThroughServer(server.url, fixture);
      const expected = expectedSurfaces(frames);
      // Every recording is a real engine turn: at least an answer and a tool call.
      expect(expected).toEqual(expect.arrayContaining(['message', 'tool']));

      await page.goto(`${server.url}/#/t/${encodeURIComponent(threadId)}`);
      await page.locator(`main.thread[data-thread-id="${threadId}"]`).waitFor();
      await page.locator('[data-connection="live"]').waitFor();
      await page.locator('.row-turn .turn-meta', { hasText: 'Ended:' }).first().waitFor();
      await page.waitForFunction(() => document.querySelectorAll('[data-provisional="true"]').length === 0);

      const scan = await scanSurfaces(page);
      expect(scan.attached).toEqual([...expected].sort());
      expect(scan.visible).toEqual([...expected].sort());
      for (const absent of SURFACE_IDS.filter((id) => !expected.includes(id))) {
        expect(await page.locator(`[data-surface="${absent}"]`).count(), absent).toBe(0);
      }
    },
  );
});
