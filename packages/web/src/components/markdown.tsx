import { code } from '@streamdown/code';
import { memo } from 'react';
import { Streamdown } from 'streamdown';
import { finishedMessagePlugins } from './markdown-cache';

// Shiki output is cached by the code plugin itself (keyed by code, language and themes), so a code
// block that mounts again is not highlighted again.
const plugins = { code };
const shikiTheme: ['github-light', 'github-dark'] = ['github-light', 'github-dark'];

/**
 * Streaming Markdown: half-written blocks (an open fence, a cut table) render as well as they can.
 * A finished message goes through Streamdown's default pipeline arranged for cheap remounts (see
 * markdown-cache.ts), so a row that scrolls back into view is not parsed again; a streaming one keeps the
 * plain pipeline (its partial texts would only churn the cache, and Streamdown memoizes finished blocks).
 */
export const Markdown = memo(function Markdown({ text, streaming }: { text: string; streaming: boolean }) {
  return (
    <Streamdown
      className="markdown"
      mode={streaming ? 'streaming' : 'static'}
      parseIncompleteMarkdown
      isAnimating={streaming}
      plugins={plugins}
      shikiTheme={shikiTheme}
      {...(streaming ? {} : finishedMessagePlugins(text))}
    >
      {text}
    </Streamdown>
  );
});
