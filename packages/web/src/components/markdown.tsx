import { code } from '@streamdown/code';
import { memo } from 'react';
import { Streamdown } from 'streamdown';

const plugins = { code };

/** Streaming Markdown: half-written blocks (an open fence, a cut table) render as well as they can. */
export const Markdown = memo(function Markdown({ text, streaming }: { text: string; streaming: boolean }) {
  return (
    <Streamdown
      className="markdown"
      mode={streaming ? 'streaming' : 'static'}
      parseIncompleteMarkdown
      isAnimating={streaming}
      plugins={plugins}
      shikiTheme={['github-light', 'github-dark']}
    >
      {text}
    </Streamdown>
  );
});
