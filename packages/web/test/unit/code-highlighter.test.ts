import type { TokensResult } from 'shiki';
import { describe, expect, it, vi } from 'vitest';
import { createCodeHighlighter, TOKENIZE_TIME_LIMIT_MS } from '../../src/components/code-highlighter';

/** The per-line time limit of every tokenization the plugin asks Shiki for. */
const limits = vi.hoisted(() => [] as unknown[]);
vi.mock('shiki', async (importOriginal) => {
  const real = await importOriginal<typeof import('shiki')>();
  return {
    ...real,
    createHighlighter: async (options: Parameters<typeof real.createHighlighter>[0]) => {
      const h = await real.createHighlighter(options);
      const codeToTokens = h.codeToTokens.bind(h);
      h.codeToTokens = (code, opts) => {
        limits.push((opts as { tokenizeTimeLimit?: number }).tokenizeTimeLimit);
        return codeToTokens(code, opts);
      };
      return h;
    },
  };
});

const CODE = 'export function add(a: number, b: number): number {\n  return a + b;\n}\n// done';

function highlight(
  plugin: ReturnType<typeof createCodeHighlighter>,
  code: string,
  isIncomplete = false,
): Promise<TokensResult> {
  return new Promise((resolve) => {
    const done = (result: unknown) => resolve(result as TokensResult);
    const now = plugin.highlight({ code, language: 'ts', themes: plugin.getThemes(), isIncomplete }, done);
    if (now) done(now);
  });
}

/** Each token as `text light dark`. */
function colours(result: TokensResult): string[] {
  return result.tokens.flatMap((row) =>
    row.map(
      (t) => `${t.content.trim()} ${t.htmlStyle?.['color'] ?? ''} ${t.htmlStyle?.['--shiki-dark'] ?? ''}`,
    ),
  );
}

describe('code highlighter', () => {
  it('colours tokens in both themes: a keyword, a type, a parameter and a comment each their own', async () => {
    const seen = colours(await highlight(createCodeHighlighter(), CODE));
    expect(seen).toContain('return #D73A49 #F97583');
    expect(seen).toContain('number #005CC5 #79B8FF');
    expect(seen).toContain('a #E36209 #FFAB70');
    expect(seen.find((t) => t.startsWith('// done'))).toBeDefined();
  });

  it('a block streamed in pieces ends exactly as the whole block highlighted at once', async () => {
    const whole = colours(await highlight(createCodeHighlighter(), CODE));
    for (const step of [1, 5, 17]) {
      const plugin = createCodeHighlighter();
      for (let end = 1; end < CODE.length; end += step) await highlight(plugin, CODE.slice(0, end), true);
      const streamed = await highlight(plugin, CODE);
      expect(colours(streamed)).toEqual(whole);
      expect(streamed.tokens.flat().map((t) => t.offset)).toEqual(
        (await highlight(createCodeHighlighter(), CODE)).tokens.flat().map((t) => t.offset),
      );
    }
  });

  it('unknown languages are plain text, aliases resolve, a finished block is served from the cache', async () => {
    const plugin = createCodeHighlighter();
    expect(plugin.supportsLanguage('TS')).toBe(true);
    expect(plugin.supportsLanguage('no-such-language')).toBe(false);
    const plain = await new Promise<TokensResult>((resolve) => {
      plugin.highlight({ code: 'x = 1', language: 'no-such-language', themes: plugin.getThemes() }, (r) =>
        resolve(r as TokensResult),
      );
    });
    expect(
      plain.tokens
        .flat()
        .map((t) => t.content)
        .join(''),
    ).toBe('x = 1');
    await highlight(plugin, CODE);
    expect(plugin.highlight({ code: CODE, language: 'ts', themes: plugin.getThemes() })).not.toBeNull();
  });

  it('every tokenization runs with the raised per-line time limit, not Shiki’s 500 ms', async () => {
    limits.length = 0;
    const plugin = createCodeHighlighter();
    await highlight(plugin, CODE.slice(0, 30), true);
    await highlight(plugin, CODE);
    expect(limits.length).toBeGreaterThan(1);
    expect(new Set(limits)).toEqual(new Set([TOKENIZE_TIME_LIMIT_MS]));
  });
});
