import type { TimelineState, TimelineView } from '@agentlane/client';
import { type FormEvent, type KeyboardEvent, useState } from 'react';
import { ModelSelect, ModeSelect } from './composer-pickers';
import { SlashCommandList, useSlashCommands } from './slash-commands';
import { useRunControl } from './use-run-control';

/** Prompt, cancel, slash commands, mode selector, and a model picker only when the engine allows one. */
export function Composer({
  state,
  view,
  threadId,
}: {
  state: TimelineState;
  view: TimelineView;
  threadId: string;
}) {
  const [prompt, setPrompt] = useState('');
  const [mode, setMode] = useState<string | undefined>();
  const [model, setModel] = useState<string | undefined>();
  const runs = useRunControl(state, view, threadId);
  const slash = useSlashCommands(prompt, view, setPrompt);

  const submit = async (e?: FormEvent) => {
    e?.preventDefault();
    if (!prompt.trim()) return;
    const started = await runs.start({ prompt, ...(mode ? { mode } : {}), ...(model ? { model } : {}) });
    if (started) setPrompt('');
  };

  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (slash.onKey(e)) return;
    if (e.key === 'Enter' && !e.shiftKey) {
      e.preventDefault();
      void submit();
    }
  };

  return (
    <form className="composer" onSubmit={submit} aria-label="Composer">
      {slash.matches.length > 0 && (
        <SlashCommandList matches={slash.matches} highlight={slash.highlight} onPick={slash.complete} />
      )}
      <label htmlFor="prompt" className="sr-only">
        Prompt
      </label>
      <textarea
        id="prompt"
        value={prompt}
        rows={3}
        placeholder={view.surfaces.commands ? 'Ask, or type / for commands' : 'Ask something'}
        onChange={(e) => {
          setPrompt(e.target.value);
          slash.restart();
        }}
        onKeyDown={onKeyDown}
        aria-autocomplete={view.surfaces.commands ? 'list' : undefined}
        aria-controls={slash.matches.length > 0 ? 'slash-commands' : undefined}
      />
      <div className="composer-bar">
        <ModeSelect view={view} mode={mode} onChange={setMode} />
        <ModelSelect view={view} model={model} onChange={setModel} />
        <span className="spacer" />
        {runs.running && (
          <button type="button" onClick={runs.cancel} className="danger">
            Cancel run
          </button>
        )}
        <button type="submit" className="primary" disabled={runs.busy || !prompt.trim()}>
          Send
        </button>
      </div>
      {runs.error && (
        <p className="error" role="alert">
          {runs.error}
        </p>
      )}
    </form>
  );
}
