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
  const shown = state === 'copied' ? 'Copied' : state === 'failed' ? 'Copy failed' : 'Copy';
  // The accessible name must contain the visible text (WCAG 2.5.3), in every state.
  const name = state === 'idle' ? label : `${shown}: ${label}`;
  return (
    <button type="button" className="copy" onClick={copy} aria-label={name} data-copy-state={state}>
      <span aria-live="polite">{shown}</span>
    </button>
  );
}
