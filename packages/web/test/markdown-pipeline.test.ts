import { code } from '@streamdown/code';
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { Streamdown } from 'streamdown';
import { describe, expect, it } from 'vitest';
import { Markdown } from '../src/components/markdown';
import { cachedMarkdownTrees } from '../src/components/markdown-cache';

// Finished messages go through a rearranged pipeline (tree cache, options out of the processor key, no
// parse5 round trip without '<'); the page must show exactly what Streamdown's defaults show.
const CORPUS = [
  'Plain words, **bold**, _emphasis_, `inline code`, ~~struck~~ and a [link](https://example.com/a?b=1).',
  '# Title\n\n## Sub\n\nA paragraph\nwith a soft break.\n\n---\n\n> quoted\n> > nested quote',
  '- one\n- two\n  - nested *a*\n  - nested **b**\n\n1. first\n2. second\n\n- [ ] open task\n- [x] done task',
  '| a | b |\n| --- | :-: |\n| 1 | `x` |\n| **2** | y |\n\nAfter the table.',
  '```ts\nconst x: number = 1;\n```\n\nand\n\n    indented code block\n',
  'A footnote[^1] and an autolink www.example.com and https://example.org.\n\n[^1]: The note.',
  'Raw <b>html</b> and <span style="color:red">styled</span>, <script>alert(1)</script> and <https://x.y/z>.',
  'Entities &amp; &lt;tags&gt; and a < b > c, 2 < 3.',
  'Image ![alt text](https://example.com/i.png "title") and hard  \nbreak.',
  'Unfinished **bold and an open fence:\n\n```python\nprint("hi")',
  '| left | right |\n| :-- | --: |\n| a\\|b | [x](#y) |\n\nText with a footnote-like [^not] bracket and [ref][r].\n\n[r]: https://r.example',
  'Headings\n========\n\nSetext two\n----------\n\n* star list\n+ plus list\n\n3) three\n4) four',
  'Emoji 🙂, CJK 漢字, RTL עברית, math-ish $x^2$ and a backslash \\* escaped star.',
  '```diff\n- a\n+ b\n```\n\n```\nno language\n```\n\n~~~json\n{"a": [1, 2]}\n~~~',
];

const props = {
  className: 'markdown',
  mode: 'static' as const,
  parseIncompleteMarkdown: true,
  isAnimating: false,
  plugins: { code },
  shikiTheme: ['github-light', 'github-dark'] as ['github-light', 'github-dark'],
};

describe('finished-message Markdown pipeline', () => {
  it('renders every sample exactly as Streamdown with its default plugins, first and cached', () => {
    for (const text of CORPUS) {
      // Synchronous, one sample at a time: asynchronous highlighting cannot land between the renders.
      const reference = renderToStaticMarkup(createElement(Streamdown, props, text));
      const first = renderToStaticMarkup(createElement(Markdown, { text, streaming: false }));
      const cached = renderToStaticMarkup(createElement(Markdown, { text, streaming: false }));
      expect(first, text).toBe(reference);
      expect(cached, text).toBe(reference);
    }
    expect(cachedMarkdownTrees()).toBe(CORPUS.length);
  });

  it('keeps a streaming message on the plain pipeline (nothing cached for partial texts)', () => {
    const before = cachedMarkdownTrees();
    const text = 'A streaming answer, not finished';
    const markup = renderToStaticMarkup(createElement(Markdown, { text, streaming: true }));
    expect(markup).toContain('A streaming answer');
    expect(cachedMarkdownTrees()).toBe(before);
  });
});
