import type { Page } from 'playwright-core';

export interface Scan {
  surfaces: string[];
  /** The text of every row, in order, each row once. */
  rows: { key: string; text: string; provisional: boolean }[];
}

/**
 * The timeline is virtualized (only visible rows exist in the DOM), so a test scrolls it from top to
 * bottom and collects what each row showed.
 */
export async function scanTimeline(page: Page): Promise<Scan> {
  return page.evaluate(async () => {
    const list = document.querySelector<HTMLElement>('.timeline');
    const surfaces = new Set<string>();
    const rows = new Map<string, { key: string; text: string; provisional: boolean }>();
    const frame = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    const collect = () => {
      for (const el of document.querySelectorAll<HTMLElement>('[data-surface]'))
        surfaces.add(el.dataset['surface']!);
      for (const el of document.querySelectorAll<HTMLElement>('.timeline [data-key]')) {
        rows.set(el.dataset['key']!, {
          key: el.dataset['key']!,
          text: el.textContent.replace(/\s+/g, ' ').trim(),
          provisional: el.dataset['provisional'] === 'true',
        });
      }
    };
    if (list) {
      for (let top = 0; top <= list.scrollHeight; top += Math.max(100, list.clientHeight / 2)) {
        list.scrollTop = top;
        await frame();
        collect();
      }
      list.scrollTop = list.scrollHeight;
      await frame();
    }
    collect();
    return { surfaces: [...surfaces].sort(), rows: [...rows.values()] };
  });
}
