import { useState } from 'react';

/** Copies a text to the clipboard; says so for two seconds (and to screen readers). */
export function CopyButton({ text, label = 'Copy' }: { text: string | (() => string); label?: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(typeof text === 'function' ? text() : text);
      setState('copied');
    } catch {
      setState('failed');
    }
    setTimeout(() => setState('idle'), 2000);
  };
  return (
    <button type="button" className="copy" onClick={copy} aria-label={label} data-copy-state={state}>
      <span aria-live="polite">
        {state === 'copied' ? 'Copied' : state === 'failed' ? 'Copy failed' : 'Copy'}
      </span>
    </button>
  );
}
