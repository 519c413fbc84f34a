import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { expect } from 'vitest';
import { screenshotDir } from './browser';
import { pixelStats, pngSize } from './png';

/**
 * An element screenshot in the light and the dark theme, to `artifacts/screenshots/<theme>/<name>.png`
 * (the folder CI keeps), each checked to be a real PNG with content and the dark one darker.
 */
export async function shootBothThemes(page: Page, name: string, locator: Locator): Promise<void> {
  const luminance: Record<string, number> = {};
  for (const theme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: theme });
    mkdirSync(join(screenshotDir, theme), { recursive: true });
    await locator.waitFor();
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    const path = join(screenshotDir, theme, `${name}.png`);
    await locator.screenshot({ path, animations: 'disabled' });
    const size = pngSize(path);
    expect(size.width * size.height, `${theme}/${name}.png is empty`).toBeGreaterThan(400);
    const stats = await pixelStats(page, path);
    expect(stats.colours, `${theme}/${name}.png shows no content`).toBeGreaterThanOrEqual(4);
    luminance[theme] = stats.luminance;
  }
  expect(luminance['dark']!, `dark ${name}.png is not darker`).toBeLessThan(luminance['light']!);
  await page.emulateMedia({ colorScheme: 'light' });
}
