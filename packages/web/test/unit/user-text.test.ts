import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { neutralizeBidi, UserText } from '../../src/components/user-text';

/** Thread titles and names are isolated from the row around them and cannot reverse text with an override. */
describe('user-chosen titles', () => {
  it('shows bidi embeddings and overrides as escapes, keeps isolates and ordinary RTL text', () => {
    expect(neutralizeBidi('bulk 519 <b>x</b> \u202Eevil')).toBe('bulk 519 <b>x</b> \\u202Eevil');
    expect(neutralizeBidi('\u202A\u202B\u202C\u202D')).toBe('\\u202A\\u202B\\u202C\\u202D');
    expect(neutralizeBidi('שלום \u2067abc\u2069')).toBe('שלום \u2067abc\u2069');
  });

  it('renders in an isolating <bdi dir="auto">, HTML escaped', () => {
    const html = renderToStaticMarkup(createElement(UserText, { text: '<b>x</b> \u202Eevil' }));
    expect(html).toBe('<bdi dir="auto">&lt;b&gt;x&lt;/b&gt; \\u202Eevil</bdi>');
  });
});
