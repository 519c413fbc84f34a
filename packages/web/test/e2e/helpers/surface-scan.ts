import type { Locator, Page } from 'playwright-core';

export interface SurfaceScan {
  /** Every `data-surface` value that was in the DOM at some point of the scan. */
  attached: string[];
  /** Those of them that were also visible (rendered with a size, not hidden). */
  visible: string[];
}

/**
 * What surfaces the thread page shows. The timeline is virtualized (only rows near the viewport exist in
 * the DOM), so the scan scrolls it from top to bottom; then it types `/` in the composer, since slash
 * command completions only show while the user types a command, and clears the prompt again.
 */
export async function scanSurfaces(page: Page): Promise<SurfaceScan> {
  const collect = () =>
    page.evaluate(async () => {
      const attached = new Set<string>();
      const visible = new Set<string>();
      const frame = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
      const look = () => {
        for (const el of document.querySelectorAll<HTMLElement>('[data-surface]')) {
          const id = el.dataset['surface']!;
          attached.add(id);
          if (el.checkVisibility() && el.getBoundingClientRect().height > 0) visible.add(id);
        }
      };
      const list = document.querySelector<HTMLElement>('.timeline');
      if (list) {
        for (let top = 0; top <= list.scrollHeight; top += Math.max(100, list.clientHeight / 2)) {
          list.scrollTop = top;
          await frame();
          look();
        }
      }
      look();
      return { attached: [...attached], visible: [...visible] };
    });
  const rows = await collect();
  const prompt = page.locator('#prompt');
  let commands = { attached: [] as string[], visible: [] as string[] };
  if ((await prompt.count()) > 0) {
    await prompt.fill('/');
    // Completions render on the next React commit; a missing list simply stays missing.
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    commands = await collect();
    await prompt.fill('');
  }
  const union = (a: string[], b: string[]) => [...new Set([...a, ...b])].sort();
  return {
    attached: union(rows.attached, commands.attached),
    visible: union(rows.visible, commands.visible),
  };
}

/**
 * The first element matching `selector`, scrolled into the DOM: the timeline is searched top to bottom
 * until a row matching it is mounted. Throws when no row matches.
 */
export async function findInTimeline(page: Page, selector: string): Promise<Locator> {
  const found = await page.evaluate(async (sel) => {
    const frame = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    if (document.querySelector(sel)) return true;
    const list = document.querySelector<HTMLElement>('.timeline');
    if (!list) return false;
    for (let top = 0; top <= list.scrollHeight; top += Math.max(100, list.clientHeight / 2)) {
      list.scrollTop = top;
      await frame();
      const el = document.querySelector<HTMLElement>(sel);
      if (el) {
        el.scrollIntoView({ block: 'center' });
        await frame();
        return true;
      }
    }
    return false;
  }, selector);
  if (!found) throw new Error(`no element matches ${selector} anywhere in the timeline`);
  return page.locator(selector).first();
}
