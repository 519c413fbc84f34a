import type { Locator } from 'playwright-core';
import { vi } from 'vitest';

/**
 * Opens a card by its head until its body shows: the virtualized list re-measures rows as they scroll in,
 * and a click that lands while a row above changes height hits another row (seen in CI under load).
 */
export async function openCard(head: Locator, body: Locator): Promise<void> {
  await vi.waitFor(
    async () => {
      if ((await body.count()) === 0) {
        await head.scrollIntoViewIfNeeded();
        await head.click();
      }
      await body.first().waitFor({ timeout: 3000 });
    },
    { timeout: 30_000, interval: 100 },
  );
}
