import { describe, expect, it } from 'vitest';
import { forEachPage, MAX_EMPTY_PAGES, nextCursorOf } from '../src/paging.js';

describe('cursor paging', () => {
  it('reads a page cursor: a string, null or empty for the last page, undefined for anything else', () => {
    expect(nextCursorOf({ nextCursor: 'c1' })).toBe('c1');
    expect(nextCursorOf({ nextCursor: null })).toBeNull();
    expect(nextCursorOf({ nextCursor: '' })).toBeNull();
    expect(nextCursorOf({ nextCursor: 5 })).toBeUndefined();
    expect(nextCursorOf({})).toBeUndefined();
  });

  it('follows cursors to the last page, in order', async () => {
    const asked: (string | null)[] = [];
    const seen: number[] = [];
    const next: Record<string, string | null> = { start: 'a', a: 'b', b: null };
    await forEachPage(
      async (cursor) => {
        asked.push(cursor);
        return { nextCursor: next[cursor ?? 'start'] ?? null, n: asked.length };
      },
      (page) => {
        seen.push(page.n);
        return 1;
      },
      (cursor) => new Error(`repeated ${cursor}`),
    );
    expect(asked).toEqual([null, 'a', 'b']);
    expect(seen).toEqual([1, 2, 3]);
  });

  it('stops with the caller’s error when a server repeats a cursor, after handing over the pages it had', async () => {
    const cursors = ['a', 'b', 'a', 'c'];
    let i = 0;
    const seen: string[] = [];
    await expect(
      forEachPage(
        async () => ({ nextCursor: cursors[i++] ?? null }),
        (page) => {
          seen.push(String(page.nextCursor));
          return 1;
        },
        (cursor) => new Error(`repeated ${cursor}`),
      ),
    ).rejects.toThrow('repeated a');
    expect(seen).toEqual(['a', 'b', 'a']);
  });

  it('stops a server that sends empty pages with new cursors, after MAX_EMPTY_PAGES of them', async () => {
    let n = 0;
    await expect(
      forEachPage(
        async () => ({ nextCursor: `c${n++}`, rows: 0 }),
        (page) => page.rows,
        () => new Error('repeated'),
        (pages) => new Error(`${pages} empty`),
      ),
    ).rejects.toThrow(`${MAX_EMPTY_PAGES} empty`);
    expect(n).toBe(MAX_EMPTY_PAGES);
  });
});
