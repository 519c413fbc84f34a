import { activeRun, type TimelineState, type TimelineView } from '@agentlane/client';
import { type FormEvent, type KeyboardEvent, useState } from 'react';
import { client } from '../api';

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
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const [highlight, setHighlight] = useState(0);
  const run = activeRun(state);
  const running = run !== undefined || view.items.some((i) => i.type === 'turn' && i.status === 'running');

  const slash = prompt.startsWith('/') && !prompt.includes(' ') ? prompt.slice(1).toLowerCase() : undefined;
  const matches =
    slash !== undefined && view.surfaces.commands
      ? view.commands.filter((c) => c.name.toLowerCase().startsWith(slash)).slice(0, 8)
      : [];

  const submit = async (e?: FormEvent) => {
    e?.preventDefault();
    if (!prompt.trim()) return;
    setBusy(true);
    setError(undefined);
    try {
      await client.createRun(
        threadId,
        {
          prompt,
          ...(mode ? { mode } : {}),
          ...(model ? { model } : {}),
        },
        { idempotencyKey: crypto.randomUUID() },
      );
      setPrompt('');
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    } finally {
      setBusy(false);
    }
  };

  const cancel = async () => {
    const runId =
      run?.runId ?? [...view.items].reverse().find((i) => i.type === 'turn' && i.status === 'running')?.runId;
    if (!runId) return;
    try {
      await client.cancelRun(runId);
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    }
  };

  const complete = (name: string) => {
    setPrompt(`/${name} `);
    setHighlight(0);
  };

  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (matches.length > 0) {
      if (e.key === 'ArrowDown') {
        e.preventDefault();
        setHighlight((highlight + 1) % matches.length);
        return;
      }
      if (e.key === 'ArrowUp') {
        e.preventDefault();
        setHighlight((highlight - 1 + matches.length) % matches.length);
        return;
      }
      if (e.key === 'Tab' || (e.key === 'Enter' && !e.shiftKey)) {
        e.preventDefault();
        complete(matches[highlight]?.name ?? matches[0]!.name);
        return;
      }
    }
    if (e.key === 'Enter' && !e.shiftKey) {
      e.preventDefault();
      void submit();
    }
  };

  const modes = view.mode?.availableModes ?? [];
  const models = view.metadata.availableModels ?? [];
  return (
    <form className="composer" onSubmit={submit} aria-label="Composer">
      {matches.length > 0 && (
        <ul className="completions" id="slash-commands" aria-label="Slash commands" data-surface="commands">
          {matches.map((c, i) => (
            <li key={c.name}>
              <button
                type="button"
                tabIndex={-1}
                className={i === highlight ? 'current' : ''}
                aria-current={i === highlight}
                onMouseDown={(e) => {
                  e.preventDefault();
                  complete(c.name);
                }}
              >
                <span className="mono">/{c.name}</span> <span className="muted">{c.description}</span>
              </button>
            </li>
          ))}
        </ul>
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
          setHighlight(0);
        }}
        onKeyDown={onKeyDown}
        aria-autocomplete={view.surfaces.commands ? 'list' : undefined}
        aria-controls={matches.length > 0 ? 'slash-commands' : undefined}
      />
      <div className="composer-bar">
        {view.surfaces.modes && modes.length > 0 && (
          <label data-surface="mode">
            Mode{' '}
            <select value={mode ?? view.mode?.currentModeId} onChange={(e) => setMode(e.target.value)}>
              {modes.map((m) => (
                <option key={m.id} value={m.id}>
                  {m.name}
                </option>
              ))}
            </select>
          </label>
        )}
        {view.surfaces.modelPicker && (
          <label data-surface="model-picker">
            Model{' '}
            <select value={model ?? view.metadata.model?.id ?? ''} onChange={(e) => setModel(e.target.value)}>
              {view.metadata.model && !models.some((m) => m.id === view.metadata.model?.id) && (
                <option value={view.metadata.model.id}>
                  {view.metadata.model.name ?? view.metadata.model.id}
                </option>
              )}
              {models.map((m) => (
                <option key={m.id} value={m.id}>
                  {m.name ?? m.id}
                </option>
              ))}
            </select>
          </label>
        )}
        <span className="spacer" />
        {running && (
          <button type="button" onClick={cancel} className="danger">
            Cancel run
          </button>
        )}
        <button type="submit" className="primary" disabled={busy || !prompt.trim()}>
          Send
        </button>
      </div>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
    </form>
  );
}
