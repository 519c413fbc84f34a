import { memo } from 'react';
import { Streamdown } from 'streamdown';
import { createCodeHighlighter } from './code-highlighter';

// Shiki output is cached by the code plugin itself (keyed by code, language and themes), so a code
// block that mounts again is not highlighted again.
const plugins = { code: createCodeHighlighter() };
const shikiTheme: ['github-light', 'github-dark'] = ['github-light', 'github-dark'];

/**
 * Streaming Markdown: half-written blocks (an open fence, a cut table) render as well as they can.
 * Streamdown's default pipeline as is: a per-text tree cache wrapped around it (skip the parse on a
 * remount) measured slower in the web benchmark (main-thread CPU per scroll frame 8 → 12 ms), so it
 * was taken out again.
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
    >
      {text}
    </Streamdown>
  );
});
